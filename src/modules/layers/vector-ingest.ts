import { mkdir } from 'node:fs/promises';
import { type Config, type GeoLimits, sqlitePathOf } from '../../config.js';
import type { ContentList } from '../../geo/feature-content.js';
import type { ChunkSummary } from '../../geo/layer-rows.js';
import type { LayerGeometryType } from '../../geo/feature-summary.js';
import type { LayerField } from '../../geo/feature-fields.js';
import type { Bbox } from '../../geo/tile-math.js';
import { VectorRejected, type VectorTable } from '../../geo-engine/vector-open.js';
import { MembersAfterFeatures } from '../../geo/vector/errors.js';
import { siblingModule, startWorker } from '../../infra/workers.js';

/** Where the worker writes: the service's own database, through a connection of its own. */
export interface IngestDatabase {
  dialect: 'sqlite' | 'postgres';
  sqlitePath?: string;
  postgresUrl?: string;
}

/** The service's database as the worker reaches it: the SQLite file, or PostgreSQL's address. */
export function ingestDatabaseOf(config: Config, dialect: 'sqlite' | 'postgres'): IngestDatabase {
  return dialect === 'sqlite'
    ? { dialect: 'sqlite', sqlitePath: sqlitePathOf(config) }
    : { dialect: 'postgres', postgresUrl: config.databaseUrl! };
}

export interface IngestRequest {
  /** `content`: answer each feature's content with the table (a refresh compares them). */
  tables: { table: VectorTable; key: number; content?: boolean }[];
  database: IngestDatabase;
  stagingDir: string;
  /** ogr2ogr processes per table, where the format can be split. */
  parts: number;
  /** The geo engine's limits (config.ts), handed to the worker. */
  limits: GeoLimits;
}

/** One table, stored: what the layer row and its chunks need. */
export interface IngestedTable {
  key: number;
  featureCount: number;
  skippedWithoutGeometry: number;
  geometryType: LayerGeometryType | null;
  bbox: Bbox | null;
  chunks: ChunkSummary[];
  sizeBytes: number;
  /** The attribute fields: those GDAL declares, then any other property the features carry. */
  fields: LayerField[];
  /** Each feature's id and content, when the request asked for them. */
  content?: ContentList;
}

export type ToWorker = { type: 'abort' };
export type FromWorker =
  | { type: 'progress'; fraction: number; message: string }
  | { type: 'table'; result: IngestedTable }
  | { type: 'done' }
  | { type: 'error'; name: string; code?: string; message: string; details?: unknown };

/**
 * Stores vector tables as layers' feature tables, in a worker thread (vector-ingest.worker.ts).
 * Resolves with one result per table, in order; rejects with the worker's VectorRejected (a
 * file GDAL or the checks refuse), or an Error. Aborting stops GDAL and the worker.
 */
export async function ingestVectorTables(
  request: IngestRequest,
  options: { signal?: AbortSignal; onProgress?: (fraction: number, message: string) => void } = {},
): Promise<IngestedTable[]> {
  await mkdir(request.stagingDir, { recursive: true });
  const worker = startWorker(siblingModule(import.meta.url, 'vector-ingest.worker'), {
    workerData: request,
    // VECTOR_WORKER_HEAP_MB: a feature of up to MAX_FEATURE_CHARS of GeoJSON must parse within it.
    // The young generation holds batches only until they are staged: 16 MB rather than V8's 32 to 64.
    resourceLimits: { maxOldGenerationSizeMb: request.limits.vectorWorkerHeapMb, maxYoungGenerationSizeMb: 16 },
  });
  const results: IngestedTable[] = [];
  const onAbort = () => {
    worker.postMessage({ type: 'abort' } satisfies ToWorker);
    // GDAL is killed by the worker; if it does not end promptly, end it.
    setTimeout(() => void worker.terminate(), 10_000).unref();
  };
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    return await new Promise<IngestedTable[]>((resolve, reject) => {
      let settled = false;
      const finish = (error: unknown) => {
        if (settled) return;
        settled = true;
        if (error) reject(error);
        else resolve(results);
        void worker.terminate();
      };
      worker.on('message', (message: FromWorker) => {
        if (message.type === 'progress') options.onProgress?.(message.fraction, message.message);
        else if (message.type === 'table') results.push(message.result);
        else if (message.type === 'done') finish(null);
        else finish(workerError(message));
      });
      worker.on('error', (error: Error & { code?: string }) =>
        finish(
          error.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? new VectorRejected(
                'invalid_file',
                'The file needs more memory to read than a layer may use (a feature of enormous size?)',
              )
            : error,
        ),
      );
      // Exiting before 'done' (after it, this is a no-op): stopped, or crashed.
      worker.on('exit', (code) =>
        finish(new Error(options.signal?.aborted ? 'Stopped' : `The ingest stopped before it finished (exit ${code})`)),
      );
    });
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
  }
}

/** The worker's failure as the error it threw, where a caller tells it apart. */
function workerError(failure: Extract<FromWorker, { type: 'error' }>): Error {
  if (failure.name === 'VectorRejected')
    return new VectorRejected(failure.code as never, failure.message, failure.details as never);
  if (failure.name === 'MembersAfterFeatures') return new MembersAfterFeatures(failure.message);
  return new Error(failure.message);
}
