import type { ApiTokensTable, EmbedKeysTable, RoomsTable, SlideObjectType, UsersTable } from '../db/tables.js';
import type { Broadcast } from '../infra/redis-broadcast.js';
import { TtlCache } from '../infra/ttl-cache.js';
import type { Role } from './access.js';

/** A room with the calling user's role in it (null when not a member or not a user). */
export type RoomWithRole = RoomsTable & { member_role: Role | null };

/**
 * An object a public deck may show: one a slide names (a marker, layer, raster or drawing),
 * or one reached through a marker a slide names (its icon by id, its photo or thumbnail by key).
 */
export interface DeckObjectRef {
  type: SlideObjectType | 'icon' | 'photo';
  id: string;
}

/** The reads the access check makes on every request; the repositories answer them. */
export interface AccessSource {
  roomWithRole(roomId: string, userId: string | null): Promise<RoomWithRole | undefined>;
  tokenByHash(hash: string): Promise<ApiTokensTable | undefined>;
  /** The embed key with this hash (refused like a token when its creator is disabled or deleted). */
  embedKeyByHash(hash: string): Promise<EmbedKeysTable | undefined>;
  userById(id: string): Promise<UsersTable | undefined>;
  /** Whether a slide of the room shows the object (whether the deck is published is the room's). */
  shownByDeck(roomId: string, object: DeckObjectRef): Promise<boolean>;
  /** Whether the session (a session JWT's id) was ended by logging out. */
  sessionRevoked(sessionId: string): Promise<boolean>;
  /** `roomWithRole`'s answer when it is at hand (a cache), without waiting; undefined when it must be read. */
  knownRoomWithRole?(roomId: string, userId: string | null): { readonly value: RoomWithRole | undefined } | undefined;
  /** `tokenByHash`'s answer when it is at hand, without waiting; undefined when it must be read. */
  knownTokenByHash?(hash: string): { readonly value: ApiTokensTable | undefined } | undefined;
}

/** What a service calls after it changed who may do what (membership, visibility, tokens). */
export interface AccessChanges {
  /** Access to this room may have changed. */
  forgetRoom(roomId: string): void;
  /** Some room token or embed key was revoked or removed. */
  forgetTokens(): void;
  /** The session was revoked (logged out). */
  forgetSession(sessionId: string): void;
}

/** What one instance tells the others after a change of access (`AccessChanges` as a message). */
export type AccessChange = { room: string } | { tokens: true } | { session: string };

/**
 * The access reads, cached for `ttlMs` (the lookups every request repeats). Services forget
 * what they change at once, here and, through `others` (Redis in scale-out), on every other
 * instance; the expiry only bounds how long a change goes unseen when a message is lost.
 * Listeners hear of every change (live sockets check themselves again).
 */
export class CachedAccess implements AccessSource, AccessChanges {
  private readonly rooms: TtlCache<RoomWithRole | undefined>;
  private readonly tokens: TtlCache<ApiTokensTable | undefined>;
  private readonly embedKeys: TtlCache<EmbedKeysTable | undefined>;
  private readonly revoked: TtlCache<boolean>;
  private readonly listeners = new Set<(roomId: string | null) => void>();

  constructor(
    private readonly source: AccessSource,
    ttlMs: number,
    private readonly others?: Broadcast<AccessChange>,
  ) {
    this.rooms = new TtlCache(ttlMs);
    this.tokens = new TtlCache(ttlMs);
    this.embedKeys = new TtlCache(ttlMs);
    this.revoked = new TtlCache(ttlMs);
    others?.listen(
      (change) => this.apply(change),
      () => this.forgetAll(),
    );
  }

  roomWithRole(roomId: string, userId: string | null) {
    return this.rooms.get(`${roomId}|${userId ?? ''}`, () => this.source.roomWithRole(roomId, userId));
  }

  tokenByHash(hash: string) {
    return this.tokens.get(hash, () => this.source.tokenByHash(hash));
  }

  /** Cached like tokens, and forgotten with them (`forgetTokens`). */
  embedKeyByHash(hash: string) {
    return this.embedKeys.get(hash, () => this.source.embedKeyByHash(hash));
  }

  knownRoomWithRole(roomId: string, userId: string | null) {
    return this.rooms.known(`${roomId}|${userId ?? ''}`);
  }

  knownTokenByHash(hash: string) {
    return this.tokens.known(hash);
  }

  userById(id: string) {
    return this.source.userById(id);
  }

  /** Never cached: taking an object off a slide takes it from the deck's visitors at once. */
  shownByDeck(roomId: string, object: DeckObjectRef) {
    return this.source.shownByDeck(roomId, object);
  }

  sessionRevoked(sessionId: string) {
    return this.revoked.get(sessionId, () => this.source.sessionRevoked(sessionId));
  }

  /** Tells `listener` when access to a room (or, with null, to any room) may have changed. */
  onChange(listener: (roomId: string | null) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  forgetRoom(roomId: string): void {
    this.apply({ room: roomId });
    this.others?.send({ room: roomId });
  }

  forgetTokens(): void {
    this.apply({ tokens: true });
    this.others?.send({ tokens: true });
  }

  forgetSession(sessionId: string): void {
    this.apply({ session: sessionId });
    this.others?.send({ session: sessionId });
  }

  private apply(change: AccessChange) {
    if (!isAccessChange(change)) return; // another deployment's or version's message: not ours
    if ('room' in change) {
      this.rooms.forget(`${change.room}|`);
      for (const listener of this.listeners) listener(change.room);
    } else if ('tokens' in change) {
      this.tokens.forget();
      this.embedKeys.forget();
      for (const listener of this.listeners) listener(null);
    } else {
      this.revoked.forget(change.session);
      // Live sockets of the session (any room) check their credential again, and close.
      for (const listener of this.listeners) listener(null);
    }
  }

  /** Changes may have been missed (the connection to the other instances was lost): forget everything. */
  private forgetAll() {
    this.rooms.forget();
    this.tokens.forget();
    this.embedKeys.forget();
    this.revoked.forget();
    for (const listener of this.listeners) listener(null);
  }
}

/** Whether a message from another instance is an access change this version knows. */
function isAccessChange(value: unknown): value is AccessChange {
  if (typeof value !== 'object' || value === null) return false;
  const change = value as Record<string, unknown>;
  return (
    (typeof change.room === 'string' && change.room !== '') ||
    change.tokens === true ||
    (typeof change.session === 'string' && change.session !== '')
  );
}
