import { invalidField, notFound } from '../../errors.js';
import type { LayerField } from '../../geo/feature-fields.js';
import type { AttributeKey, AttributeSort, FeatureAttributesRepository } from './feature-attributes.js';
import type { LayersRepository } from './layers.repository.js';
import { type AttributesPage, type AttributesQuery, DEFAULT_ATTRIBUTES_LIMIT } from './layers.schemas.js';

export interface LayerAttributesParts {
  layers: LayersRepository;
  attributes: FeatureAttributesRepository;
  /** The most rows a text-filtered page reads per run (config `attributesScanRows`). */
  scanRows: number;
}

/** What a cursor holds: the sort and order it was made for, and the last row's key. */
type CursorParts = [sort: string, order: string, value: AttributeKey['value'], row: number];

const cursorText = (parts: CursorParts) => Buffer.from(JSON.stringify(parts)).toString('base64url');

const badCursor = () =>
  invalidField('querystring.after', 'is not a cursor of this sort and order: pass the previous page’s next as it was');

function cursorOf(text: string | undefined, sort: string, order: string): AttributeKey | null {
  if (text === undefined) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw badCursor();
  }
  if (!Array.isArray(parsed) || parsed.length !== 4) throw badCursor();
  const [s, o, value, row] = parsed as unknown[];
  // The id sort's values are the features' integer ids (else the database would be asked to
  // compare an id with a text: an error on PostgreSQL).
  const valueOk =
    sort === 'id'
      ? Number.isSafeInteger(value)
      : value === null || ['string', 'number', 'boolean'].includes(typeof value);
  if (s !== sort || o !== order || !valueOk || !Number.isSafeInteger(row) || (row as number) < 0) throw badCursor();
  return { value: value as AttributeKey['value'], row: row as number };
}

/**
 * The attribute table of a vector layer: its recorded fields and keyset pages of its features'
 * properties and bboxes, sorted by the id or a field, filtered by a text in its text fields.
 */
export class LayerAttributes {
  constructor(private readonly parts: LayerAttributesParts) {}

  async page(roomId: string, layerId: string, query: AttributesQuery): Promise<AttributesPage> {
    const layer = await this.parts.layers.findVector(roomId, layerId);
    if (!layer) throw notFound('Layer');
    const fields: LayerField[] = layer.fields ? JSON.parse(layer.fields) : [];
    const sortName = query.sort ?? 'id';
    const order = query.order ?? 'asc';
    const sort = sortOf(sortName, fields);
    const after = cursorOf(query.after, sortName, order);
    const limit = query.limit ?? DEFAULT_ATTRIBUTES_LIMIT;
    const textFields = fields.filter((f) => f.type === 'string').map((f) => f.name);
    const { rows, stoppedAfter } = await this.parts.attributes.page(layer.storage_key, {
      sort,
      descending: order === 'desc',
      after,
      ...(query.q !== undefined && { q: { text: query.q, textFields } }),
      limit: limit + 1,
      scanRows: this.parts.scanRows,
    });
    const shown = rows.slice(0, limit);
    const last = rows.length > limit ? shown.at(-1)!.key : stoppedAfter;
    return {
      fields,
      rows: shown.map((r) => ({ id: r.id, properties: JSON.parse(r.properties), bbox: r.bbox })),
      next: last ? cursorText([sortName, order, last.value, last.row]) : null,
    };
  }
}

/** `id`, or a recorded field whose values order (not lists or objects); else 400 naming the fields. */
function sortOf(name: string, fields: LayerField[]): AttributeSort {
  if (name === 'id') return { by: 'id' };
  const field = fields.find((f) => f.name === name);
  if (!field)
    throw invalidField(
      'querystring.sort',
      `is not a field of this layer: sort by id or one of ${fields.map((f) => f.name).join(', ') || '(none)'}`,
    );
  if (field.type === 'json')
    throw invalidField('querystring.sort', 'names a field of lists or objects, which has no order');
  return { by: 'field', name };
}
