import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Dialect } from '../../db/migrations/index.js';
import type { StoredFeatureRow } from '../../geo/layer-answers.js';
import type { Bbox } from '../../geo/tile-math.js';
import type { TileFeature } from '../../geo/tiles.js';
import { featuresTable, indexTable, PG_MINZOOM_BUCKETS } from './feature-writers.js';
import { jsonPathOf } from './json-path.js';

type TileRow = { id: number; w: number; s: number; e: number; n: number; geometry: string; properties: string };
type Row = { id: number; detail_zoom: number; geometry: string; properties: string };
type PageRow = Row & { row: number };

/** A property that must equal a value (a JSON number, string or boolean) in a page of features. */
export interface PropertyEquals {
  name: string;
  value: string | number | boolean;
}

/** Which features a page or a count takes: in a bbox (by each feature's bbox), with properties equal to values. */
export interface FeatureFilter {
  bbox?: Bbox;
  equals?: PropertyEquals[];
}

/** A page of features in row order: after `afterRow`, at most `limit`, only in `rowRanges` when given. */
export interface FeaturePage extends FeatureFilter {
  afterRow: number;
  limit: number;
  /** Runs of rows that can hold the filter's features (the chunks touching its bbox, or all rows). */
  rowRanges?: [number, number][];
  /** With `rowRanges`: the most rows read (matching or not); past it the page ends early. */
  scanRows?: number;
  /** Read on past `scanRows` until one feature is found: a page is empty only when it is the last. */
  neverEmpty?: boolean;
}

/** A page's features, and the row a short page stopped at when it read `scanRows` rows before it was full (else null). */
export interface PageRows {
  rows: (StoredFeatureRow & { row: number })[];
  stoppedAfter: number | null;
}

const storedRow = (r: Row): StoredFeatureRow => ({
  id: Number(r.id),
  detailZoom: Number(r.detail_zoom),
  geometry: r.geometry,
  properties: r.properties,
});

/**
 * The queries on a vector layer's own tables (feature-writers.ts makes them): features in a
 * bbox from the spatial index (an SQLite R*Tree, a PostgreSQL GiST index on `box`), the
 * features of a tile down to its zoom's minzoom, and runs of rows (chunks).
 */
