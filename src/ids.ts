import { createHash, randomBytes } from 'node:crypto';

/** A new identifier `<prefix>-<16 url-safe random characters>`, e.g. `marker-3q2...`. */
export function newId(prefix: string): string {
  return `${prefix}-${randomBytes(12).toString('base64url')}`;
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export const ROOM_ID_PATTERN = '^[A-Za-z0-9_-]{10}$';
export const isRoomId = (value: unknown): value is string =>
  typeof value === 'string' && /^[A-Za-z0-9_-]{10}$/.test(value);
