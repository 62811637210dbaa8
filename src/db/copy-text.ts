/**
 * PostgreSQL's COPY text format (`COPY ... FROM STDIN`): one line per row, fields separated by
 * tabs, `\N` for null. The vector ingest (layers/feature-writers.ts) and bulk imports
 * (db/copy-into.ts) write it.
 */

const SPECIAL = /[\\\t\n\r]/;
const SPECIALS = /[\\\t\n\r]/g;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** A text field: backslashes, tabs and line breaks escaped (a lone `\.` line can then never occur). */
export const copyText = (text: string) => (SPECIAL.test(text) ? text.replace(SPECIALS, (c) => ESCAPES[c]!) : text);

/**
 * A value as a field, as node-postgres sends it as a bound parameter (`prepareValue`): null
 * and undefined as `\N`, numbers and booleans by `toString`, text escaped. Other values
 * (dates, buffers, arrays, objects) are refused: no table that is COPYed into has them.
 */
export function copyField(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return copyText(value);
    case 'number':
      // A finite number's JSON text is its `toString`, made without V8's number-string cache,
      // which keeps each string it makes long enough to reach the old generation: a million
      // rows' numbers would pile up there until a full collection.
      return Number.isFinite(value) ? JSON.stringify(value) : value.toString();
    case 'bigint':
    case 'boolean':
      return value.toString();
    case 'undefined':
      return '\\N';
    default:
      if (value === null) return '\\N';
      throw new TypeError(`COPY takes text, numbers, booleans and null, not ${Object.prototype.toString.call(value)}`);
  }
}

/** A row's line: its values under `columns`, in that order. */
export function copyLine(row: object, columns: readonly string[]): string {
  const values = row as Readonly<Record<string, unknown>>;
  let line = copyField(values[columns[0]!]);
  for (let i = 1; i < columns.length; i++) line += `\t${copyField(values[columns[i]!])}`;
  return `${line}\n`;
}
