import { mkdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Actor } from '../../auth/access.js';
import type { Db } from '../../db/database.js';
import type { StagedJobs } from '../../db/staged-jobs.js';
import type { GeoLimits } from '../../config.js';
import { applyDisplay, type RasterDisplay } from '../../geo/raster/display.js';
import { ingestRaster, type IngestedRaster } from '../../geo-engine/raster-ingest.js';
import { inspectRaster } from '../../geo-engine/raster-inspect.js';
import type { RasterTiles } from '../../geo-engine/raster-tiles.js';
import { displayProblems } from './raster-display.js';
import { newId } from '../../ids.js';
import { blobKeys } from '../files/blob-keys.js';
import type { StoredFiles } from '../files/stored-files.js';
import { rasterRefusalOf } from '../ingest/geo-failures.js';
import type { IngestMeta, IngestProgress, IngestStep, SourceFile, StagedIngest } from '../ingest/ingest.js';
import { presentRasterLayer, type RasterFactsColumn } from './rasters.presenter.js';
import type { RasterRow, RastersRepository } from './rasters.repository.js';
import { refuseProblems } from './rasters.service.js';

/** A GeoTIFF that passed the check, with the pixels times bands its header declares (alpha counted). */
export interface CheckedRaster extends SourceFile {
  pixels: number;
}

export interface RasterIngestOptions {
  db: Db;
  rasters: RastersRepository;
  files: StoredFiles;
  staged: StagedJobs;
  tmpDir: string;
  tiles: RasterTiles;
  geo: GeoLimits;
}

/**
 * The ingest step of GeoTIFFs (modules/ingest runs it; exports and clones stage with it):
 * check the file and the `display` before anything is kept, make the raster tileable
 * (geo/raster/ingest.ts), store the original and the tileable file under the layer's folder
 * (both count against the quota), and stage the layer row under `stageId`, which the ingest
 * publishes (`rasterLayer.created`). `undo(stageId)` removes what a run wrote.
 */
export class RasterIngest implements IngestStep<CheckedRaster, IngestMeta, StagedIngest> {
  private readonly db: Db;
  private readonly rasters: RastersRepository;
  private readonly files: StoredFiles;

  constructor(private readonly options: RasterIngestOptions) {
    this.db = options.db;
    this.rasters = options.rasters;
    this.files = options.files;
  }

  /**
   * Refuses a file that is not a georeferenced GeoTIFF, one over RASTER_MAX_PIXELS, or a display
   * that does not fit it (400 naming the key); counts the pixels its header declares.
   */
  async check(source: SourceFile, meta: IngestMeta): Promise<CheckedRaster> {
    const info = await inspectRaster(source.path, this.options.geo.quick, this.options.geo.rasterMaxPixels).catch(
      (error: unknown) => {
        throw rasterRefusalOf(error);
      },
    );
    const { display } = meta;
    if (display !== null && display !== undefined)
      refuseProblems(displayProblems(display, { ...info, stats: [] }), 'display');
    return { ...source, pixels: info.width * info.height * (info.bands + (info.hasAlpha ? 1 : 0)) };
  }

  /** Whether the warp of a checked GeoTIFF is a job's (more than RASTER_SYNC_MAX_PIXELS pixels times bands). */
  needsJob(checked: CheckedRaster): boolean {
    return checked.pixels > this.options.geo.rasterSyncMaxPixels;
  }

  async stageFile(
    roomId: string,
    actor: Actor,
    source: SourceFile,
    meta: IngestMeta,
    stageId: string,
    progress: IngestProgress,
  ): Promise<StagedIngest> {
    const row = await this.stage(roomId, actor, source, meta, stageId, progress);
    const display = JSON.parse(row.display!) as RasterDisplay;
    progress.onProgress?.(99, 'Publishing the layer');
    const layer = presentRasterLayer(row);
    return {
      changes: [
        {
          type: 'rasterLayer.created',
          objectType: 'rasterLayer',
          objectId: row.id,
          changes: { name: row.name, display },
          data: layer,
        },
      ],
      // Published: the row belongs to no job any more (an undo of the job must not take it).
      publish: (trx) => this.rasters.update(trx, row.id, { job_id: null }),
      answer: async () => ({ rasterLayer: layer, layer: null }),
      done: { message: 'The raster layer is ready', result: { layerId: row.id, layerIds: [row.id] } },
    };
  }