export class FeatureTablesRepository {
  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
  ) {}

  /** The features that show in a tile at zoom `z` and reach into `bbox` (the tile with its buffer). */
  async tileFeatures(key: number, [w, s, e, n]: Bbox, z: number): Promise<TileFeature[]> {
    const query =
      this.dialect === 'sqlite'
        ? sql<TileRow>`SELECT f.id, i.min_lon AS w, i.min_lat AS s, i.max_lon AS e, i.max_lat AS n, f.geometry, f.properties
            FROM ${sql.table(indexTable(key))} i JOIN ${sql.table(featuresTable(key))} f ON f.row = i.row
            WHERE i.max_lon >= ${w} AND i.min_lon <= ${e} AND i.max_lat >= ${s} AND i.min_lat <= ${n} AND i.minzoom <= ${z}`
        : sql<TileRow>`SELECT id, (bbox[1])[0] AS w, (bbox[1])[1] AS s, (bbox[0])[0] AS e, (bbox[0])[1] AS n, geometry, properties
            FROM ${sql.table(featuresTable(key))}
            WHERE bbox && box(point(${e}, ${n}), point(${w}, ${s})) AND minzoom <= ${z}${bucketCondition(z)}`;
    const { rows } = await query.execute(this.db);
    return rows.map((r) => ({
      id: Number(r.id),
      bbox: [r.w, r.s, r.e, r.n],
      geometry: r.geometry,
      properties: JSON.parse(r.properties) as Record<string, unknown>,
    }));
  }

  /** The rows of the features in `bbox`, at most `limit` of them (in no particular order). */
  async rowsIn(key: number, [w, s, e, n]: Bbox, limit: number): Promise<number[]> {
    const query =
      this.dialect === 'sqlite'
        ? sql<{ row: number }>`SELECT row FROM ${sql.table(indexTable(key))}
            WHERE max_lon >= ${w} AND min_lon <= ${e} AND max_lat >= ${s} AND min_lat <= ${n} LIMIT ${limit}`
        : sql<{ row: number }>`SELECT row FROM ${sql.table(featuresTable(key))}
            WHERE bbox && box(point(${e}, ${n}), point(${w}, ${s})) LIMIT ${limit}`;
    return (await query.execute(this.db)).rows.map((r) => Number(r.row));
  }

  /** These rows' features, in row order. */
  async features(key: number, rows: number[]): Promise<StoredFeatureRow[]> {
    if (rows.length === 0) return [];
    const list =
      this.dialect === 'sqlite'
        ? sql`(SELECT value FROM json_each(${JSON.stringify(rows)}))`
        : sql`(SELECT unnest(${rows}::integer[]))`;
    const { rows: found } =
      await sql<Row>`SELECT id, detail_zoom, geometry, properties FROM ${sql.table(featuresTable(key))}
      WHERE row IN ${list} ORDER BY row`.execute(this.db);
    return found.map(storedRow);
  }

  /** The features of rows `first` to `last`, in row order (a chunk, or a whole small layer). */
  async featuresBetween(key: number, first: number, last: number): Promise<StoredFeatureRow[]> {
    const { rows } = await sql<Row>`SELECT id, detail_zoom, geometry, properties FROM ${sql.table(featuresTable(key))}
      WHERE row BETWEEN ${first} AND ${last} ORDER BY row`.execute(this.db);
    return rows.map(storedRow);
  }

  /**
   * A page of features in row order (keyset on the row: a page deep in a big layer costs what
   * the first does). With `rowRanges` (ascending, disjoint), each range from the cursor on is
   * read by its own seek on the row until the page is full or `scanRows` rows (rows are
   * numbered 1..n, so a run's width is what it reads) have been read: then the page is short
   * (even empty, unless `neverEmpty`) and `stoppedAfter` says where to go on. With a bbox each row is checked against its bbox in
   * the index (SQLite: one R*Tree lookup by row, forced by CROSS JOIN; PostgreSQL: the `bbox`
   * column).
   */
  async page(key: number, page: FeaturePage): Promise<PageRows> {
    if (!page.rowRanges)
      return { rows: await this.rowsBetween(key, page, page.afterRow, null, page.limit), stoppedAfter: null };
    const rows: (StoredFeatureRow & { row: number })[] = [];
    const scanRows = page.scanRows ?? Number.POSITIVE_INFINITY;
    let budget = scanRows;
    for (const [first, last] of page.rowRanges) {
      let from = Math.max(page.afterRow, first - 1);
      while (from < last) {
        if (budget <= 0) {
          if (rows.length > 0 || !page.neverEmpty) return { rows, stoppedAfter: from };
          budget = scanRows;
        }
        const to = Math.min(last, from + budget);
        rows.push(...(await this.rowsBetween(key, page, from, to, page.limit - rows.length)));
        if (rows.length >= page.limit) return { rows, stoppedAfter: null };
        budget -= to - from;
        from = to;
      }
    }
    return { rows, stoppedAfter: null };
  }

  /** At most `limit` features of the filter with `after < row <= last`, in row order. */
  private async rowsBetween(key: number, filter: FeatureFilter, after: number, last: number | null, limit: number) {
    const f = sql.table(featuresTable(key));
    const conditions = [sql`f.row > ${after}`, ...this.filterConditions(filter)];
    if (last !== null) conditions.push(sql`f.row <= ${last}`);
    const from =
      this.dialect === 'sqlite' && filter.bbox
        ? sql`${f} f CROSS JOIN ${sql.table(indexTable(key))} i ON i.row = f.row`
        : sql`${f} f`;
    const { rows } = await sql<PageRow>`SELECT f.row, f.id, f.detail_zoom, f.geometry, f.properties FROM ${from}
      WHERE ${sql.join(conditions, sql` AND `)} ORDER BY f.row LIMIT ${limit}`.execute(this.db);
    return rows.map((r) => ({ ...storedRow(r), row: Number(r.row) }));
  }

  /** How many features have their bbox in `bbox` (the spatial index answers), or null when more than `max`. */
  async countInBbox(key: number, bbox: Bbox, max: number): Promise<number | null> {
    const inBbox =
      this.dialect === 'sqlite'
        ? sql`SELECT 1 FROM ${sql.table(indexTable(key))} i WHERE ${this.filterConditions({ bbox })[0]}`
        : sql`SELECT 1 FROM ${sql.table(featuresTable(key))} f WHERE ${this.filterConditions({ bbox })[0]}`;
    const { rows } = await sql<{
      n: number | string;
    }>`SELECT count(*) AS n FROM (${inBbox} LIMIT ${max + 1}) t`.execute(this.db);
    const n = Number(rows[0]!.n);
    return n > max ? null : n;
  }

  /** The feature with this id (its stable id, GDAL's FID), through the index on `id`. */
  async byId(key: number, id: number): Promise<StoredFeatureRow | undefined> {
    const { rows } = await sql<Row>`SELECT id, detail_zoom, geometry, properties FROM ${sql.table(featuresTable(key))}
      WHERE id = ${id} LIMIT 1`.execute(this.db);
    return rows[0] && storedRow(rows[0]);
  }

  /** The conditions of a filter on `f` (the features) and, on SQLite with a bbox, `i` (its R*Tree). */
  private filterConditions({ bbox, equals = [] }: FeatureFilter) {
    const conditions = equals.map(({ name, value }) =>
      this.dialect === 'sqlite'
        ? sql`json_extract(f.properties, ${jsonPathOf(name)}) = ${typeof value === 'boolean' ? Number(value) : value}`
        : sql`f.properties::jsonb -> ${name} = ${JSON.stringify(value)}::jsonb`,
    );
    if (bbox) {
      const [w, s, e, n] = bbox;
      conditions.push(
        this.dialect === 'sqlite'
          ? sql`i.max_lon >= ${w} AND i.min_lon <= ${e} AND i.max_lat >= ${s} AND i.min_lat <= ${n}`
          : sql`f.bbox && box(point(${e}, ${n}), point(${w}, ${s}))`,
      );
    }
    return conditions;
  }

  /** Removes a layer's tables (inside the caller's transaction when given one). */
  async drop(db: Db, key: number): Promise<void> {
    await sql`DROP TABLE IF EXISTS ${sql.table(featuresTable(key))}`.execute(db);
    if (this.dialect === 'sqlite') await sql`DROP TABLE IF EXISTS ${sql.table(indexTable(key))}`.execute(db);
  }

  /**
   * Marks a layer's former tables for removal once the reads that may still hold their key
   * are over (a refresh put other tables in their place); `dropRetired` removes them.
   */
  async retire(trx: Db, key: number): Promise<void> {
    await trx.insertInto('retired_feature_tables').values({ storage_key: key, retired_at: Date.now() }).execute();
  }

  /** Drops the tables retired before `before`. */
  async dropRetired(before: number): Promise<void> {
    const retired = await this.db
      .selectFrom('retired_feature_tables')
      .select('storage_key')
      .where('retired_at', '<', before)
      .execute();
    for (const { storage_key } of retired) {
      await this.drop(this.db, Number(storage_key));
      await this.db.deleteFrom('retired_feature_tables').where('storage_key', '=', storage_key).execute();
    }
  }
}

/** A literal `minzoom <= <bucket>` so that PostgreSQL can use the partial index of the zoom's bucket. */
function bucketCondition(z: number) {
  const bucket = PG_MINZOOM_BUCKETS.find((b) => b >= z);
  return bucket === undefined ? sql`` : sql` AND minzoom <= ${sql.lit(bucket)}`;
}
