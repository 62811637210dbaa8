import { createHash, randomBytes, randomFillSync } from 'node:crypto';

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

/**
 * Whether `id` has the form `newId(prefix)` gives: `<prefix>-` and 16 url-safe characters. The
 * accounts this service makes (sign-up, identity providers) have it; an external provider's
 * subject of that form is refused, so it can never name one of them.
 */
export function madeByNewId(prefix: string, id: string): boolean {
  return id.length === prefix.length + 17 && id.startsWith(`${prefix}-`) && /^[A-Za-z0-9_-]{16}$/.test(id.slice(-16));
}

/** Letters and digits in byte order, so that counters written with them sort as numbers do. */
const SORTED_DIGITS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const COUNTER_DIGITS = 6;

/**
 * New identifiers for many rows written at once (a bulk import), of the same form as `newId`:
 * `<prefix>-<10 random characters><6-character counter>`. The random part is drawn once per
 * sequence, so ids never collide with another sequence's (60 random bits) and follow each
 * other in the database's index, where random ids would each land on another page.
 */
export function newIdSequence(prefix: string): () => string {
  const start = `${prefix}-${randomBytes(8).toString('base64url').slice(0, 10)}`;
  let next = 0;
  return () => {
    let n = next++;
    if (n >= SORTED_DIGITS.length ** COUNTER_DIGITS) throw new Error('Id sequence exhausted');
    let counter = '';
    for (let i = 0; i < COUNTER_DIGITS; i++, n = Math.floor(n / SORTED_DIGITS.length))
      counter = SORTED_DIGITS[n % SORTED_DIGITS.length] + counter;
    return start + counter;
  };
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export const ROOM_ID_PATTERN = '^[A-Za-z0-9_-]{10}$';
export const isRoomId = (value: unknown): value is string =>
  typeof value === 'string' && /^[A-Za-z0-9_-]{10}$/.test(value);
