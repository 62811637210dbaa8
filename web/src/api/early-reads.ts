import { session } from '../session';
import { api, ok } from './client';

/**
 * The first reads of the room and deck pages, sent by a small script of their own (src/early.ts)
 * as soon as the page's HTML is parsed, while the application's scripts (MapLibre most of them)
 * still load and compile: the page's first answers are what everything else waits for. Each is
 * taken once, by the page that needs it, and only with the credential it was sent with; a page
 * opened later in the same tab reads again.
 */
const sent = new Map<string, Promise<unknown>>();

const keyOf = (name: string) => `${name} ${session.get().token ?? ''}`;

function sendEarly(name: string, read: () => Promise<unknown>) {
  const reading = read();
  // Handled by the page that takes it; a read never taken is not an unhandled rejection.
  reading.catch(() => undefined);
  sent.set(keyOf(name), reading);
}

/** The read sent early under `name`, or a fresh one. */
export function takeEarly<T>(name: string, read: () => Promise<T>): Promise<T> {
  const key = keyOf(name);
  const early = sent.get(key) as Promise<T> | undefined;
  sent.delete(key);
  return early ?? read();
}

/** The room of a /r/:roomId path, the deck of a /p/:roomId path. */
export const roomPath = (path: string) => /^\/r\/([A-Za-z0-9_-]{10})\/?$/.exec(path)?.[1];
export const deckPath = (path: string) => /^\/p\/([A-Za-z0-9_-]{10})\/?$/.exec(path)?.[1];

export const roomInfo = (roomId: string) => ok(api.GET('/api/rooms/{roomId}/info', { params: { path: { roomId } } }));

/** A room's latest change version (0 before the first change). */
export async function latestVersion(roomId: string): Promise<number> {
  const { events } = await ok(
    api.GET('/api/rooms/{roomId}/history', { params: { path: { roomId }, query: { limit: 1 } } }),
  );
  return events[0]?.version ?? 0;
}

export const publishedDeck = (roomId: string) =>
  ok(api.GET('/api/rooms/{roomId}/presentation', { params: { path: { roomId } } }));

/** Sends the first reads of the page at `path`: a room's info and version, a deck. */
export function sendFirstReads(path: string) {
  const room = roomPath(path);
  if (room) {
    sendEarly(`info ${room}`, () => roomInfo(room));
    sendEarly(`version ${room}`, () => latestVersion(room));
  }
  const deck = deckPath(path);
  if (deck) sendEarly(`deck ${deck}`, () => publishedDeck(deck));
}
