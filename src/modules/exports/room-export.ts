import { randomUUID } from 'node:crypto';
import { link, mkdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import pLimit from 'p-limit';
import type { LayersTable } from '../../db/tables.js';
import type { GeoLimits } from '../../config.js';
import { appendTilePyramid } from '../../geo-engine/gpkg-tiles.js';
import { siblingModule, startWorker } from '../../infra/workers.js';
import type { ExportedTable } from '../exchange/exchange.js';
import type { StoredFiles } from '../files/stored-files.js';
import type { IngestDatabase } from '../layers/vector-ingest.js';
import type { ExportPlan, FromExportWorker, PlanValue } from './export-plan.js';
import * as T from './export-tables.js';

export interface ExportOptions {
  includeTiffs: boolean;
  includeTiles: boolean;
  /** Only these vector layers and the layers table (a clone copying layer data). */
  onlyLayers?: string[];
}

/** What an export reads the room through: the domains' exchanges (in the file's order) and the stored files. */
export interface RoomSources {
  exchanges: ExportedTable[];
  files: StoredFiles;
}

/** The exporter's sources, and how many exports it writes at once (EXPORT_CONCURRENCY); others wait their turn. */
export interface ExporterSources extends RoomSources {
  concurrency: number;
}

/**
 * GeoTIFFs go into the file in parts of this size: fixed, a rule of the export file (SQLite
 * caps one value at 1 GB, and an import reads the parts back whatever their size).
 */
export const RASTER_PART_BYTES = 32 * 1024 ** 2;

/**
 * Writes a whole room as one GeoPackage: a table for each domain's exchange
 * (exchange/exchange.ts), walked in the order app.ts lists them, and the tables of
 * export-tables.ts. The small tables are read here; the writing happens in a worker thread
 * (room-export.worker.ts) that reads each vector layer's features itself, and with
 * `includeTiles` GDAL appends each raster as a tile pyramid. The file is written under the
 * temporary folder; the caller streams it and removes it. Which parts a layer brings (feature
 * table, tile pyramid, GeoTIFF) its kind decides (the layers exchange's `parts`); this executes them.
 */
export class RoomExporter {
  private readonly turn: ReturnType<typeof pLimit>;

  constructor(
    private readonly sources: ExporterSources,
    private readonly database: IngestDatabase,
    private readonly tmpDir: string,
    private readonly geo: GeoLimits,
  ) {
    this.turn = pLimit(sources.concurrency);
  }

  /** Writes the export when its turn comes; resolves with its path (removed again if writing fails). */
  write(
    roomId: string,
    options: ExportOptions,
    progress?: (fraction: number, message: string) => void,
    signal?: AbortSignal,
  ): Promise<string> {
    return this.turn(async () => {
      try {
        return await this.writeNow(roomId, options, progress, signal);
      } catch (error) {
        if (signal?.aborted || !layerGone(error)) throw error;
        // A layer was deleted while its features were written: export the room as it is now.
        return this.writeNow(roomId, options, progress, signal);
      }
    });
  }

  private async writeNow(
    roomId: string,
    options: ExportOptions,
    progress?: (fraction: number, message: string) => void,
    signal?: AbortSignal,
  ): Promise<string> {
    signal?.throwIfAborted();
    const folder = path.join(this.tmpDir, 'exports');
    await mkdir(folder, { recursive: true });
    const outputPath = path.join(folder, `${randomUUID()}.gpkg`);
    const releases: (() => Promise<void>)[] = [() => rm(`${outputPath}.files`, { recursive: true, force: true })];
    try {
      const { plan, tilePyramids } = await this.plan(roomId, options, outputPath, releases);
      await runWorker(plan, progress, signal);
      for (const pyramid of tilePyramids) {
        progress?.(1, `Writing the tiles of ${pyramid.name}`);
        await appendTilePyramid(outputPath, pyramid.file, pyramid.table, { ...this.geo.warp, signal });
      }
      return outputPath;
    } catch (error) {
      await rm(outputPath, { force: true });
      throw error;
    } finally {
      for (const release of releases) await release();
    }
  }

  /** What an export with the original GeoTIFFs holds: files and feature tables in bytes, and small rows. */
  async estimate(roomId: string): Promise<{ bytes: number; rows: number }> {
    const { exchanges, files } = this.sources;
    const stored = await files.listKinds(roomId, ['marker-image', 'marker-thumbnail', 'marker-icon', 'raster-source']);
    const layers = await this.layersOf(roomId);
    const counts = await Promise.all(exchanges.flatMap(({ export: e }) => (e.count ? [e.count(roomId)] : [])));
    return {
      bytes: stored.reduce((n, f) => n + Number(f.bytes), 0) + layers.reduce((n, l) => n + Number(l.size_bytes), 0),
      rows: counts.reduce((a, b) => a + b, 0),
    };
  }

  /** The exchange of the `layers` table, whose rows name the file's vector feature tables and raster tiles. */
  private get layerExchange(): ExportedTable<LayersTable> | undefined {
    return this.sources.exchanges.find((e) => e.source === 'layers') as ExportedTable<LayersTable> | undefined;
  }

  private async layersOf(roomId: string): Promise<LayersTable[]> {
    return (await this.layerExchange?.export.rows(roomId)) ?? [];
  }

  private async localFile(key: string, releases: (() => Promise<void>)[]): Promise<string> {
    const local = await this.sources.files.localFile(key);
    releases.push(() => local.release());
    return local.path;
  }

  private async plan(roomId: string, options: ExportOptions, outputPath: string, releases: (() => Promise<void>)[]) {
    const { exchanges } = this.sources;
    const only = options.onlyLayers ? new Set(options.onlyLayers) : null;
    const layerExchange = this.layerExchange;
    // A clone's export of some layers reads nothing else.
    const read = await Promise.all(exchanges.map((e) => (only && e !== layerExchange ? [] : e.export.rows(roomId))));
    const rowsOf = new Map<ExportedTable, unknown[]>(exchanges.map((e, i) => [e, read[i]!]));
    const allLayers = (layerExchange ? rowsOf.get(layerExchange) : []) as LayersTable[];
    const layers = only ? allLayers.filter((l) => only.has(l.id)) : allLayers;
    const tableNames = new Set(exchanges.map((e) => e.table));
    const layerTables: ExportPlan['layerTables'] = [];
    const tilePyramids: { name: string; file: string; table: string }[] = [];
    const rasterFiles: PlanValue[][] = [];
    const include = { tiffs: options.includeTiffs, tiles: options.includeTiles };
    const namedLayers: Record<string, unknown>[] = [];
    // Each row's kind says what the file holds of it (LayerFiles); this writes it.
    for (const layer of layers) {
      const named: Record<string, unknown> = { ...layer };
      for (const name of layerExchange?.fileOnly ?? []) named[name] = null;
      for (const part of layerExchange?.export.parts?.(layer, include) ?? []) {
        if (part.type === 'file') {
          await this.fileParts(layer.id, await this.localFile(part.fileKey, releases), rasterFiles);
          continue;
        }
        const table = T.layerTableName(part.name, tableNames);
        named[part.column] = table;
        if (part.type === 'tiles') {
          tilePyramids.push({ name: layer.name, file: await this.localFile(part.fileKey, releases), table });
          continue;
        }
        const { description, key, featureCount, lastRow, geometryType, fields } = part;
        layerTables.push({ table, identifier: table, description, key, featureCount, lastRow, geometryType, fields });
      }
      namedLayers.push(named);
    }
    if (layerExchange) rowsOf.set(layerExchange, namedLayers);
    // Stored files (photos, icons) are taken before any row is written: a file deleted since
    // its row was read is left out, and rows naming a file the export does not hold (deleted
    // before or while the rows were read, in whatever order) say so (`filesGone`).
    const taken = new Map<unknown, string>();
    const held = new Set<string>();
    for (const exchange of exchanges) {
      const { fileKey } = exchange.export;
      if (!fileKey) continue;
      for (const row of rowsOf.get(exchange)!) {
        const key = fileKey(row);
        const file = await this.takeFile(key, `${outputPath}.files`, releases);
        if (file === null) continue;
        taken.set(row, file);
        held.add(key);
      }
    }
    const meta: [string, string][] = [
      ['format', T.EXPORT_FORMAT],
      ['version', String(T.EXPORT_VERSION)],
      ['source_room_id', roomId],
      ['exported_at', new Date().toISOString()],
      ['include_tiffs', String(options.includeTiffs)],
      ['include_tiles', String(options.includeTiles)],
    ];
    const plan: ExportPlan = {
      outputPath,
      database: this.database,
      attributeTables: [{ ...T.META, rows: meta }],
      featureTables: [],
      layerTables,
    };
    for (const exchange of exchanges) {
      const { table, description, columns, geometryType } = exchange;
      const { geometry, filesGone, fileKey } = exchange.export;
      const read = rowsOf.get(exchange)!;
      const rows = filesGone ? read.map((row) => filesGone(row, held)) : read;
      if (geometryType && geometry) {
        const features = rows.map((row) => ({ geometry: geometry(row), values: T.valuesOf(columns, row as object) }));
        // One table per geometry type when the exchange says so (each row to the table of its type).
        for (const part of exchange.geometryTables ?? [{ table, geometryType, holds: null }])
          plan.featureTables.push({
            table: part.table,
            description,
            columns,
            geometryType: part.geometryType,
            rows: part.holds === null ? features : features.filter((f) => f.geometry?.type === part.holds),
          });
        continue;
      }
      const values: PlanValue[][] = [];
      rows.forEach((row, i) => {
        const file = taken.get(read[i]);
        if (!fileKey || file !== undefined) values.push(this.valuesOf(exchange, row, file)); // else its file is gone
      });
      plan.attributeTables.push({ table, description, columns, rows: values });
    }
    if (options.includeTiffs) plan.attributeTables.push({ ...T.RASTER_FILES, rows: rasterFiles });
    return { plan, tilePyramids };
  }

  /** A stored file as rows of `raster_files` under `id`, in parts of `RASTER_PART_BYTES` (at least one). */
  private async fileParts(id: string, file: string, rows: PlanValue[][]): Promise<void> {
    const { size } = await stat(file);
    for (let start = 0, part = 1; start < size || part === 1; start += RASTER_PART_BYTES, part += 1) {
      rows.push([id, part, { file, start, end: Math.min(size, start + RASTER_PART_BYTES) }]);
    }
  }

  /** A row's values in the file; its BLOB column names the taken file for the worker to read. */
  private valuesOf(exchange: ExportedTable, row: unknown, file: string | undefined): PlanValue[] {
    const values: PlanValue[] = T.valuesOf(exchange.columns, row as object);
    const blob = exchange.columns.findIndex((c) => c.type === 'BLOB');
    if (blob >= 0 && file !== undefined) values[blob] = { file };
    return values;
  }

  /**
   * A stored file, held for this export: a hard link in `folder` (so that deleting the file
   * meanwhile does not take it from the worker), else the local file itself. Null when the
   * file is gone (deleted since its row was read).
   */
  private async takeFile(key: string, folder: string, releases: (() => Promise<void>)[]): Promise<string | null> {
    let local: string;
    try {
      local = await this.localFile(key, releases);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    const held = path.join(folder, randomUUID());
    try {
      await mkdir(folder, { recursive: true });
      await link(local, held);
      return held;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      return local; // another file system (or no hard links): read in place
    }
  }
}

/** The worker's error when a layer's feature table disappeared under it (SQLite's and PostgreSQL's words). */
const layerGone = (error: unknown) =>
  /no such table|relation "[^"]+" does not exist/.test((error as Error)?.message ?? '');

/** Runs the export worker; rejects with its error. */
async function runWorker(
  plan: ExportPlan,
  progress?: (fraction: number, message: string) => void,
  signal?: AbortSignal,
): Promise<void> {
  const worker = startWorker(siblingModule(import.meta.url, 'room-export.worker'), {
    workerData: plan,
    resourceLimits: { maxOldGenerationSizeMb: 512 },
  });
  const onAbort = () => void worker.terminate();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    await new Promise<void>((resolve, reject) => {
      worker.on('message', (message: FromExportWorker) => {
        if (message.type === 'progress') progress?.(message.fraction, message.message);
        else if (message.type === 'done') resolve();
        else reject(new Error(`The export failed: ${message.message}`));
      });
      worker.on('error', reject);
      worker.on('exit', () => reject(new Error(signal?.aborted ? 'Stopped' : 'The export stopped before it finished')));
    });
  } finally {
    signal?.removeEventListener('abort', onAbort);
    await worker.terminate();
  }
}
