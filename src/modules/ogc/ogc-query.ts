import { invalidField } from '../../errors.js';
import type { FieldType, LayerField } from '../../geo/feature-fields.js';
import type { Bbox } from '../../geo/tile-math.js';
import type { PropertyEquals } from '../layers/feature-tables.js';
import { CRS84, DEFAULT_ITEMS_LIMIT, ITEMS_PARAMETERS, type ItemsQuery, MAX_ITEMS_LIMIT } from './ogc.schemas.js';

/**
 * The parameters of `/items` read into what the repositories take: the bbox, the datetime
 * interval, the page size, the cursor and property filters. Every wrong value is 400
 * `validation_error` naming the parameter.
 */

/** Where a page continues: after this row (layers) or id (markers, drawings), and the count of the first page (null: not counted). */
export interface Cursor {
  after: number | string;
  matched: number | null;
}

export const pageSize = (query: ItemsQuery) => Math.min(query.limit ?? DEFAULT_ITEMS_LIMIT, MAX_ITEMS_LIMIT);

/** The bbox (4 numbers, or 6 with heights left out), or undefined; refused in another CRS or across the antimeridian. */
export function bboxOf(query: ItemsQuery): Bbox | undefined {
  const crs = query['bbox-crs'];
  if (crs !== undefined && crs !== CRS84)
    throw invalidField('querystring.bbox-crs', `must be ${CRS84}: only longitude/latitude bboxes are served`);
  if (query.bbox === undefined) return undefined;
  const values = query.bbox.split(',').map((v) => (v.trim() === '' ? Number.NaN : Number(v)));
  if ((values.length !== 4 && values.length !== 6) || values.some((v) => !Number.isFinite(v)))
    throw invalidField('querystring.bbox', 'must be 4 numbers: minLon,minLat,maxLon,maxLat');
  const [w, s, e, n] = values.length === 4 ? values : [values[0], values[1], values[3], values[4]];
  if (w! < -180 || e! > 180 || s! < -90 || n! > 90)
    throw invalidField('querystring.bbox', 'must lie within longitudes -180 to 180 and latitudes -90 to 90');
  if (s! > n!) throw invalidField('querystring.bbox', 'has its minimum latitude above its maximum');
  if (w! > e!) throw invalidField('querystring.bbox', 'crosses the antimeridian; ask for each side on its own');
  return [w!, s!, e!, n!];
}

/** An RFC 3339 date-time (or full date) as epoch milliseconds. */
function instantOf(text: string): number {
  const dateTime = /^\d{4}-\d{2}-\d{2}([Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2}))?$/;
  const ms = dateTime.test(text) ? Date.parse(text.length === 10 ? `${text}T00:00:00Z` : text) : Number.NaN;
  if (Number.isNaN(ms))
    throw invalidField(
      'querystring.datetime',
      'must be an RFC 3339 date-time or an interval of two, with .. for an open end',
    );
  return ms;
}

/** The datetime interval in epoch milliseconds (null: open), or undefined when not given. A date alone is its whole day. */
export function datetimeOf(query: ItemsQuery): { from: number | null; to: number | null } | undefined {
  const text = query.datetime;
  if (text === undefined) return undefined;
  const parts = text.split('/');
  if (parts.length > 2) throw invalidField('querystring.datetime', 'has more than two ends');
  const end = (part: string, last: boolean) => {
    if (part === '..' || part === '') return null;
    const ms = instantOf(part);
    return last && part.length === 10 ? ms + 86_400_000 - 1 : ms;
  };
  if (parts.length === 1) {
    if (parts[0] === '..' || parts[0] === '') throw invalidField('querystring.datetime', 'is empty');
    return { from: end(parts[0]!, false), to: end(parts[0]!, true) };
  }
  const interval = { from: end(parts[0]!, false), to: end(parts[1]!, true) };
  if (interval.from !== null && interval.to !== null && interval.from > interval.to)
    throw invalidField('querystring.datetime', 'ends before it starts');
  return interval;
}

export const cursorText = (cursor: Cursor) =>
  Buffer.from(JSON.stringify([cursor.after, cursor.matched])).toString('base64url');

/** The cursor of a `next` link, or null on a first page; `kind` says what the collection pages by. */
export function cursorOf(query: ItemsQuery, kind: 'row' | 'id'): Cursor | null {
  if (query.cursor === undefined) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(query.cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = null;
  }
  if (
    Array.isArray(parsed) &&
    parsed.length === 2 &&
    (parsed[1] === null || (Number.isSafeInteger(parsed[1]) && parsed[1] >= 0))
  ) {
    const [after, matched] = parsed as [unknown, number | null];
    if (kind === 'row' && Number.isSafeInteger(after) && (after as number) >= 0)
      return { after: after as number, matched };
    if (kind === 'id' && typeof after === 'string' && after.length <= 100) return { after, matched };
  }
  throw invalidField('querystring.cursor', 'is not a cursor of this collection: follow the next link as it is');
}

/** Parameters that are not the standard's: none are accepted where `fields` is empty. */
function otherParameters(query: ItemsQuery): [string, string][] {
  return Object.entries(query).filter(([name]) => !(ITEMS_PARAMETERS as readonly string[]).includes(name)) as [
    string,
    string,
  ][];
}

/** Refuses any parameter the collection does not know (markers and drawings take no property filters). */
export function refuseOtherParameters(query: ItemsQuery): void {
  const [first] = otherParameters(query);
  if (first) throw invalidField(`querystring.${first[0]}`, 'is not a parameter of this collection');
}

function filterValue(name: string, type: FieldType, text: string): string | number | boolean {
  const field = `querystring.${name}`;
  switch (type) {
    case 'integer':
      if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(Number(text))) throw invalidField(field, 'must be an integer');
      return Number(text);
    case 'real':
      if (text.trim() === '' || !Number.isFinite(Number(text))) throw invalidField(field, 'must be a number');
      return Number(text);
    case 'boolean':
      if (text !== 'true' && text !== 'false') throw invalidField(field, 'must be true or false');
      return text === 'true';
    case 'json':
      throw invalidField(field, 'holds lists or objects, which cannot be compared by equality');
    default:
      return text;
  }
}

/** The property filters: each other parameter names a recorded field of the layer, and its value is of that field's type. */
export function propertyFilters(query: ItemsQuery, fields: LayerField[]): PropertyEquals[] {
  return otherParameters(query).map(([name, text]) => {
    const field = fields.find((f) => f.name === name);
    if (!field)
      throw invalidField(`querystring.${name}`, 'is neither a parameter of OGC API Features nor a field of this layer');
    return { name, value: filterValue(name, field.type, text) };
  });
}
