import { api, ok } from '../api/client';
import type { Comment, Drawing, Icon, Layer, Marker, RasterLayer, Room, Slide } from '../api/types';
import { Store } from '../store';

/** Everything of a room the page shows; each collection is replaced as a whole when it changes. */
export interface RoomState {
  room: Room;
  markers: Map<string, Marker>;
  icons: Icon[];
  layers: Layer[];
  rasters: RasterLayer[];
  drawings: Map<string, Drawing>;
  slides: Slide[];
  comments: Comment[];
  /** The last change version the page has applied (from the live channel). */
  version: number;
}

/** A change as the live channel sends it (the history's entries). */
export interface LiveChange {
  type: string;
  objectType: string;
  objectId: string;
  data: unknown;
  version: number;
}

/** The room's content, loaded over HTTP and kept current by the live channel. */
export class RoomModel extends Store<RoomState | null> {
  constructor(readonly roomId: string) {
    super(null);
  }

  private get path() {
    return { params: { path: { roomId: this.roomId } } };
  }

  /**
   * Loads everything (first open, and after a `resync`). The version is read first, so the
   * live channel, listening from it, brings every change the reads might have missed.
   */
  async load(version?: number) {
    const p = this.path;
    version ??= await this.currentVersion();
    const [room, markers, icons, layers, rasters, drawings, slides, comments] = await Promise.all([
      ok(api.GET('/api/rooms/{roomId}', p)),
      ok(api.GET('/api/rooms/{roomId}/markers', p)),
      ok(api.GET('/api/rooms/{roomId}/marker-icons', p)),
      ok(api.GET('/api/layers/{roomName}', { params: { path: { roomName: this.roomId } } })),
      ok(api.GET('/api/rooms/{roomId}/raster-layers', p)),
      ok(api.GET('/api/rooms/{roomId}/drawings', p)),
      ok(api.GET('/api/rooms/{roomId}/presentation/slides', p)),
      ok(api.GET('/api/rooms/{roomId}/comments', p)),
    ]);
    this.set({
      room,
      markers: new Map(markers.markers.map((m) => [m.id, m])),
      icons: icons.icons,
      layers: layers.layers,
      rasters: rasters.rasterLayers,
      drawings: new Map(drawings.drawings.map((d) => [d.id, d])),
      slides: slides.slides,
      comments: comments.comments,
      version,
    });
  }

  /** The room's latest change version (0 before the first change). */
  async currentVersion(): Promise<number> {
    const { events } = await ok(
      api.GET('/api/rooms/{roomId}/history', { params: { path: { roomId: this.roomId }, query: { limit: 1 } } }),
    );
    return events[0]?.version ?? 0;
  }

  private patch(change: Partial<RoomState>) {
    const state = this.get();
    if (state) this.set({ ...state, ...change });
  }

  /** Applies what the page itself just did (the live echo of it changes nothing more). */
  putMarker(marker: Marker) {
    const markers = new Map(this.get()!.markers);
    markers.set(marker.id, { ...markers.get(marker.id), ...marker });
    this.patch({ markers });
  }
  removeMarker(id: string) {
    const markers = new Map(this.get()!.markers);
    markers.delete(id);
    this.patch({ markers });
  }
  putDrawing(drawing: Drawing) {
    const drawings = new Map(this.get()!.drawings);
    drawings.set(drawing.id, drawing);
    this.patch({ drawings });
  }
  removeDrawing(id: string) {
    const drawings = new Map(this.get()!.drawings);
    drawings.delete(id);
    this.patch({ drawings });
  }
  putLayer(layer: Layer) {
    this.patch({ layers: upsert(this.get()!.layers, layer) });
  }
  putRaster(raster: RasterLayer) {
    this.patch({ rasters: upsert(this.get()!.rasters, raster) });
  }
  removeLayer(id: string) {
    this.patch({ layers: this.get()!.layers.filter((l) => l.id !== id) });
  }
  removeRaster(id: string) {
    this.patch({ rasters: this.get()!.rasters.filter((r) => r.id !== id) });
  }

  async reloadRoom() {
    this.patch({ room: await ok(api.GET('/api/rooms/{roomId}', this.path)) });
  }
  async reloadComments() {
    this.patch({ comments: (await ok(api.GET('/api/rooms/{roomId}/comments', this.path))).comments });
  }
  async reloadSlides() {
    this.patch({ slides: (await ok(api.GET('/api/rooms/{roomId}/presentation/slides', this.path))).slides });
  }
  async reloadIcons() {
    this.patch({ icons: (await ok(api.GET('/api/rooms/{roomId}/marker-icons', this.path))).icons });
  }

  /** Applies one change from the live channel, in version order. */
  async apply(change: LiveChange) {
    const state = this.get();
    if (!state || change.version <= state.version) return;
    const deleted = change.type.endsWith('.deleted');
    switch (change.objectType) {
      case 'marker':
        if (deleted) this.removeMarker(change.objectId);
        else this.putMarker(change.data as Marker);
        break;
      case 'drawing':
        if (deleted) this.removeDrawing(change.objectId);
        else this.putDrawing(change.data as Drawing);
        break;
      case 'layer':
        if (deleted) this.removeLayer(change.objectId);
        else this.putLayer(change.data as Layer);
        break;
      case 'rasterLayer':
        if (deleted) this.removeRaster(change.objectId);
        else this.putRaster(change.data as RasterLayer);
        break;
      case 'comment':
      case 'reply':
        await this.reloadComments();
        break;
      case 'slide':
      case 'presentation':
        await this.reloadSlides();
        break;
      case 'icon':
        await this.reloadIcons();
        break;
      default:
        if (change.type === 'room.updated') await this.reloadRoom();
        else await this.load(change.version); // cleared, imported: everything changed
    }
    this.patch({ version: change.version });
  }
}

function upsert<T extends { id: string }>(list: T[], item: T): T[] {
  return list.some((x) => x.id === item.id) ? list.map((x) => (x.id === item.id ? item : x)) : [...list, item];
}
