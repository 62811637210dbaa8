import { api, ok } from '../api/client';
import { roomContent, takeEarly } from '../api/early-reads';
import type { LiveChange } from '../api/types';
import type { RoomOpening } from '../opening';
import { session } from '../session';
import { Store } from '../store';
import { applyChange, markersOfFeed, withMarkerDetails, type RoomState } from './room-state';

export type { RoomState } from './room-state';

/**
 * The room's content, loaded over HTTP and kept current by the live channel (`apply`) and by
 * the page's own writes (`change`, called by room/actions/*). Components read it; they never
 * keep copies of it.
 */
export class RoomModel extends Store<RoomState | null> {
  /** The read of every marker's whole fields, once asked for (`loadMarkerDetails`). */
  private details: Promise<void> | null = null;

  /** `opening`: the room page's (opening.ts); the reads of the markers' other fields wait for it to settle. */
  constructor(
    readonly roomId: string,
    private readonly opening: RoomOpening,
  ) {
    super(null);
  }

  /** The path parameters of the room's own routes. */
  get path() {
    return { params: { path: { roomId: this.roomId } } };
  }

  /**
   * Loads everything (first open, and after a `resync` from `version`): the version first, then
   * the content (api/early-reads.ts: on opening, those the page's entry sent). Markers come from
   * the feed (what the map draws); the rest of each is read when asked for.
   */
  async load(version?: number) {
    // An early read that failed (a network hiccup) is read again, once.
    const read =
      version === undefined
        ? await takeEarly('opening', this.roomId).catch(() => takeEarly('opening', this.roomId))
        : { version, content: await roomContent(this.roomId) };
    const [room, markers, icons, layers, rasters, drawings, slides, comments] = read.content;
    this.set({
      room,
      markers: markersOfFeed(markers),
      icons: icons.icons,
      layers: layers.layers,
      rasters: rasters.rasterLayers,
      drawings: new Map(drawings.drawings.map((d) => [d.id, d])),
      slides: slides.slides,
      comments: comments.comments,
      version: read.version,
    });
    if (this.details) {
      this.details = null;
      void this.loadMarkerDetails().catch(() => undefined);
    }
  }

  /**
   * Reads every marker whole (`GET /markers`, the interface's list) once the map has drawn
   * them (the opening settled: the read does not compete with the map's first markers), for
   * what needs more than the feed (the Markers panel searches titles and tags). Once per load;
   * again after a failure.
   */
  loadMarkerDetails(): Promise<void> {
    this.details ??= this.opening
      .settled()
      .then(() => ok(api.GET('/api/rooms/{roomId}/markers', this.path)))
      .then(({ markers }) => this.change((state) => withMarkerDetails(state, markers)))
      .catch((error) => {
        this.details = null;
        throw error;
      });
    return this.details;
  }

  /** Reads one marker whole (its panel opened); a marker deleted meanwhile is left to the live channel. */
  async loadMarker(markerId: string) {
    const read = await api.GET('/api/rooms/{roomId}/markers/{markerId}', {
      params: { path: { roomId: this.roomId, markerId } },
    });
    if (read.response.status === 404) return;
    const { marker } = await ok(Promise.resolve(read));
    this.change((state) => withMarkerDetails(state, [marker]));
  }

  /** Applies what the page itself just did, with a step of room-state.ts (the live echo changes nothing more). */
  change(step: (state: RoomState) => RoomState) {
    const state = this.get();
    if (state) this.set(step(state));
  }

  /** The room record again (its settings answer only part of it). */
  async reloadRoom() {
    const room = await ok(api.GET('/api/rooms/{roomId}', this.path));
    this.change((state) => ({ ...state, room }));
  }

  /** Applies one change from the live channel, in version order; a cleared or imported room is loaded again. */
  async apply(change: LiveChange) {
    const state = this.get();
    if (!state) return;
    const next = applyChange(state, change);
    if (next === null) await this.load(change.version);
    else if (next !== state) this.set(next);
    // This page's own role changed: what it may do comes from the room record (`userRole`).
    if (change.type === 'member.updated' && change.data.userId === session.get().user?.id) await this.reloadRoom();
  }
}
