import { api, ok } from '../api/client';
import type { LiveEvent } from '../api/types';
import { Store } from '../store';

/** Who has the room open: a member (their name, else e-mail) or a room token (its name). */
export type Present = Omit<Extract<LiveEvent, { type: 'presence.joined' }>, 'type'>;
type PresenceMessage = Extract<
  LiveEvent,
  { type: 'presence.joined' | 'presence.left' | 'pointer' | 'view' | 'editing' }
>;
/** The layer's feature one edits. */
export type EditedFeature = { layerId: string; featureId: number };
export type View = Omit<Extract<LiveEvent, { type: 'view' }>, 'type' | 'from'>;
export interface Cursor {
  name: string;
  lng: number;
  lat: number;
}
/** What this page may send on the live channel besides its credential. */
export type Outgoing =
  | { type: 'pointer'; lng: number; lat: number }
  | ({ type: 'view' } & View)
  | { type: 'editing'; feature: EditedFeature | null };

/** The same key for a person or token everywhere on the page. */
export const keyOf = (who: { kind: string; id: string }) => `${who.kind}:${who.id}`;

/**
 * Presence in the room, for this page: who is here (avatars), where the others point (named
 * cursors), what they look at (their last view, for "follow"), and whom this page follows. Fed
 * by the live channel (room/live.ts), which also sends this page's pointer and view.
 */
export class RoomPresence {
  readonly people = new Store<Present[]>([]);
  readonly cursors = new Store<Map<string, Cursor>>(new Map());
  /** The person or token whose view this page's map follows (its key), or null. */
  readonly following = new Store<string | null>(null);
  /** Each one's last view, as they sent it (not a Store: only the follower reads it). */
  readonly views = new Map<string, View>();
  /** The feature each of the others edits (their key: their name and the feature). */
  readonly editing = new Store<Map<string, { name: string } & EditedFeature>>(new Map());
  /** The feature this page edits, told again to newcomers. */
  private edited: EditedFeature | null = null;
  /** Views as they arrive, for the map that follows one. */
  readonly viewArrived = new Store<{ key: string; view: View } | null>(null);
  private send: ((message: Outgoing) => void) | null = null;
  /** What the page's map shows now, told to newcomers so they can follow it at once. */
  currentView: (() => View | null) | null = null;

  constructor(readonly roomId: string) {}

  /** Reads who is here (after each hello: joins and leaves while offline were missed). */
  async load() {
    const { present } = await ok(
      api.GET('/api/rooms/{roomId}/presence', { params: { path: { roomId: this.roomId } } }),
    );
    this.people.set(present);
    const here = new Set(present.map(keyOf));
    this.forgetAll((key) => !here.has(key));
  }

  /** The live channel is open (`send`) or closed (null). */
  connected(send: ((message: Outgoing) => void) | null) {
    this.send = send;
    if (send) this.tellView();
    if (send && this.edited) send({ type: 'editing', feature: this.edited });
  }

  handle(message: PresenceMessage) {
    switch (message.type) {
      case 'presence.joined': {
        const { type: _, ...who } = message;
        this.people.update((people) => [...people.filter((p) => keyOf(p) !== keyOf(who)), who]);
        // The newcomer learns where everyone looks (so they can follow at once), and what they edit.
        this.tellView();
        if (this.edited) this.send?.({ type: 'editing', feature: this.edited });
        return;
      }
      case 'presence.left': {
        const key = keyOf(message);
        this.people.update((people) => people.filter((p) => keyOf(p) !== key));
        this.forgetAll((k) => k === key);
        return;
      }
      case 'pointer': {
        const key = keyOf(message.from);
        const cursors = new Map(this.cursors.get());
        cursors.set(key, { name: message.from.name, lng: message.lng, lat: message.lat });
        this.cursors.set(cursors);
        return;
      }
      case 'editing': {
        const key = keyOf(message.from);
        const editing = new Map(this.editing.get());
        if (message.feature) editing.set(key, { name: message.from.name, ...message.feature });
        else editing.delete(key);
        this.editing.set(editing);
        return;
      }
      case 'view': {
        const { type: _, from, ...view } = message;
        const key = keyOf(from);
        this.views.set(key, view);
        this.viewArrived.set({ key, view });
      }
    }
  }

  pointer(lng: number, lat: number) {
    this.send?.({ type: 'pointer', lng, lat });
  }

  view(view: View) {
    this.send?.({ type: 'view', ...view });
  }

  /** Tells the others which feature this page edits (null: none now). */
  editFeature(feature: EditedFeature | null) {
    this.edited = feature;
    this.send?.({ type: 'editing', feature });
  }

  /** Follows one (or stops, when it is the one followed already). */
  toggleFollow(key: string) {
    this.following.set(this.following.get() === key ? null : key);
  }

  private tellView() {
    const view = this.currentView?.();
    if (view) this.view(view);
  }

  private forgetAll(gone: (key: string) => boolean) {
    const cursors = new Map([...this.cursors.get()].filter(([key]) => !gone(key)));
    if (cursors.size !== this.cursors.get().size) this.cursors.set(cursors);
    for (const key of [...this.views.keys()]) if (gone(key)) this.views.delete(key);
    const editing = new Map([...this.editing.get()].filter(([key]) => !gone(key)));
    if (editing.size !== this.editing.get().size) this.editing.set(editing);
    const followed = this.following.get();
    if (followed && gone(followed)) this.following.set(null);
  }
}

/** Colours that tell people apart on the map and read white text. */
const COLOURS = [
  '#c53030',
  '#2b6cb0',
  '#2f855a',
  '#b7791f',
  '#6b46c1',
  '#c05621',
  '#00838f',
  '#b83280',
  '#4a5568',
  '#276749',
];

/** A stable colour for a person or token: the same on every page (FNV-1a of the key). */
export function colourOf(key: string): string {
  let hash = 0x811c9dc5;
  for (const char of key) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193);
  return COLOURS[(hash >>> 0) % COLOURS.length]!;
}

/** One or two initials of a name (an e-mail's local part counts as a name). */
export function initialsOf(name: string): string {
  const words = name
    .split('@')[0]!
    .split(/[\s._-]+/)
    .filter((word) => /^\p{L}/u.test(word));
  if (words.length === 0) return (name[0] ?? '?').toUpperCase();
  const letters = words.length > 1 ? words[0]![0]! + words[words.length - 1]![0]! : words[0]![0]!;
  return letters.toUpperCase();
}
