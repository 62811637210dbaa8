import { layerOfFeatureObject } from '../layers/feature-edits.schemas.js';
import type { WebSocket } from 'ws';
import { actorOf, type Caller, type Grant, seesLayer } from '../../auth/access.js';
import type { CachedAccess } from '../../auth/access-source.js';
import type { Authenticator } from '../../auth/authenticator.js';
import { authorizePresence, seesMemberEmails, takesPartInPresence } from '../../auth/policies.js';
import { authorizeRoom } from '../../auth/room-access.js';
import { AppError, unauthorized } from '../../errors.js';
import type { LiveHub, RoomEvent } from '../../infra/live-hub.js';
import type { HistoryRepository } from '../history/history.repository.js';
import { liveEventOf } from '../history/history.presenter.js';
import type { RoomsRepository } from '../rooms/rooms.repository.js';
import type { LiveEvent } from './live-events.js';
import { type FeedReceiver, RoomFeed } from './room-feed.js';
import type { RoomPresence } from './room-presence.js';

/**
 * How long an anonymous connection may take to send its credential as first message: fixed,
 * since the live route's description promises clients 10 seconds.
 */
export const AUTH_TIMEOUT_MS = 10_000;
/**
 * A client further behind than this is told to reload instead of replaying: fixed, since
 * reloading the room is cheaper than sending more changes one by one.
 */
export const MAX_REPLAY = 1000;

/** Close codes: 4401 no valid credential, 4403 no read access, 4404 room gone. */
const CLOSE_CODE: Record<number, number> = { 401: 4401, 403: 4403, 404: 4404 };

/**
 * The changes an embed key does not hear: comments and members (which it may not read), and
 * the layers it is not limited to (and their features' edits). Its version still advances past them. Undefined: hears all.
 */
function hiddenFrom(caller: Caller): ((event: RoomEvent) => boolean) | undefined {
  if (caller.kind !== 'token' || !caller.embed) return undefined;
  return (event) =>
    NOT_EMBEDDED.has(event.objectType) ||
    ((event.objectType === 'layer' || event.objectType === 'rasterLayer') && !seesLayer(caller, event.objectId)) ||
    (event.objectType === 'feature' && !seesLayer(caller, layerOfFeatureObject(event.objectId)));
}
const NOT_EMBEDDED = new Set(['comment', 'reply', 'member']);

/** An open socket and the credential it was admitted with, to check again. */
interface Listener {
  socket: WebSocket;
  credential: string | undefined;
  /** Sends a message to the client (while its socket is open). */
  send(message: LiveEvent): void;
  /** The version of the last change the client was sent (or the room's version it was told). */
  lastSent: number;
  /** Sends one change to the client (as `text` when its JSON is made already): the next version, or nothing (a duplicate or a gap). */
  forward(event: RoomEvent, text?: string): void;
  /** Changes held back while the client is caught up or its access is checked again. */
  held: RoomEvent[] | null;
  /** How many reasons there are to hold (the replay, checks in flight). */
  holds: number;
}

function hold(listener: Listener) {
  listener.holds++;
  listener.held ??= [];
}

/** Ends one hold; after the last, the held changes go out in version order. */
function release(listener: Listener) {
  if (--listener.holds > 0) return;
  const events = (listener.held ?? []).sort((a, b) => a.version - b.version);
  listener.held = null;
  for (const event of events) {
    // A change that opens a gap holds the rest again while history fills it.
    const held = listener.held as RoomEvent[] | null;
    if (held) held.push(event);
    else listener.forward(event);
  }
}

/** A socket asking for a room's live channel, as the route received it. */
export interface LiveOpening {
  socket: WebSocket;
  roomId: string;
  caller: Caller;
  grant: Grant;
  /** The last version the client saw (`?since=`): the changes after it are replayed. */
  since?: number;
  /** The credential the request came with, checked again when access changes. */
  credential?: string;
  /** `?presence=true`: also told who comes and goes and where the others point. */
  presenceNews?: boolean;
}

