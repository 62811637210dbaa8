import { statSync } from 'node:fs';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { FieldCollector } from '../../geo/feature-fields.js';
import { GeoJsonFieldTypes } from '../../geo/geojson-field-types.js';
import { withTextValues } from '../../geo-engine/geojson-table.js';
import { growBbox, layerGeometryType } from '../../geo/feature-summary.js';
import { FeatureContent } from '../../geo/feature-content.js';
import { LayerOrdering, stageFeature } from '../../geo/layer-rows.js';
import type { Bbox } from '../../geo/tile-math.js';
import { readFeatures, newStats } from '../../geo-engine/vector-stream.js';
import { PostgresFeatureWriter, SqliteFeatureWriter, type FeatureRow, type FeatureWriter } from './feature-writers.js';
import type { IngestedTable, IngestRequest, ToWorker, FromWorker } from './vector-ingest.js';
import { StagingFile } from '../ingest/staging-file.js';
import { featuresDone, progressWords } from './ingest-words.js';

/**
 * The ingest of vector tables, in a worker thread with a bounded heap (a hostile file can
 * exhaust the worker, never the service). For each table: GDAL reads it (two processes for a
 * GeoPackage or shapefile), each feature is checked and staged; the staged features are read
 * back in Hilbert order, numbered, given their minzoom and chunk, and written to the layer's
 * own tables through a connection of the worker's own. The service makes the result visible.
 */

const request = workerData as IngestRequest;
const abort = new AbortController();
const post = (message: FromWorker, transfer: ArrayBuffer[] = []) => parentPort!.postMessage(message, transfer);
parentPort!.on('message', (message: ToWorker) => {
  if (message.type === 'abort') abort.abort();
});

/** Rows per write: small enough that the service, sharing the SQLite file, never waits long for its turn. */
const ROWS_PER_WRITE = 2000;

async function ingestTable(
  writer: FeatureWriter,
  { table, key, content: withContent }: IngestRequest['tables'][number],
  index: number,
): Promise<IngestedTable> {
  const staging = new StagingFile(path.join(request.stagingDir, `${key}.staging.db`));
  const stats = newStats();
  let kinds = 0;
  let bbox: Bbox | null = null;
  const fields = new FieldCollector();
  // A GeoJSON read without GDAL: its fields are typed as its features are read.
  const typing = table.fields ? undefined : new GeoJsonFieldTypes();
  const fileBytes = table.featureCount === null ? statSync(table.source.gdalPath).size : 0;
  const share = 1 / request.tables.length;
  const report = (fraction: number, message: string) =>
    post({
      type: 'progress',
      fraction: (index + fraction) * share,
      message: progressWords(request.tables.length, table.name, message),
    });
  try {
    let lastReport = 0;
    for await (const batch of readFeatures(
      table,
      request.limits,
      { parts: request.parts, signal: abort.signal },
      stats,
    )) {
      staging.put(batch.map(stageFeature));
      for (const feature of batch) {
        kinds |= feature.kinds;
        // Typed, every property is a declared field: the collector sees only GDAL's undeclared ones.
        if (typing) typing.add(feature.properties);
        else fields.add(feature.properties);
        bbox = bbox ? growBbox(bbox, feature.bbox) : [...feature.bbox];
      }
      if (Date.now() - lastReport > 250) {
        lastReport = Date.now();
        const done =
          table.featureCount === null ? stats.bytes / fileBytes : stats.features / Math.max(1, table.featureCount);
        report(0.8 * Math.min(1, done), featuresDone('read', stats.features, table.featureCount));
      }
    }
    const declared = table.fields ?? typing!.declared();
    const asText = typing?.textFields() ?? [];
    await writer.create(key);
    const content = withContent ? new FeatureContent() : undefined;
    const ordering = new LayerOrdering();
    let rows: FeatureRow[] = [];
    for (const feature of staging.sorted()) {
      if (abort.signal.aborted) throw new Error('Stopped');
      const { row, minzoom } = ordering.add(feature.key, feature.bbox);
      const properties = asText.length ? withTextValues(feature.properties, asText) : feature.properties;
      rows.push({
        row,
        id: feature.id,
        minzoom,
        detailZoom: feature.detailZoom,
        bbox: feature.bbox,
        geometry: feature.geometry,
        properties,
      });
      content?.add(feature.id, feature.geometry, properties);
      if (rows.length === ROWS_PER_WRITE) {
        await writer.append(key, rows);
        rows = [];
        report(
          0.8 + (0.15 * ordering.rowCount) / Math.max(1, stats.features),
          featuresDone('stored', ordering.rowCount, stats.features),
        );
      }
    }
    if (rows.length) await writer.append(key, rows);
    report(0.97, 'building the spatial index');
    const sizeBytes = await writer.finish(key);
    return {
      key,
      featureCount: ordering.rowCount,
      skippedWithoutGeometry: stats.skippedWithoutGeometry,
      geometryType: layerGeometryType(kinds),
      bbox,
      chunks: ordering.chunks(),
      sizeBytes,
      fields: fields.fields(declared),
      ...(content && { content: content.result() }),
    };
  } finally {
    staging.close();
  }
}

async function main() {
  const { database } = request;
  let writer: FeatureWriter;
  let close: () => Promise<void>;
  if (database.dialect === 'sqlite') {
    const db = new SQLite(database.sqlitePath!);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 30000');
    writer = new SqliteFeatureWriter(db);
    close = async () => void db.close();
  } else {
    const client = new pg.Client({ connectionString: database.postgresUrl! });
    await client.connect();
    writer = new PostgresFeatureWriter(client);
    close = () => client.end();
  }
  try {
    for (const [index, table] of request.tables.entries()) {
      const result = await ingestTable(writer, table, index);
      const { content } = result;
      post(
        { type: 'table', result },
        content ? [content.ids.buffer as ArrayBuffer, content.hashes.buffer as ArrayBuffer] : [],
      );
    }
    post({ type: 'done' });
  } finally {
    await close();
  }
}

main().catch((error: unknown) => {
  const e = error as { name?: string; code?: string; message?: string; details?: unknown };
  post({
    type: 'error',
    name: (error as object)?.constructor?.name ?? 'Error',
    code: e?.code,
    message: e?.message ?? String(error),
    details: e?.details,
  });
});
