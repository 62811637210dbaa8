import { embedded, session } from '../session';
import { api, ok } from './client';
import type { Deck } from './types';

/**
 * The first reads of the room and deck pages, sent by a small script of their own (src/early.ts)
 * as soon as the page's HTML is parsed, while the application's scripts (MapLibre most of them)
 * still load and compile: the page's first answers are what everything else waits for. Each is
 * taken once, by the page that needs it, and only with the credential it was sent with; a page
 * opened later in the same tab reads again.
 */
const sent = new Map<string, Promise<unknown>>();

const roomInfo = (roomId: string) => ok(api.GET('/api/rooms/{roomId}/info', { params: { path: { roomId } } }));

/** A room's latest change version (0 before the first change). */
async function latestVersion(roomId: string): Promise<number> {
  const { events } = await ok(
    api.GET('/api/rooms/{roomId}/history', { params: { path: { roomId }, query: { limit: 1 } } }),
  );
  return events[0]?.version ?? 0;
}

/** Nothing: what an embed page does not show (comments, slides), which an embed key may not read. */
const none = <K extends string>(key: K) => Promise.resolve({ [key]: [] } as unknown as Record<K, never[]>);

/**
 * Everything a room shows (RoomModel.load): the room, its markers' feed and every list. An
 * embed page shows the map alone: no comments, no slides.
 */
export function roomContent(roomId: string) {
  const p = { params: { path: { roomId } } };
  return Promise.all([
    ok(api.GET('/api/rooms/{roomId}', p)),
    ok(api.GET('/api/rooms/{roomId}/markers/feed', p)),
    ok(api.GET('/api/rooms/{roomId}/marker-icons', p)),
    ok(api.GET('/api/layers/{roomName}', { params: { path: { roomName: roomId } } })),
    ok(api.GET('/api/rooms/{roomId}/raster-layers', p)),
    ok(api.GET('/api/rooms/{roomId}/drawings', p)),
    embedded ? none('slides') : ok(api.GET('/api/rooms/{roomId}/presentation/slides', p)),
    embedded ? none('comments') : ok(api.GET('/api/rooms/{roomId}/comments', p)),
  ]);
}

/**
 * A room's version, then its content: in that order, so that the live channel, listening from
 * the version, brings every change the content's reads might have missed.
 */
async function roomOpening(roomId: string) {
  const version = await latestVersion(roomId);
  return { version, content: await roomContent(roomId) };
}

const publishedDeck = (roomId: string) =>
  ok(api.GET('/api/rooms/{roomId}/presentation', { params: { path: { roomId } } }));

/** The reads a page may find sent early, by name: each of a room (or its deck). */
const READS = { info: roomInfo, opening: roomOpening, deck: publishedDeck };
type Read = keyof typeof READS;

const keyOf = (read: Read, roomId: string) => `${read} ${roomId} ${session.get().token ?? ''}`;

function sendEarly<R extends Read>(read: R, roomId: string): ReturnType<(typeof READS)[R]> {
  const reading = READS[read](roomId) as ReturnType<(typeof READS)[R]>;
  // Handled by the page that takes it; a read never taken is not an unhandled rejection.
  reading.catch(() => undefined);
  sent.set(keyOf(read, roomId), reading);
  return reading;
}

/** The read of the room sent early, or a fresh one. */
export function takeEarly<R extends Read>(read: R, roomId: string): ReturnType<(typeof READS)[R]> {
  const key = keyOf(read, roomId);
  const early = sent.get(key);
  sent.delete(key);
  return (early ?? READS[read](roomId)) as ReturnType<(typeof READS)[R]>;
}

/** The room of a /r/:roomId path, the deck of a /p/:roomId path. */
export const roomPath = (path: string) => /^\/r\/([A-Za-z0-9_-]{10})\/?$/.exec(path)?.[1];
export const deckPath = (path: string) => /^\/p\/([A-Za-z0-9_-]{10})\/?$/.exec(path)?.[1];
/** The room of an embed page (/e/:roomId), the deck of an embedded deck (/e/:roomId/deck). */
export const embedPath = (path: string) => /^\/e\/([A-Za-z0-9_-]{10})\/?$/.exec(path)?.[1];
export const embedDeckPath = (path: string) => /^\/e\/([A-Za-z0-9_-]{10})\/deck\/?$/.exec(path)?.[1];
/** Whether the page at `path` has a map (a room, a deck, or one of them embedded). */
export const mapPath = (path: string) =>
  Boolean(roomPath(path) || deckPath(path) || embedPath(path) || embedDeckPath(path));

/** Sends the first reads of the page at `path`: a room's info and opening, a deck (answered: the deck's first tiles follow it). */
export function sendFirstReads(path: string): Promise<Deck> | undefined {
  const room = roomPath(path) ?? embedPath(path);
  if (room) {
    sendEarly('info', room);
    // An embed key may not read the history the opening starts from (pages/embed-page.tsx).
    if (!(embedded && session.get().token)) sendEarly('opening', room);
  }
  const deck = deckPath(path) ?? embedDeckPath(path);
  return deck ? sendEarly('deck', deck) : undefined;
}