export interface LiveServiceParts {
  hub: LiveHub;
  history: HistoryRepository;
  rooms: RoomsRepository;
  authenticator: Authenticator;
  access: CachedAccess;
  presence: RoomPresence;
  /** How often each socket is pinged (LIVE_HEARTBEAT_MS); one that missed the previous ping is dropped. */
  heartbeatMs: number;
}

/**
 * The live channel of a room: first the room's current version, then the changes the client
 * missed since the version it names (`?since=`), then every change as it happens.
 */
export class LiveService {
  private readonly listeners = new Map<string, Set<Listener>>();
  /** Each room's one subscription to the hub on this instance, shared by its sockets. */
  private readonly feeds = new Map<string, RoomFeed>();

  private readonly hub: LiveHub;
  private readonly history: HistoryRepository;
  private readonly rooms: RoomsRepository;
  private readonly authenticator: Authenticator;
  private readonly access: CachedAccess;
  private readonly presence: RoomPresence;
  private readonly heartbeatMs: number;
  /** Events sent on this instance's sockets since it started (the metrics). */
  private sent = 0;

  constructor(parts: LiveServiceParts) {
    ({
      hub: this.hub,
      history: this.history,
      rooms: this.rooms,
      authenticator: this.authenticator,
      access: this.access,
      presence: this.presence,
      heartbeatMs: this.heartbeatMs,
    } = parts);
    // A room made private, a member removed, a token revoked, a room deleted: the sockets
    // admitted under the old state are checked again and closed when they may not read.
    this.access.onChange((roomId) => {
      const rooms = roomId === null ? [...this.listeners.keys()] : [roomId];
      for (const id of rooms) for (const listener of this.listeners.get(id) ?? []) void this.recheck(id, listener);
    });
  }

  /** Sockets open on this instance, and the events sent on them (the metrics). */
  readonly counts = {
    sockets: () => [...this.listeners.values()].reduce((sum, sockets) => sum + sockets.size, 0),
    eventsSent: () => this.sent,
  };

  /** Changes wait until the socket is known to still read the room; then they flow, or it closes. */
  private async recheck(roomId: string, listener: Listener) {
    hold(listener);
    try {
      const caller = await this.authenticator.resolve(listener.credential);
      await authorizeRoom(this.access, roomId, caller, 'read');
    } catch (error) {
      listener.held = [];
      refuse(listener.socket, error);
      return;
    }
    release(listener);
  }

  /** Opens the room's live channel on a socket, step by step; the held changes go out last. */
  async open(opening: LiveOpening): Promise<void> {
    const admitted = await this.admit(opening);
    if (!admitted) return;
    const listener = this.listen(admitted);
    // A room token or an embed key may lapse while its socket is open (it expires; nothing else
    // tells the sockets): checked again at every heartbeat, closed (4401) once it no longer reads
    // the room. A revocation closes it at once (the access changes).
    const lapses = admitted.caller.kind === 'token';
    const feed = await this.subscribeHoldingChanges(admitted.roomId, listener, lapses);
    if (!feed) return;
    const greeted = await this.enterPresenceBeforeHello(admitted);
    await this.helloThenMissedChanges(admitted, listener, feed, greeted);
    release(listener);
  }

  /** The opening with a caller that reads the room (its credential may come as the first message); null: refused. */
  private async admit(opening: LiveOpening): Promise<LiveOpening | null> {
    const { socket, roomId, caller, grant } = opening;
    try {
      if (grant.capabilities.has('read')) return opening;
      // A credential came with the request but does not allow reading: refuse now.
      // Without one, the client may still send it as its first message.
      if (caller.kind !== 'anonymous')
        return { ...opening, grant: (await authorizeRoom(this.access, roomId, caller, 'read')).grant };
      return { ...opening, ...(await this.authenticateByFirstMessage(socket, roomId)) };
    } catch (error) {
      refuse(socket, error);
      return null;
    }
  }

