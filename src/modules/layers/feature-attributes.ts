import { createHash } from 'node:crypto';
import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Dialect } from '../../db/migrations/index.js';
import type { Bbox } from '../../geo/tile-math.js';
import { featuresTable, indexTable } from './feature-writers.js';

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
 * an expression index on `(value, row)`, built the first time the field is sorted by (it lives
 * and dies with the layer's table); every page then is one index seek. A text filter reads
 * at most `scanRows` rows per page (docs/decisions.md, "The attribute table").
 */
export class FeatureAttributesRepository {
  /** Indexes known to exist (else made with IF NOT EXISTS), and those being built. */
  private readonly built = new Map<string, Promise<void>>();

  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
  ) {}

  async page(key: number, page: AttributePage): Promise<AttributeRows> {
    if (page.sort.by === 'field') await this.ensureIndex(key, page.sort.name);
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
    const conditions = [...segment.conditions];
    // With a text filter, the segment ends at its scanRows-th row: where the next page goes on.
    let bound: AttributeKey | null = null;
    if (page.q) {
      const { rows } = await sql<{ v: unknown; row: number }>`SELECT ${value} AS v, f.row FROM ${f} f
        WHERE ${sql.join(conditions, sql` AND `)} ORDER BY ${segment.order} LIMIT 1 OFFSET ${page.scanRows - 1}`.execute(
        this.db,
      );
      if (rows[0]) {
        bound = { value: segment.nulls ? null : keyValue(rows[0].v), row: Number(rows[0].row) };
        const [upTo, before] = page.descending ? [sql`>=`, sql`>`] : [sql`<=`, sql`<`];
        if (segment.nulls) conditions.push(sql`f.row ${upTo} ${bound.row}`);
        else {
          // The first condition bounds the index range; the second the rows of the bound's own value.
          const v = this.bound(page.sort, bound.value);
          conditions.push(sql`${value} ${upTo} ${v}`, sql`(${value} ${before} ${v} OR f.row ${upTo} ${bound.row})`);
        }
      }
      conditions.push(this.matches(page.q.text, page.q.textFields));
    }
    const box =
      this.dialect === 'sqlite'
        ? sql`i.min_lon AS w, i.min_lat AS s, i.max_lon AS e, i.max_lat AS n`
        : sql`(f.bbox[1])[0] AS w, (f.bbox[1])[1] AS s, (f.bbox[0])[0] AS e, (f.bbox[0])[1] AS n`;
    const from =
      this.dialect === 'sqlite' ? sql`${f} f CROSS JOIN ${sql.table(indexTable(key))} i ON i.row = f.row` : sql`${f} f`;
    // The index is walked in the sort's order; on SQLite each row's bbox is one R*Tree lookup.
    const { rows } = await sql<Raw>`SELECT f.row, f.id, ${value} AS v, f.properties, ${box} FROM ${from}
      WHERE ${sql.join(conditions, sql` AND `)} ORDER BY ${segment.order} LIMIT ${limit}`.execute(this.db);
    return {
      rows: rows.map((r) => ({
        id: Number(r.id),
        properties: r.properties,
        bbox: [Number(r.w), Number(r.s), Number(r.e), Number(r.n)],
        key: { value: segment.nulls ? null : keyValue(r.v), row: Number(r.row) },
      })),
      stoppedAfter: bound && rows.length < limit ? bound : null,
    };
  }

  /**
   * The sort value as SQL, written exactly as its index is (a literal path, so that the planner
   * matches it): the id, or the field's JSON value with JSON null as SQL NULL.
   */
  private sortValue(sort: AttributeSort, table = sql`f.`): RawBuilder<unknown> {
    if (sort.by === 'id') return sql`${table}id`;
    return this.dialect === 'sqlite'
      ? sql`json_extract(${table}properties, ${sql.lit(`$."${sort.name}"`)})`
      : sql`NULLIF((${table}properties::jsonb -> ${sql.lit(sort.name)}), 'null'::jsonb)`;
  }

  /** A cursor's value as the sort value's SQL type (a jsonb on PostgreSQL). */
  private bound(sort: AttributeSort, value: AttributeKey['value']) {
    if (sort.by === 'id') return sql`${Number(value)}`;
    return this.dialect === 'sqlite' ? sql`${value}` : sql`${JSON.stringify(value)}::jsonb`;
  }

  /** The text in any of the fields, case-insensitively (as plain text: no pattern characters). */
  private matches(text: string, fields: string[]) {
    if (fields.length === 0) return sql`1 = 0`;
    const needle = text.toLowerCase();
    const each = fields.map((name) =>
      this.dialect === 'sqlite'
        ? sql`instr(lower(json_extract(f.properties, ${`$."${name}"`})), ${needle}) > 0`
        : sql`strpos(lower(f.properties::jsonb ->> ${name}), ${needle}) > 0`,
    );
    return sql`(${sql.join(each, sql` OR `)})`;
  }

  /** Builds the index of a field's sort value once (concurrent requests wait for the same build). */
  private async ensureIndex(key: number, name: string): Promise<void> {
    const index = `${featuresTable(key)}_sort_${createHash('sha1').update(name).digest('hex').slice(0, 12)}`;
    let building = this.built.get(index);
    if (!building) {
      const value = this.sortValue({ by: 'field', name }, sql``);
      building = sql`CREATE INDEX IF NOT EXISTS ${sql.id(index)} ON ${sql.table(featuresTable(key))} (${value}, row)`
        .execute(this.db)
        .then(() => undefined);
      this.built.set(index, building);
      building.catch(() => this.built.delete(index));
    }
    await building;
  }
}

/** A sort value as a cursor keeps it (SQLite's JSON booleans are 0 and 1, PostgreSQL's jsonb ones booleans). */
function keyValue(v: unknown): AttributeKey['value'] {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'bigint') return Number(v);
  return JSON.stringify(v);
}
