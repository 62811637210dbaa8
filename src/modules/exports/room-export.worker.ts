import { closeSync, openSync, readSync, readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { FieldCollector, type LayerField } from '../../geo/feature-fields.js';
import { GeoPackageWriter, type GpkgColumn, type SqlValue } from '../../geo-engine/gpkg-writer.js';
import { featuresTable } from '../layers/feature-writers.js';
import {
  exactGeometryType,
  layerColumns,
  layerValues,
  type ExportPlan,
  type FromExportWorker,
  type PlanValue,
} from './export-plan.js';

/**
 * Writes a room's GeoPackage in a worker thread (better-sqlite3 writes synchronously; a
 * million-feature layer takes seconds the service's event loop must not wait). The small
 * tables come ready in the plan; each vector layer's features are read from the service's
 * database through a connection of the worker's own, 5,000 rows at a time, so memory stays
 * bounded whatever the layer's size. Files (icons, photos, GeoTIFF parts) are read one at a time.
 */

const plan = workerData as ExportPlan;
const post = (message: FromExportWorker) => parentPort!.postMessage(message);
/** Rows read per query while writing a feature table: fixed, it bounds the worker's memory per read. */
const ROWS_PER_READ = 5_000;

type FeatureRow = { id: number; geometry: string; properties: string };
type RowReader = (key: number, first: number, last: number) => Promise<FeatureRow[]>;
/** The GeoJSON geometry types a layer's features have (one scan of its table, in the database). */
type TypeReader = (key: number) => Promise<string[]>;

function fileValue(value: PlanValue): SqlValue {
  if (value === null || typeof value !== 'object' || Buffer.isBuffer(value)) return value as SqlValue;
  if (value.start === undefined || value.end === undefined) return readFileSync(value.file);
  const buffer = Buffer.allocUnsafe(value.end - value.start);
  const fd = openSync(value.file, 'r');
  try {
    let done = 0;
    while (done < buffer.length) {
      const n = readSync(fd, buffer, done, buffer.length - done, value.start + done);
      if (n === 0) throw new Error(`${value.file} is shorter than expected`);
      done += n;
    }
  } finally {
    closeSync(fd);
  }
  return buffer;
}

/** A row's values with its files read; null when a whole stored file it names is gone (deleted meanwhile): the row is left out. */
function valuesOrGone(row: PlanValue[]): SqlValue[] | null {
  try {
    return row.map(fileValue);
  } catch (error) {
    const whole = row.some((v) => v !== null && typeof v === 'object' && !Buffer.isBuffer(v) && v.start === undefined);
    if (whole && (error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

async function readerOf(): Promise<{ read: RowReader; types: TypeReader; close(): Promise<void> }> {
  const sqlText = (key: number, p: (n: number) => string) =>
    `SELECT id, geometry, properties FROM ${featuresTable(key)} WHERE row BETWEEN ${p(1)} AND ${p(2)} ORDER BY row`;
  const typesText = (key: number, type: string) => `SELECT DISTINCT ${type} AS type FROM ${featuresTable(key)}`;
  if (plan.database.dialect === 'sqlite') {
    const db = new SQLite(plan.database.sqlitePath!, { readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = 30000');
    return {
      read: async (key, first, last) => db.prepare(sqlText(key, () => '?')).all(first, last) as FeatureRow[],
      types: async (key) =>
        (db.prepare(typesText(key, "json_extract(geometry, '$.type')")).all() as { type: string }[]).map((r) => r.type),
      close: async () => void db.close(),
    };
  }
  const client = new pg.Client({ connectionString: plan.database.postgresUrl! });
  await client.connect();
  return {
    read: async (key, first, last) =>
      (
        await client.query<FeatureRow>(
          sqlText(key, (n) => `$${n}`),
          [first, last],
        )
      ).rows,
    types: async (key) =>
      (await client.query<{ type: string }>(typesText(key, "(geometry::json)->>'type'"))).rows.map((r) => r.type),
    close: () => client.end(),
  };
}

/** A layer stored before fields were recorded: its fields read off the features. */
async function fieldsFromFeatures(read: RowReader, key: number, lastRow: number): Promise<LayerField[]> {
  const collector = new FieldCollector();
  for (let first = 1; first <= lastRow; first += ROWS_PER_READ) {
    for (const row of await read(key, first, first + ROWS_PER_READ - 1))
      collector.add(JSON.parse(row.properties) as Record<string, unknown>);
  }
  return collector.fields([]);
}

async function main() {
  const writer = GeoPackageWriter.create(plan.outputPath);
  const reader = await readerOf();
  try {
    for (const table of plan.attributeTables) {
      const out = writer.attributeTable(table.table, table.columns, { description: table.description });
      for (const row of table.rows) {
        const values = valuesOrGone(row);
        if (values) out.add(values);
      }
    }
    for (const table of plan.featureTables) {
      const out = writer.featureTable(table.table, table.geometryType, table.columns, {
        description: table.description,
      });
      for (const row of table.rows) out.add(null, row.geometry, row.values);
    }
    const total = plan.layerTables.reduce((n, t) => n + t.featureCount, 0);
    let written = 0;
    for (const layer of plan.layerTables) {
      const fields = layer.fields ?? (await fieldsFromFeatures(reader.read, layer.key, layer.lastRow));
      const columns: GpkgColumn[] = layerColumns(fields);
      const geometryType = exactGeometryType(
        layer.geometryType,
        layer.geometryType === 'GEOMETRY' ? [] : await reader.types(layer.key),
      );
      const out = writer.featureTable(layer.table, geometryType, columns, {
        identifier: layer.identifier,
        description: layer.description,
      });
      for (let first = 1; first <= layer.lastRow; first += ROWS_PER_READ) {
        const rows = await reader.read(layer.key, first, first + ROWS_PER_READ - 1);
        for (const row of rows)
          out.add(
            Number(row.id),
            JSON.parse(row.geometry),
            layerValues(fields, JSON.parse(row.properties) as Record<string, unknown>),
          );
        written += rows.length;
        post({
          type: 'progress',
          fraction: written / Math.max(1, total),
          message: `${layer.identifier}: wrote ${written} of ${total} features`,
        });
      }
    }
    writer.close();
    post({ type: 'done' });
  } catch (error) {
    writer.abort();
    throw error;
  } finally {
    await reader.close();
  }
}

main().catch((error: unknown) => post({ type: 'error', message: (error as Error)?.message ?? String(error) }));