  /** The socket's listener, known to the room's checks of access from now on. */
  private listen({ socket, roomId, credential, caller }: LiveOpening): Listener {
    const hidden = hiddenFrom(caller);
    const send = (message: LiveEvent) => {
      if (socket.readyState !== socket.OPEN) return;
      socket.send(JSON.stringify(message));
      this.sent++;
    };
    const listener: Listener = {
      socket,
      credential,
      send,
      lastSent: 0,
      held: null,
      holds: 0,
      forward: (event, text) => {
        if (event.version <= listener.lastSent) return; // a duplicate, or replayed already
        if (event.version > listener.lastSent + 1) {
          // Only when the room's feed started after this socket: fill the gap from history.
          void this.catchUp(roomId, listener);
          listener.held?.push(event);
          return;
        }
        listener.lastSent = event.version;
        if (hidden?.(event)) return;
        if (text !== undefined) {
          if (socket.readyState !== socket.OPEN) return;
          socket.send(text);
          this.sent++;
          return;
        }
        const { roomId: _, ...message } = event;
        send(message);
      },
    };
    let sockets = this.listeners.get(roomId);
    if (!sockets) this.listeners.set(roomId, (sockets = new Set()));
    sockets.add(listener);
    return listener;
  }

  /**
   * Subscribes to the room's feed, holding its changes back until the missed ones are
   * replayed, so that nothing falls between the replay and the live stream; `recheckEachBeat`:
   * the socket's credential is checked again at each heartbeat. Null when the feed is
   * unavailable (the socket is closed).
   */
  private async subscribeHoldingChanges(
    roomId: string,
    listener: Listener,
    recheckEachBeat: boolean,
  ): Promise<RoomFeed | null> {
    const { socket } = listener;
    // Closed while it was admitted (its 'close' has been and gone): nothing to subscribe.
    if (socket.readyState !== socket.OPEN) return null;
    hold(listener);
    const feed = this.feedOf(roomId);
    const receiver: FeedReceiver = (event, text) =>
      listener.held ? listener.held.push(event) : listener.forward(event, text);
    feed.add(receiver);
    const heartbeat = this.keepAlive(socket, recheckEachBeat ? () => void this.recheck(roomId, listener) : undefined);
    socket.on('close', () => {
      feed.remove(receiver);
      if (feed.size === 0 && this.feeds.get(roomId) === feed) {
        feed.close();
        this.feeds.delete(roomId);
      }
      clearInterval(heartbeat);
      const sockets = this.listeners.get(roomId);
      sockets?.delete(listener);
      if (sockets?.size === 0) this.listeners.delete(roomId);
    });
    try {
      await feed.ready;
      return feed;
    } catch {
      socket.close(1011, 'The live channel is unavailable; reconnect with ?since=');
      return null;
    }
  }

  /**
   * Present before the hello, so that a client that has its hello is listed (and `since`
   * follows the order of connections); the presence news wait for the hello (`greeted`).
   */
  private async enterPresenceBeforeHello({ socket, roomId, caller, grant, presenceNews = false }: LiveOpening) {
    if (!takesPartInPresence(caller, grant)) return undefined;
    return this.enterPresence(socket, roomId, caller, seesMemberEmails(caller, grant), presenceNews);
  }

  /** The hello with the room's version, then the changes after `since` from history (still holding the feed's). */
  private async helloThenMissedChanges(
    { roomId, since }: LiveOpening,
    listener: Listener,
    feed: RoomFeed,
    greeted: (() => void) | undefined,
  ) {
    const version = await this.rooms.version(roomId);
    listener.send({ type: 'hello', roomId, version });
    greeted?.();
    feed.startAt(version);
    listener.lastSent = version;
    if (since !== undefined && since < version) {
      listener.lastSent = since;
      await this.replay(roomId, listener);
    }
  }

  /**
   * A socket of a member or token is present in the room while it is open, and may send pointers;
   * with `?presence=true` it is also told who comes and goes and where the others point.
   */
  private async enterPresence(
    socket: WebSocket,
    roomId: string,
    caller: Caller,
    emails: boolean,
    news: boolean,
  ): Promise<(() => void) | undefined> {
    if (socket.readyState !== socket.OPEN) return undefined;
    let early: string[] | undefined = [];
    const send = (text: string) => {
      if (early) early.push(text);
      else if (socket.readyState === socket.OPEN) socket.send(text);
    };
    const visitor = await this.presence.enter(roomId, actorOf(caller), news ? send : undefined, emails);
    if (socket.readyState !== socket.OPEN) return void (await visitor.leave());
    socket.on('message', (raw) => visitor.received(String(raw)));
    socket.once('close', () => void visitor.leave().catch(() => {}));
    /** After the hello: the news that came meanwhile, then the rest as they come. */
    return () => {
      const waiting = early ?? [];
      early = undefined;
      for (const text of waiting) send(text);
    };
  }

