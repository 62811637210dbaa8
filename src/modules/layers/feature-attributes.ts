import { createHash } from 'node:crypto';
import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Dialect } from '../../db/migrations/index.js';
import type { Bbox } from '../../geo/tile-math.js';
import { featuresTable, indexTable } from './feature-writers.js';
import { jsonPathOf } from './json-path.js';

/** What a page of the attribute table is sorted by: the feature id, or a recorded field (by name). */
export type AttributeSort = { by: 'id' } | { by: 'field'; name: string };

/**
 * Where a page starts: after the row with this sort value (null: in the run of rows without
 * one, which come last in either order) and this row number (the tie-break).
 */
export interface AttributeKey {
  value: string | number | boolean | null;
  row: number;
}

export interface AttributePage {
  sort: AttributeSort;
  descending: boolean;
  after: AttributeKey | null;
  /** A text matched (case-insensitively) in any of `textFields`; undefined: every feature. */
  q?: { text: string; textFields: string[] };
  limit: number;
  /** With `q`: the most rows read per run (with and without a value); past it the page ends early. */
  scanRows: number;
}

export interface AttributeRow {
  id: number;
  properties: string;
  bbox: Bbox;
  key: AttributeKey;
}

/** A page's rows, and, when it read `scanRows` rows before it was full, the key to go on after. */
export interface AttributeRows {
  rows: AttributeRow[];
  stoppedAfter: AttributeKey | null;
}

/** A run of the order: its conditions and its ORDER BY; `nulls`: the rows without a sort value. */
interface Segment {
  nulls: boolean;
  conditions: RawBuilder<unknown>[];
  order: RawBuilder<unknown>;
}

type Raw = { row: number; id: number; v: unknown; properties: string; w: number; s: number; e: number; n: number };

/**
 * The attribute table's queries on a layer's features table: keyset pages in the order of the
 * feature id or of one recorded field, the rows without a value last. A field is sorted through
 * an expression index on `(value, row)` when it has one (built on demand, see LayerAttributes;
 * it lives and dies with the layer's table): every page then is one index seek. A text filter reads
 * at most `scanRows` rows per page (docs/decisions.md, "The attribute table").
 */
