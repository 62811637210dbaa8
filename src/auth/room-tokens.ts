import { randomBytes } from 'node:crypto';
import { sha256 } from '../ids.js';

export const ROOM_TOKEN_PREFIX = 'mrt_';
export const TOKEN_PERMISSIONS = ['read', 'write', 'upload'] as const;
export type TokenPermission = (typeof TOKEN_PERMISSIONS)[number];

/** A new room token secret: `mrt_` and 43 URL-safe characters (256 random bits). */
export function generateRoomToken(): { secret: string; hash: string } {
  const secret = ROOM_TOKEN_PREFIX + randomBytes(32).toString('base64url');
  return { secret, hash: hashRoomToken(secret) };
}

/** Tokens carry 256 random bits, so a fast hash suffices; only the hash is stored. */
export const hashRoomToken = (secret: string) => sha256(secret);

export const isRoomToken = (bearer: string) => bearer.startsWith(ROOM_TOKEN_PREFIX);

export const EMBED_KEY_PREFIX = 'mre_';

/** A new embed key: `mre_` and 43 URL-safe characters, hashed like a room token. */
export function generateEmbedKey(): { secret: string; hash: string } {
  const secret = EMBED_KEY_PREFIX + randomBytes(32).toString('base64url');
  return { secret, hash: hashRoomToken(secret) };
}

export const isEmbedKey = (bearer: string) => bearer.startsWith(EMBED_KEY_PREFIX);
