import { once } from 'node:events';
import type SQLite from 'better-sqlite3';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { copyText } from '../../db/copy-text.js';
import type { Bbox } from '../../geo/tile-math.js';

/**
 * Writing a vector layer's own tables (the ingest worker does this, in Hilbert order): the
 * features table, numbered 1..n by `row`, and its spatial index, where each feature's bbox
 * and its `minzoom` (the lowest zoom its tiles show it at) sit together, so that a tile at a
 * low zoom finds its few features without visiting the others. Reads are in feature-tables.ts.
 */

/** A stored feature row; `geometry` and `properties` are JSON texts, served as they are. */
export interface FeatureRow {
  row: number;
  id: number;
  minzoom: number;
  detailZoom: number;
  bbox: Bbox;
  geometry: string;
  properties: string;
}

export const featuresTable = (key: number) => `layer_${key}_features`;
export const indexTable = (key: number) => `layer_${key}_index`;
/** The index on a feature table's `id` (a feature addressed by its id: OGC API's `/items/:featureId`). */
export const idIndex = (key: number) => `layer_${key}_features_id`;

/** The partial spatial indexes PostgreSQL keeps for low zooms (a tile at zoom z uses the first >= z). */
export const PG_MINZOOM_BUCKETS = [5, 7, 9, 11] as const;

/** The statements that make a layer's empty tables (features and, on SQLite, the R*Tree). */
export function featureTablesDdl(dialect: 'sqlite' | 'postgres', key: number): string[] {
  return dialect === 'sqlite'
    ? [
        `CREATE TABLE ${featuresTable(key)} (row INTEGER PRIMARY KEY, id INTEGER NOT NULL, minzoom INTEGER NOT NULL,
        detail_zoom INTEGER NOT NULL, geometry TEXT NOT NULL, properties TEXT NOT NULL)`,
        `CREATE VIRTUAL TABLE ${indexTable(key)} USING rtree(row, min_lon, max_lon, min_lat, max_lat, minzoom, minzoom_)`,
      ]
    : [
        `CREATE TABLE ${featuresTable(key)} (row integer PRIMARY KEY, id bigint NOT NULL, minzoom smallint NOT NULL,
      detail_zoom smallint NOT NULL, bbox box NOT NULL, geometry text NOT NULL, properties text NOT NULL)`,
      ];
}

/** The statements that index a layer's tables once its rows are in (the id; PostgreSQL's spatial indexes). */
export function featureIndexesDdl(dialect: 'sqlite' | 'postgres', key: number): string[] {
  const table = featuresTable(key);
  const byId = `CREATE INDEX IF NOT EXISTS ${idIndex(key)} ON ${table} (id)`;
  if (dialect === 'sqlite') return [byId];
  return [
    `CREATE INDEX ${table}_bbox ON ${table} USING gist (bbox)`,
    byId,
    ...PG_MINZOOM_BUCKETS.map(
      (z) => `CREATE INDEX ${table}_bbox_z${z} ON ${table} USING gist (bbox) WHERE minzoom <= ${z}`,
    ),
  ];
}

export interface FeatureWriter {
  create(key: number): Promise<void>;
  /** Appends rows in `row` order. */
  append(key: number, rows: FeatureRow[]): Promise<void>;
  /** Builds what is built last (indexes, statistics); returns the bytes the layer takes. */
  finish(key: number): Promise<number>;
  drop(key: number): Promise<void>;
}

/** SQLite: a table and an R*Tree with a third dimension for minzoom. */
export class SqliteFeatureWriter implements FeatureWriter {
  constructor(private readonly db: SQLite.Database) {}

  async create(key: number) {
    for (const statement of featureTablesDdl('sqlite', key)) this.db.exec(statement);
  }

  async append(key: number, rows: FeatureRow[]) {
    const feature = this.db.prepare(`INSERT INTO ${featuresTable(key)} VALUES (?, ?, ?, ?, ?, ?)`);
    const box = this.db.prepare(`INSERT INTO ${indexTable(key)} VALUES (?, ?, ?, ?, ?, ?, ?)`);
    this.db.transaction(() => {
      for (const r of rows) {
        feature.run(r.row, r.id, r.minzoom, r.detailZoom, r.geometry, r.properties);
        box.run(r.row, r.bbox[0], r.bbox[2], r.bbox[1], r.bbox[3], r.minzoom, r.minzoom);
      }
    })();
  }

  async finish(key: number) {
    for (const statement of featureIndexesDdl('sqlite', key)) this.db.exec(statement);
    const names = [
      featuresTable(key),
      idIndex(key),
      indexTable(key),
      `${indexTable(key)}_node`,
      `${indexTable(key)}_rowid`,
      `${indexTable(key)}_parent`,
    ];
    const row = this.db
      .prepare(
        `SELECT coalesce(sum(pgsize), 0) AS bytes FROM dbstat WHERE name IN (${names.map(() => '?').join(', ')})`,
      )
      .get(...names) as { bytes: number };
    return Number(row.bytes);
  }

  async drop(key: number) {
    this.db.exec(`DROP TABLE IF EXISTS ${featuresTable(key)}; DROP TABLE IF EXISTS ${indexTable(key)};`);
  }
}

/** PostgreSQL: a table with a `box` column, COPYed in, then GiST indexes (no extension needed). */
export class PostgresFeatureWriter implements FeatureWriter {
  constructor(private readonly client: pg.Client) {}

  async create(key: number) {
    for (const statement of featureTablesDdl('postgres', key)) await this.client.query(statement);
  }

  async append(key: number, rows: FeatureRow[]) {
    const copy = this.client.query(
      copyFrom(`COPY ${featuresTable(key)} (row, id, minzoom, detail_zoom, bbox, geometry, properties) FROM STDIN`),
    );
    const done = once(copy, 'finish');
    let buffer = '';
    for (const r of rows) {
      const [w, s, e, n] = r.bbox;
      buffer += `${r.row}\t${r.id}\t${r.minzoom}\t${r.detailZoom}\t(${e},${n}),(${w},${s})\t${copyText(r.geometry)}\t${copyText(r.properties)}\n`;
      if (buffer.length > 1 << 20) {
        if (!copy.write(buffer)) await once(copy, 'drain');
        buffer = '';
      }
    }
    copy.end(buffer);
    await done;
  }

  async finish(key: number) {
    const table = featuresTable(key);
    for (const statement of featureIndexesDdl('postgres', key)) await this.client.query(statement);
    await this.client.query(`ANALYZE ${table}`);
    const { rows } = await this.client.query<{ bytes: string }>(
      'SELECT pg_total_relation_size($1::regclass) AS bytes',
      [table],
    );
    return Number(rows[0]!.bytes);
  }

  async drop(key: number) {
    await this.client.query(`DROP TABLE IF EXISTS ${featuresTable(key)}`);
  }
}