  /** Who has the room open now: for its members and tokens. */
  present(roomId: string, caller: Caller, grant: Grant) {
    authorizePresence(caller, grant);
    return this.presence.list(roomId, seesMemberEmails(caller, grant));
  }

  /** The room's feed on this instance, subscribed with its first socket. */
  private feedOf(roomId: string): RoomFeed {
    let feed = this.feeds.get(roomId);
    if (!feed) this.feeds.set(roomId, (feed = new RoomFeed(roomId, this.hub, this.history)));
    return feed;
  }

  /**
   * Sends the changes after `listener.lastSent` from history, or `resync` with the room's
   * version when they are too many or history has a hole.
   */
  private async replay(roomId: string, listener: Listener) {
    const from = listener.lastSent;
    const missed = await this.history.since(roomId, from, MAX_REPLAY + 1);
    if (missed.length > MAX_REPLAY || missed.some((row, i) => row.version !== from + 1 + i)) {
      return this.resync(roomId, listener);
    }
    for (const row of missed) listener.forward(liveEventOf(row));
  }

  private async resync(roomId: string, listener: Listener) {
    const version = await this.rooms.version(roomId);
    listener.lastSent = version;
    listener.send({ type: 'resync', version });
  }

  /**
   * Holds live changes while the ones the client has not had are read from history and
   * sent. A held change that history does not reach either is a hole it cannot fill: resync.
   */
  private async catchUp(roomId: string, listener: Listener) {
    hold(listener);
    try {
      await this.replay(roomId, listener);
      const next = Math.min(...(listener.held ?? []).map((event) => event.version));
      if (next > listener.lastSent + 1 && Number.isFinite(next)) await this.resync(roomId, listener);
    } catch {
      listener.socket.close(1011, 'The live channel could not catch up; reconnect with ?since=');
    } finally {
      release(listener);
    }
  }

  /** Waits for `{"type":"auth","token":"..."}`, checks read access with it, returns the credential and its caller. */
  private authenticateByFirstMessage(
    socket: WebSocket,
    roomId: string,
  ): Promise<{ credential: string; caller: Caller; grant: Grant }> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(unauthorized()), AUTH_TIMEOUT_MS);
      socket.once('message', async (raw) => {
        clearTimeout(timer);
        try {
          const message = JSON.parse(String(raw)) as { type?: unknown; token?: unknown };
          if (message.type !== 'auth' || typeof message.token !== 'string') {
            throw unauthorized('Send {"type":"auth","token":"..."} first');
          }
          const credential = `Bearer ${message.token}`;
          const caller = await this.authenticator.resolve(credential);
          const { grant } = await authorizeRoom(this.access, roomId, caller, 'read');
          resolve({ credential, caller, grant });
        } catch (error) {
          reject(error instanceof SyntaxError ? unauthorized('The first message must be JSON') : error);
        }
      });
      socket.once('close', () => clearTimeout(timer));
    });
  }

  /** Pings the socket every heartbeat (one that missed the last is dropped), and runs `beat` then. */
  private keepAlive(socket: WebSocket, beat?: () => void) {
    let alive = true;
    socket.on('pong', () => (alive = true));
    return setInterval(() => {
      if (!alive) return socket.terminate();
      alive = false;
      socket.ping();
      beat?.();
    }, this.heartbeatMs).unref();
  }
}

/** Tells the client why, then closes with 4401, 4403 or 4404. */
function refuse(socket: WebSocket, error: unknown) {
  const e = error instanceof AppError ? error : unauthorized();
  if (socket.readyState === socket.OPEN)
    socket.send(JSON.stringify({ type: 'error', error: e.code, message: e.message } satisfies LiveEvent));
  socket.close(CLOSE_CODE[e.statusCode] ?? 4400, e.message.slice(0, 120));
}
