import { randomUUID } from 'node:crypto';
import { mkdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import pLimit from 'p-limit';
import type { Db } from '../../db/database.js';
import type { RoomTable } from '../../db/room-table.js';
import type { LayerField } from '../../geo/feature-fields.js';
import type { GeoLimits } from '../../config.js';
import { appendTilePyramid } from '../../geo-engine/gpkg-tiles.js';
import type { GeoJsonGeometry } from '../../geo/gpkg/wkb.js';
import { siblingModule, startWorker } from '../../infra/workers.js';
import type { StoredFiles } from '../files/stored-files.js';
import type { IconsRepository } from '../icons/icons.repository.js';
import type { LayersRepository } from '../layers/layers.repository.js';
import type { IngestDatabase } from '../layers/vector-ingest.js';
import type { CommentsRepository } from '../comments/comments.repository.js';
import type { RoomsRepository } from '../rooms/rooms.repository.js';
import type { MarkersRepository } from '../markers/markers.repository.js';
import type { SlidesRepository } from '../slides/slides.repository.js';
import { layerGeometryType, type ExportPlan, type FromExportWorker, type PlanValue } from './export-plan.js';
import * as T from './export-tables.js';

export interface ExportOptions {
  includeTiffs: boolean;
  includeTiles: boolean;
  /** Only these vector layers and the layers table (a clone copying layer data). */
  onlyLayers?: string[];
}

/** The repositories an export reads the room through. */
export interface RoomSources {
  db: Db;
  rooms: RoomsRepository;
  markers: MarkersRepository;
  drawings: RoomTable<'drawings'>;
  comments: CommentsRepository;
  slides: SlidesRepository;
  icons: IconsRepository;
  layers: LayersRepository;
  files: StoredFiles;
}

/** Exports writing at once in one process (each a worker thread and a temporary file); others wait their turn. */
const CONCURRENT_EXPORTS = 2;

/** GeoTIFFs go into the file in parts of this size (SQLite caps one value at 1 GB). */
const RASTER_PART_BYTES = 32 * 1024 ** 2;

/**
 * Writes a whole room as one GeoPackage (export-tables.ts says which tables): the small tables
 * are read here, the writing happens in a worker thread (room-export.worker.ts) that reads
 * each vector layer's features itself, and with `includeTiles` GDAL appends each raster as a
 * tile pyramid. The file is written under the temporary folder; the caller streams it and
 * removes it.
 */
export class RoomExporter {
  private readonly turn = pLimit(CONCURRENT_EXPORTS);

  constructor(
    private readonly sources: RoomSources,
    private readonly database: IngestDatabase,
    private readonly tmpDir: string,
    private readonly geo: GeoLimits,
  ) {}

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
    const releases: (() => Promise<void>)[] = [];
    try {
      const { plan, rasters } = await this.plan(roomId, options, outputPath, releases);
      await runWorker(plan, progress, signal);
      for (const raster of rasters) {
        if (!options.includeTiles) break;
        progress?.(1, `Writing the tiles of ${raster.name}`);
        await appendTilePyramid(outputPath, raster.file, raster.table, { ...this.geo.warp, signal });
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
    const s = this.sources;
    const files = await s.files.listKinds(roomId, ['marker-image', 'marker-thumbnail', 'marker-icon', 'raster-source']);
    const layers = await s.layers.list(roomId);
    const counts = await Promise.all([
      s.markers.count(s.db, roomId),
      s.drawings.count(s.db, roomId),
      s.comments.count(s.db, roomId),
    ]);
    return {
      bytes: files.reduce((n, f) => n + Number(f.bytes), 0) + layers.reduce((n, l) => n + Number(l.size_bytes), 0),
      rows: counts.reduce((a, b) => a + b, 0),
    };
  }

  private async localFile(key: string, releases: (() => Promise<void>)[]): Promise<string> {
    const local = await this.sources.files.localFile(key);
    releases.push(() => local.release());
    return local.path;
  }

  private async plan(roomId: string, options: ExportOptions, outputPath: string, releases: (() => Promise<void>)[]) {
    const s = this.sources;
    const room = (await s.rooms.find(roomId))!;
    const only = options.onlyLayers ? new Set(options.onlyLayers) : null;
    // A clone's export of some layers reads nothing else.
    const unlessOnly = <T>(read: () => Promise<T[]>) => (only ? Promise.resolve([] as T[]) : read());
    const [markers, drawings, comments, slides, icons, allLayers, images] = await Promise.all([
      unlessOnly(() => s.markers.list(roomId)),
      unlessOnly(() => s.drawings.list(roomId)),
      unlessOnly(() => s.comments.list(roomId)),
      unlessOnly(() => s.slides.list(roomId)),
      unlessOnly(() => s.icons.listForRoom(roomId)),
      s.layers.list(roomId),
      unlessOnly(() => s.files.listKinds(roomId, ['marker-image', 'marker-thumbnail'])),
    ]);
    const layers = only ? allLayers.filter((l) => l.kind === 'vector' && only.has(l.id)) : allLayers;
    const replies = await s.comments.repliesOf(
      roomId,
      comments.map((c) => c.id),
    );
    const taken = new Set<string>();
    const layerTables: ExportPlan['layerTables'] = [];
    const rasters: { name: string; file: string; table: string }[] = [];
    const rasterFiles: PlanValue[][] = [];
    const layerRows: PlanValue[][] = [];
    for (const layer of layers) {
      let tableName: string | null = null;
      let tilesTable: string | null = null;
      if (layer.kind === 'vector' && layer.storage_key !== null) {
        tableName = T.layerTableName(layer.name, taken);
        const fields = layer.fields ? (JSON.parse(layer.fields) as LayerField[]) : null;
        layerTables.push({
          table: tableName,
          identifier: tableName,
          description: layer.description ?? '',
          key: Number(layer.storage_key),
          featureCount: Number(layer.feature_count),
          geometryType: layerGeometryType(layer.geometry_type),
          fields,
        });
      } else if (layer.kind === 'raster' && layer.file_key) {
        if (options.includeTiles) {
          tilesTable = T.layerTableName(`${layer.name} tiles`, taken);
          rasters.push({ name: layer.name, file: await this.localFile(layer.file_key, releases), table: tilesTable });
        }
        const sourceKey = (JSON.parse(layer.raster ?? '{}') as { sourceKey?: string }).sourceKey;
        if (options.includeTiffs && sourceKey) {
          const file = await this.localFile(sourceKey, releases);
          const { size } = await stat(file);
          for (let start = 0, part = 1; start < size || part === 1; start += RASTER_PART_BYTES, part += 1) {
            rasterFiles.push([layer.id, part, { file, start, end: Math.min(size, start + RASTER_PART_BYTES) }]);
          }
        }
      }
      layerRows.push(T.valuesOf(T.LAYERS.columns, { ...layer, table_name: tableName, tiles_table: tilesTable }));
    }
    const iconRows: PlanValue[][] = [];
    for (const icon of icons) {
      const values: PlanValue[] = T.valuesOf(T.ICONS.columns, icon);
      values[values.length - 1] = { file: await this.localFile(icon.file_key, releases) };
      iconRows.push(values);
    }
    const imageRows: PlanValue[][] = [];
    for (const image of images) {
      const values: PlanValue[] = T.valuesOf(T.IMAGES.columns, image);
      values[values.length - 1] = { file: await this.localFile(image.key, releases) };
      imageRows.push(values);
    }
    const meta: [string, string][] = [
      ['format', T.EXPORT_FORMAT],
      ['version', String(T.EXPORT_VERSION)],
      ['source_room_id', roomId],
      ['exported_at', new Date().toISOString()],
      ['include_tiffs', String(options.includeTiffs)],
      ['include_tiles', String(options.includeTiles)],
    ];
    const attribute = (
      spec: { table: string; description: string; columns: T.ExportColumn[] },
      rows: PlanValue[][],
    ) => ({ ...spec, rows });
    const plan: ExportPlan = {
      outputPath,
      database: this.database,
      attributeTables: [
        attribute(T.META, meta),
        attribute(T.ROOM, [T.valuesOf(T.ROOM.columns, room)]),
        attribute(T.LAYERS, layerRows),
        attribute(
          T.COMMENTS,
          comments.map((row) => T.valuesOf(T.COMMENTS.columns, row)),
        ),
        attribute(
          T.REPLIES,
          replies.map((row) => T.valuesOf(T.REPLIES.columns, row)),
        ),
        attribute(
          T.SLIDES,
          slides.map((row) => T.valuesOf(T.SLIDES.columns, row)),
        ),
        attribute(T.ICONS, iconRows),
        attribute(T.IMAGES, imageRows),
        ...(options.includeTiffs ? [attribute(T.RASTER_FILES, rasterFiles)] : []),
      ],
      featureTables: [
        {
          ...T.MARKERS,
          geometryType: 'POINT',
          rows: markers.map((row) => ({
            geometry: { type: 'Point', coordinates: [row.longitude, row.latitude] },
            values: T.valuesOf(T.MARKERS.columns, row),
          })),
        },
        {
          ...T.DRAWINGS,
          geometryType: 'GEOMETRY',
          rows: drawings.map((row) => ({
            geometry: JSON.parse(row.geometry) as GeoJsonGeometry,
            values: T.valuesOf(T.DRAWINGS.columns, row),
          })),
        },
      ],
      layerTables,
    };
    return { plan, rasters };
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
