import { type AccessChange, CachedAccess } from '../../auth/access-source.js';
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { Broadcast } from '../../infra/redis-broadcast.js';
import { EmbeddingRepository } from '../embedding/embedding.repository.js';
import { RoomsRepository } from '../rooms/rooms.repository.js';
import { SlidesRepository } from '../slides/slides.repository.js';
import { TokensRepository } from '../tokens/tokens.repository.js';
import { RevokedSessionsRepository } from '../users/revoked-sessions.repository.js';
import { UsersRepository } from '../users/users.repository.js';

/**
 * The one access check's reads (auth/access-source.ts), cached: a room with the caller's role,
 * a token, a user, whether a public deck shows an object, whether a session was revoked. With
 * Redis, each instance tells the others what it changed (`changes`).
 */
export function roomAccessOf(db: Db, config: Config, changes?: Broadcast<AccessChange>): CachedAccess {
  const rooms = new RoomsRepository(db);
  const tokens = new TokensRepository(db);
  const embedKeys = new EmbeddingRepository(db);
  const users = new UsersRepository(db);
  const slides = new SlidesRepository(db);
  const revokedSessions = new RevokedSessionsRepository(db);
  return new CachedAccess(
    {
      roomWithRole: (roomId, userId) => rooms.findWithRole(roomId, userId),
      tokenByHash: (hash) => tokens.findByHash(hash),
      embedKeyByHash: (hash) => embedKeys.findKeyByHash(hash),
      userById: (id) => users.findById(id),
      shownByDeck: (roomId, object) => slides.isShown(roomId, object),
      sessionRevoked: (sessionId) => revokedSessions.isRevoked(sessionId),
    },
    config.accessCacheTtlMs,
    changes,
  );
}
