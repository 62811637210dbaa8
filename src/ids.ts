import { createHash, randomFillSync } from 'node:crypto';

const ID_BYTES = 12;
/** Random bytes for ids, drawn from the system 256 ids at a time (a call per id was 2-3% of a marker create). */
const pool = Buffer.alloc(ID_BYTES * 256);
let used = pool.length;

/** A new identifier `<prefix>-<16 url-safe random characters>`, e.g. `marker-3q2...`. */
export function newId(prefix: string): string {
  if (used === pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  used += ID_BYTES;
  return `${prefix}-${pool.toString('base64url', used - ID_BYTES, used)}`;
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export const ROOM_ID_PATTERN = '^[A-Za-z0-9_-]{10}$';
export const isRoomId = (value: unknown): value is string =>
  typeof value === 'string' && /^[A-Za-z0-9_-]{10}$/.test(value);