export class FeatureAttributesRepository {
  /** Sort indexes being built (a second request for one waits for the same build). */
  private readonly built = new Map<string, Promise<void>>();

  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
  ) {}

  /** The rows of a page; a field's sort uses its index when it has one, else scans (LayerAttributes decides). */
  async page(key: number, page: AttributePage): Promise<AttributeRows> {
    const rows: AttributeRow[] = [];
    for (const segment of this.segments(page)) {
      const found = await this.read(key, page, segment, page.limit - rows.length);
      rows.push(...found.rows);
      if (found.stoppedAfter || rows.length >= page.limit) return { rows, stoppedAfter: found.stoppedAfter };
    }
    return { rows, stoppedAfter: null };
  }

  /**
   * The order after the cursor as runs that are each one index seek: the rest of the cursor's
   * value (same value, later rows), the later values, then the rows without a value.
   */
  private segments({ sort, descending, after }: AttributePage): Segment[] {
    const value = this.sortValue(sort);
    const [later, direction] = descending ? [sql`<`, sql`DESC`] : [sql`>`, sql`ASC`];
    const byRow = sql`f.row ${direction}`;
    const nulls: Segment = {
      nulls: true,
      conditions: [sql`${value} IS NULL`, ...(after?.value === null ? [sql`f.row ${later} ${after.row}`] : [])],
      order: byRow,
    };
    if (after?.value === null) return [nulls];
    const values = { nulls: false, order: sql`${value} ${direction}, ${byRow}` };
    if (!after) return [{ ...values, conditions: [sql`${value} IS NOT NULL`] }, nulls];
    const bound = this.bound(sort, after.value);
    return [
      { nulls: false, conditions: [sql`${value} = ${bound}`, sql`f.row ${later} ${after.row}`], order: byRow },
      { ...values, conditions: [sql`${value} ${later} ${bound}`] },
      nulls,
    ];
  }

  /** At most `limit` rows of a segment; with a text filter, of its first scanRows rows only. */
  private async read(key: number, page: AttributePage, segment: Segment, limit: number): Promise<AttributeRows> {
    const f = sql.table(featuresTable(key));
    const value = this.sortValue(page.sort);
    const where = sql.join(segment.conditions, sql` AND `);
    const box =
      this.dialect === 'sqlite'
        ? sql`i.min_lon AS w, i.min_lat AS s, i.max_lon AS e, i.max_lat AS n`
        : sql`(f.bbox[1])[0] AS w, (f.bbox[1])[1] AS s, (f.bbox[0])[0] AS e, (f.bbox[0])[1] AS n`;
    // On SQLite each row's bbox is one R*Tree lookup.
    const withBox = (rows: RawBuilder<unknown>) =>
      this.dialect === 'sqlite'
        ? sql`${rows} f CROSS JOIN ${sql.table(indexTable(key))} i ON i.row = f.row`
        : sql`${rows} f`;
    const direction = page.descending ? sql`DESC` : sql`ASC`;
    let found: Raw[];
    if (!page.q) {
      // The index is walked in the sort's order.
      ({ rows: found } = await sql<Raw>`SELECT f.row, f.id, ${value} AS v, f.properties, ${box} FROM ${withBox(f)}
        WHERE ${where} ORDER BY ${segment.order} LIMIT ${limit}`.execute(this.db));
    } else {
      // The segment's first scanRows rows in the index's order (a window the planner walks by the
      // index whatever it thinks of the filter), then those holding the text.
      const window = sql`(SELECT f.row, f.id, ${value} AS v, f.properties${this.dialect === 'postgres' ? sql`, f.bbox` : sql``}
        FROM ${f} f WHERE ${where} ORDER BY ${segment.order} LIMIT ${page.scanRows})`;
      const order = segment.nulls ? sql`f.row ${direction}` : sql`f.v ${direction}, f.row ${direction}`;
      ({ rows: found } = await sql<Raw>`SELECT f.row, f.id, f.v, f.properties, ${box} FROM ${withBox(window)}
        WHERE ${this.matches(page.q.text, page.q.textFields)} ORDER BY ${order} LIMIT ${limit}`.execute(this.db));
    }
    // A short page of a text filter ends where its window did, when the segment goes on past it.
    let stoppedAfter: AttributeKey | null = null;
    if (page.q && found.length < limit) {
      const { rows } = await sql<{ v: unknown; row: number }>`SELECT ${value} AS v, f.row FROM ${f} f
        WHERE ${where} ORDER BY ${segment.order} LIMIT 2 OFFSET ${page.scanRows - 1}`.execute(this.db);
      if (rows.length === 2)
        stoppedAfter = { value: segment.nulls ? null : keyValue(rows[0]!.v), row: Number(rows[0]!.row) };
    }
    return {
      rows: found.map((r) => ({
        id: Number(r.id),
        properties: r.properties,
        bbox: [Number(r.w), Number(r.s), Number(r.e), Number(r.n)],
        key: { value: segment.nulls ? null : keyValue(r.v), row: Number(r.row) },
      })),
      stoppedAfter,
    };
  }

  /**
   * The sort value as SQL, written exactly as its index is (a literal path, so that the planner
   * matches it): the id, or the field's JSON value with JSON null as SQL NULL.
   */
  private sortValue(sort: AttributeSort, table = sql`f.`): RawBuilder<unknown> {
    if (sort.by === 'id') return sql`${table}id`;
    return this.dialect === 'sqlite'
      ? sql`json_extract(${table}properties, ${sql.lit(jsonPathOf(sort.name))})`
      : sql`NULLIF((${table}properties::jsonb -> ${sql.lit(sort.name)}), 'null'::jsonb)`;
  }

  /** A cursor's value as the sort value's SQL type (a jsonb on PostgreSQL). */
  private bound(sort: AttributeSort, value: AttributeKey['value']) {
    if (sort.by === 'id') return sql`${Number(value)}`;
    // SQLite's JSON booleans are 0 and 1 (and its driver binds no booleans).
    if (this.dialect === 'sqlite') return sql`${typeof value === 'boolean' ? Number(value) : value}`;
    return sql`${JSON.stringify(value)}::jsonb`;
  }

  /** The text in any of the fields, case-insensitively (as plain text: no pattern characters). */
  private matches(text: string, fields: string[]) {
    if (fields.length === 0) return sql`1 = 0`;
    const needle = text.toLowerCase();
    const each = fields.map((name) =>
      this.dialect === 'sqlite'
        ? sql`instr(lower(json_extract(f.properties, ${jsonPathOf(name)})), ${needle}) > 0`
        : sql`strpos(lower(f.properties::jsonb ->> ${name}), ${needle}) > 0`,
    );
    // First the stored JSON text as a whole (one cheap search, no parsing): a text that is in a
    // value is in the text, unless JSON escapes it (quotes, backslashes, control characters).
    const plain = !/["\\\u0000-\u001f]/.test(text);
    const anywhere =
      this.dialect === 'sqlite'
        ? sql`instr(lower(f.properties), ${needle}) > 0`
        : sql`strpos(lower(f.properties), ${needle}) > 0`;
    return plain ? sql`(${anywhere} AND (${sql.join(each, sql` OR `)}))` : sql`(${sql.join(each, sql` OR `)})`;
  }

  /** Whether a field's sort index exists (the database's catalog answers: a cheap lookup, never stale). */
  async hasSortIndex(key: number, name: string): Promise<boolean> {
    const index = sortIndexName(key, name);
    const { rows } =
      this.dialect === 'sqlite'
        ? await sql<{
            n: number;
          }>`SELECT count(*) AS n FROM sqlite_master WHERE type = 'index' AND name = ${index}`.execute(this.db)
        : await sql<{ n: number }>`SELECT count(*) AS n FROM pg_indexes
            WHERE schemaname = current_schema() AND indexname = ${index}`.execute(this.db);
    return Number(rows[0]?.n) > 0;
  }

  /** How many sort indexes a layer's features table has (made by buildSortIndex). */
  async sortIndexCount(key: number): Promise<number> {
    const prefix = sortIndexName(key, '').slice(0, -12);
    const { rows } =
      this.dialect === 'sqlite'
        ? await sql<{ n: number }>`SELECT count(*) AS n FROM sqlite_master
            WHERE type = 'index' AND tbl_name = ${featuresTable(key)} AND substr(name, 1, ${prefix.length}) = ${prefix}`.execute(
            this.db,
          )
        : await sql<{ n: number }>`SELECT count(*) AS n FROM pg_indexes WHERE schemaname = current_schema()
            AND tablename = ${featuresTable(key)} AND substr(indexname, 1, ${prefix.length}) = ${prefix}`.execute(
            this.db,
          );
    return Number(rows[0]?.n ?? 0);
  }

  /** Drops a field's sort index, if it has one (the field was renamed or removed), inside the caller's transaction. */
  async dropSortIndex(trx: Db, key: number, name: string): Promise<void> {
    await sql`DROP INDEX IF EXISTS ${sql.id(sortIndexName(key, name))}`.execute(trx);
  }

  /** Builds the index of a field's sort value once (concurrent requests wait for the same build). */
  async buildSortIndex(key: number, name: string): Promise<void> {
    const index = sortIndexName(key, name);
    let building = this.built.get(index);
    if (!building) {
      const value = this.sortValue({ by: 'field', name }, sql``);
      const table = sql.table(featuresTable(key));
      building = sql`CREATE INDEX IF NOT EXISTS ${sql.id(index)} ON ${table} (${value}, row)`
        .execute(this.db)
        // PostgreSQL keeps statistics of an index's expression only once analysed (the planner needs them).
        .then(() => (this.dialect === 'postgres' ? sql`ANALYZE ${table}`.execute(this.db) : undefined))
        .then(() => undefined);
      this.built.set(index, building);
      building.catch(() => undefined).finally(() => this.built.delete(index));
    }
    await building;
  }
}

/** A field's sort index: named after the features table and a hash of the field's name. */
const sortIndexName = (key: number, name: string) =>
  `${featuresTable(key)}_sort_${createHash('sha1').update(name).digest('hex').slice(0, 12)}`;

/** A sort value as a cursor keeps it (SQLite's JSON booleans are 0 and 1, PostgreSQL's jsonb ones booleans). */
function keyValue(v: unknown): AttributeKey['value'] {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'bigint') return Number(v);
  return JSON.stringify(v);
}
