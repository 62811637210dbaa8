import { invalidField, notFound, unlessDeletedMeanwhile } from '../../errors.js';
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

  /** A page; `mayIndex`: the caller may write to the room, so a sort may build its field's index. */
  async page(roomId: string, layerId: string, query: AttributesQuery, mayIndex: boolean): Promise<AttributesPage> {
    const layer = await this.parts.layers.findVector(roomId, layerId);
    if (!layer) throw notFound('Layer');
    const fields: LayerField[] = layer.fields ? JSON.parse(layer.fields) : [];
    const sortName = query.sort ?? 'id';
    const order = query.order ?? 'asc';
    const sort = sortOf(sortName, fields);
    const after = cursorOf(query.after, sortName, order);
    const limit = query.limit ?? DEFAULT_ATTRIBUTES_LIMIT;
    const textFields = fields.filter((f) => f.type === 'string').map((f) => f.name);
    // The layer's own tables: a read that fails once the layer is gone was overtaken by its deletion (404).
    const exists = async () => (await this.parts.layers.roomOf(layerId)) !== undefined;
    const { rows, stoppedAfter } = await unlessDeletedMeanwhile('Layer', exists, async () => {
      if (sort.by === 'field') await this.sortable(layer.storage_key, Number(layer.feature_count), sort.name, mayIndex);
      return this.parts.attributes.page(layer.storage_key, {
        sort,
        descending: order === 'desc',
        after,
        ...(query.q !== undefined && { q: { text: query.q, textFields } }),
        limit: limit + 1,
        scanRows: this.parts.scanRows,
      });
    });
    const shown = rows.slice(0, limit);
    const last = rows.length > limit ? shown.at(-1)!.key : stoppedAfter;
    return {
      fields,
      rows: shown.map((r) => ({ id: r.id, properties: JSON.parse(r.properties), bbox: r.bbox })),
      next: last ? cursorText([sortName, order, last.value, last.row]) : null,
    };
  }

  /**
   * Whether a field's sort may run: through its index; or, on a layer of at most scanRows
   * features, by reading them all (bounded, no index needed); or through an index built now, for
   * a caller who may write, while the layer has fewer than MAX_SORT_INDEXES. Else 400: readers
   * do not make the service build indexes (seconds of work and space per field).
   */
  private async sortable(key: number, featureCount: number, field: string, mayIndex: boolean) {
    const { attributes, scanRows } = this.parts;
    if (featureCount <= scanRows || (await attributes.hasSortIndex(key, field))) return;
    if (!mayIndex)
      throw invalidField(
        'querystring.sort',
        `cannot sort this layer of ${featureCount} features by ${field} yet: the field has no sort index, and only ` +
          'someone who may edit the room builds one (by sorting by it once). Sort by id or a sorted field',
      );
    // One build per layer at a time (in this process), so the count below sees every build
    // before it: parallel first sorts by many fields cannot pass it together.
    await this.oneBuildAtATime(key, async () => {
      if (await attributes.hasSortIndex(key, field)) return;
      if ((await attributes.sortIndexCount(key)) >= MAX_SORT_INDEXES)
        throw invalidField(
          'querystring.sort',
          `cannot sort this layer by ${field}: it has sort indexes for ${MAX_SORT_INDEXES} fields already, the most a layer keeps`,
        );
      await attributes.buildSortIndex(key, field);
    });
  }

  /** The index builds under way or waiting, per layer's storage key: each waits for the one before. */
  private readonly builds = new Map<number, Promise<void>>();

  private async oneBuildAtATime(key: number, build: () => Promise<void>) {
    const mine = (this.builds.get(key) ?? Promise.resolve()).then(build);
    const settled = mine.catch(() => undefined);
    this.builds.set(key, settled);
    try {
      await mine;
    } finally {
      if (this.builds.get(key) === settled) this.builds.delete(key);
    }
  }
}

/** The most fields of one layer with a sort index (each costs its build and its space). */
export const MAX_SORT_INDEXES = 8;

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
