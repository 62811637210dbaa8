import type { TSchema } from 'typebox';
import { invalidFile } from '../../errors.js';
import { SchemaCheck } from '../../schema-problems.js';

/** Values of a restored row read back from an export, for the domains' restore steps. */

/** Text, or null; a NUL character (which no database keeps) refuses the file. */
export function text(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const s = String(value);
  if (s.includes('\u0000'))
    throw invalidFile('The export holds a text with a NUL character, which a database cannot keep');
  return s;
}

/** A JSON column: GDAL reads JSON text back as the array or object it holds. */
export const json = (value: unknown) =>
  value !== null && typeof value === 'object' ? JSON.stringify(value) : text(value);

export const num = (value: unknown) => (value === null || value === undefined || value === '' ? null : Number(value));

export const jsonOrNull = (value: unknown) => (value === null ? null : JSON.stringify(value));

/** A time as GDAL writes a DATETIME (ISO 8601, possibly with `/` separators), to epoch milliseconds. */
export function time(value: unknown): number | null {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value === 'number') return value;
  const ms = Date.parse(String(value).replace(/^(\d{4})\/(\d{2})\/(\d{2}) /, '$1-$2-$3T'));
  return Number.isFinite(ms) ? ms : null;
}

/** A restored object's time: the file's, unless it is missing or not between 1970 and now. */
export function when(value: unknown): number {
  const ms = time(value);
  const now = Date.now();
  return ms !== null && ms >= 0 && ms <= now ? ms : now;
}

/** Checks a restored row the way the API would show it; a row that does not fit is refused naming it. */
export function checker<R, S extends TSchema>(what: string, schema: S, present: (row: R) => unknown) {
  const check = new SchemaCheck(schema);
  return (row: R, index: number) => {
    let problem: string | null;
    try {
      problem = check.problem(present(row));
    } catch (error) {
      problem = (error as Error).message;
    }
    if (problem) throw invalidFile(`The export's ${what} ${index + 1} cannot be restored: ${problem}`);
  };
}

/** Trimmed text, or `fallback` when there is none. */
export const textOr = (value: unknown, fallback: string) =>
  typeof value === 'string' && value.trim() ? value.trim() : fallback;

/** JSON text parsed, or null when there is none or it does not parse. */
export function parsedOrNull(value: unknown): unknown {
  try {
    return value ? (JSON.parse(String(value)) as unknown) : null;
  } catch {
    return null;
  }
}
