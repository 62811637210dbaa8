import type { ApiTokensTable, RoomsTable, SlideObjectType, UsersTable } from '../db/tables.js';
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
  userById(id: string): Promise<UsersTable | undefined>;
  /** Whether a slide of the room shows the object (whether the deck is published is the room's). */
  shownByDeck(roomId: string, object: DeckObjectRef): Promise<boolean>;
}

/** What a service calls after it changed who may do what (membership, visibility, tokens). */
export interface AccessChanges {
  /** Access to this room may have changed. */
  forgetRoom(roomId: string): void;
  /** Some room token was revoked or removed. */
  forgetTokens(): void;
}

/**
 * The access reads, cached for `ttlMs` (the lookups every request repeats). Services forget
 * what they change at once; the expiry only bounds how long another instance's change goes
 * unseen in scale-out. Listeners hear of every change (live sockets check themselves again).
 */
export class CachedAccess implements AccessSource, AccessChanges {
  private readonly rooms: TtlCache<RoomWithRole | undefined>;
  private readonly tokens: TtlCache<ApiTokensTable | undefined>;
  private readonly listeners = new Set<(roomId: string | null) => void>();

  constructor(
    private readonly source: AccessSource,
    ttlMs: number,
  ) {
    this.rooms = new TtlCache(ttlMs);
    this.tokens = new TtlCache(ttlMs);
  }

  roomWithRole(roomId: string, userId: string | null) {
    return this.rooms.get(`${roomId}|${userId ?? ''}`, () => this.source.roomWithRole(roomId, userId));
  }

  tokenByHash(hash: string) {
    return this.tokens.get(hash, () => this.source.tokenByHash(hash));
  }

  userById(id: string) {
    return this.source.userById(id);
  }

  /** Never cached: taking an object off a slide takes it from the deck's visitors at once. */
  shownByDeck(roomId: string, object: DeckObjectRef) {
    return this.source.shownByDeck(roomId, object);
  }

  /** Tells `listener` when access to a room (or, with null, to any room) may have changed. */
  onChange(listener: (roomId: string | null) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  forgetRoom(roomId: string): void {
    this.rooms.forget(`${roomId}|`);
    for (const listener of this.listeners) listener(roomId);
  }

  forgetTokens(): void {
    this.tokens.forget();
    for (const listener of this.listeners) listener(null);
  }
}