  /**
   * Makes the GeoTIFF tileable and stores the layer staged under `stageId` (registered by the
   * caller, who publishes it), with `meta.display` applied over the default display.
   */
  async stage(
    roomId: string,
    actor: Actor,
    source: SourceFile,
    meta: IngestMeta,
    stageId: string,
    progress: IngestProgress = {},
  ): Promise<RasterRow> {
    await mkdir(path.join(this.options.tmpDir, 'rasters'), { recursive: true });
    const tileable = path.join(this.options.tmpDir, 'rasters', `${stageId}-${newId('tiles')}.tif`);
    try {
      const onProgress = (fraction: number) =>
        progress.onProgress?.(Math.round(fraction * 95), 'Making the raster tileable');
      const raster = await ingestRaster(source.path, tileable, this.options.geo, {
        signal: progress.signal,
        onProgress,
      });
      const given = (meta.display ?? {}) as RasterDisplay;
      refuseProblems(displayProblems(given, raster), 'display');
      const display = applyDisplay(raster.display, given, raster);
      refuseProblems(displayProblems(display, raster), 'display');
      return await this.store(roomId, actor, source, tileable, raster, meta, display, stageId);
    } catch (error) {
      throw rasterRefusalOf(error);
    } finally {
      await rm(tileable, { force: true });
    }
  }

  /**
   * Writes the staged row, then moves the uploaded GeoTIFF and the tileable file into the
   * layer's folder (the row first, so that undo finds the files through it).
   */
  private async store(
    roomId: string,
    actor: Actor,
    source: SourceFile,
    tileable: string,
    raster: IngestedRaster,
    meta: IngestMeta,
    display: RasterDisplay,
    stageId: string,
  ) {
    const id = newId('layer');
    const sourceBytes = (await stat(source.path)).size;
    const facts: RasterFactsColumn & Record<string, unknown> = {
      width: raster.width,
      height: raster.height,
      bands: raster.bands,
      dataType: raster.dataType,
      sourceDataType: raster.sourceDataType,
      nodata: raster.nodata,
      hasAlpha: raster.hasAlpha,
      crsAssumed: raster.crsAssumed,
      stats: raster.stats,
      minZoom: raster.minZoom,
      maxZoom: raster.maxZoom,
      sourceKey: blobKeys.rasterSource(roomId, id),
      sizeBytes: sourceBytes + raster.sizeBytes,
    };
    const now = Date.now();
    const row: RasterRow = {
      id,
      room_id: roomId,
      kind: 'raster',
      storage_key: null,
      name: meta.layerName,
      description: meta.description ?? null,
      style: null,
      display: JSON.stringify(display),
      geometry_type: null,
      feature_count: 0,
      last_row: 0,
      bbox: JSON.stringify(raster.bbox),
      source_format: 'geotiff',
      source_crs: raster.sourceCrs,
      // The files are stored files, which the quota counts; counting them here too would be twice.
      size_bytes: 0,
      raster: JSON.stringify(facts),
      file_key: blobKeys.rasterTiles(roomId, id),
      job_id: stageId,
      fields: null,
      // A raster is never read from an address.
      source_url: null,
      refresh_minutes: null,
      last_refresh_at: null,
      last_attempt_at: null,
      last_error: null,
      refresh_job_id: null,
      created_by: actor.id,
      created_at: now,
      updated_at: now,
    };
    await this.rasters.insert(this.db, [row]);
    const file = { roomId, contentType: 'image/tiff' };
    await this.files.store([
      { ...file, key: facts.sourceKey, kind: 'raster-source', path: source.path, bytes: sourceBytes },
      { ...file, key: row.file_key!, kind: 'raster-tiles', path: tileable, bytes: raster.sizeBytes },
    ]);
    return row;
  }

  /** Removes what a run under `stageId` wrote (never visible): its raster rows and their files. */
  async undo(stageId: string): Promise<void> {
    for (const row of await this.rasters.byJob(stageId)) {
      if (row.file_key) await this.options.tiles.forget(row.file_key);
      await this.files.removeUnder(row.room_id, blobKeys.layerFolder(row.room_id, row.id));
      await this.rasters.deleteRow(this.db, row.id);
    }
    await this.options.staged.end(stageId);
  }
}
