import { mkdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Actor } from '../../auth/access.js';
import type { Db } from '../../db/database.js';
import type { StagedJobs } from '../../db/staged-jobs.js';
import { AppError } from '../../errors.js';
import { GdalError } from '../../geo-engine/gdal-process.js';
import { applyDisplay, type RasterDisplay } from '../../geo/raster/display.js';
import { displayProblems } from './raster-display.js';
import { ingestRaster, type IngestedRaster } from '../../geo-engine/raster-ingest.js';
import { RasterRejected, type RasterInfo } from '../../geo/raster/raster-info.js';
import { inspectRaster } from '../../geo-engine/raster-inspect.js';
import type { RasterTiles } from '../../geo-engine/raster-tiles.js';
import type { GeoLimits } from '../../config.js';
import { newId } from '../../ids.js';
import type { JobContext } from '../../infra/job-queue.js';
import type { StoredFiles } from '../files/stored-files.js';
import type { WritePath } from '../history/write-path.js';
import type { LayerMeta, SourceFile } from '../layers/layer-ingest.js';
import { looksLikeTiff, type RasterUploads } from '../layers/layer-uploads.js';
import { presentRasterLayer, type RasterFactsColumn } from '../layers/layers.presenter.js';
import type { LayerRow, LayersRepository } from '../layers/layers.repository.js';
import { refuseProblems } from './rasters.service.js';

/** The folder of a raster layer's files in the blob store (what layer deletion removes). */
export const rasterFolder = (roomId: string, layerId: string) => `layers/${roomId}/${layerId}/`;

/** A refused upload as the documented error: 400 with GDAL's reason and a stable code. */
function refusal(error: unknown): unknown {
  if (error instanceof RasterRejected) return new AppError(400, error.code, error.message);
  if (error instanceof GdalError && (error.failure === 'timeout' || error.failure === 'memory')) {
    return new AppError(
      400,
      'unsupported_raster',
      `The GeoTIFF could not be processed within the limits: ${error.reason}`,
    );
  }
  return error;
}

/**
 * GeoTIFF uploads (`POST /api/layers/upload`, chunked uploads through the `layer-upload`
 * job): check the file and the `display` before anything is kept, make the raster tileable
 * (geo/raster/ingest.ts), store the original and the tileable file under the layer's folder
 * (both count against the quota), and publish the layer row staged under `stageId` in one
 * write-path step (`rasterLayer.created`). `undo(stageId)` removes what a run wrote.
 */
export class GeoTiffUploads implements RasterUploads {
  constructor(
    private readonly db: Db,
    private readonly layers: LayersRepository,
    private readonly files: StoredFiles,
    private readonly staged: StagedJobs,
    private readonly writePath: WritePath,
    private readonly tmpDir: string,
    private readonly tiles: RasterTiles,
    private readonly geo: GeoLimits,
  ) {}

  async isRaster(source: SourceFile): Promise<boolean> {
    return /\.tiff?$/i.test(source.fileName) || looksLikeTiff(source.path);
  }

  /** Refuses a file that is not a georeferenced GeoTIFF, or a display that does not fit it (400 naming the key). */
  async check(source: SourceFile, display: unknown): Promise<void> {
    let info: RasterInfo;
    try {
      info = await inspectRaster(source.path, this.geo.quick, this.geo.rasterMaxPixels);
    } catch (error) {
      throw refusal(error);
    }
    if (display !== null && display !== undefined)
      refuseProblems(displayProblems(display, { ...info, stats: [] }), 'display');
  }

  async run(
    roomId: string,
    actor: Actor,
    source: SourceFile,
    meta: LayerMeta & { display: unknown },
    stageId: string,
    job?: JobContext<unknown>,
  ) {
    await this.undo(stageId);
    await this.staged.begin(stageId, roomId);
    try {
      const row = await this.stage(roomId, actor, source, meta, stageId, job);
      const display = JSON.parse(row.display!) as RasterDisplay;
      void job?.progress(99, 'Publishing the layer');
      const layer = presentRasterLayer(row);
      await this.writePath.write(roomId, actor, async (trx) => {
        await this.staged.publish(trx, stageId);
        // Published: the row belongs to no job any more (an undo of the job must not take it).
        await this.layers.update(trx, row.id, { job_id: null });
        return {
          result: null,
          changes: [
            {
              type: 'rasterLayer.created',
              objectType: 'rasterLayer',
              objectId: row.id,
              changes: { name: row.name, display },
              data: layer,
            },
          ],
        };
      });
      return { layerId: row.id, answer: { rasterLayer: layer, layer: null } };
    } catch (error) {
      if (!job?.signal.aborted) await this.undo(stageId);
      throw refusal(error);
    }
  }

  /**
   * Makes the GeoTIFF tileable and stores the layer staged under `stageId` (registered by the
   * caller, who publishes it), with `meta.display` applied over the default display.
   */
  async stage(
    roomId: string,
    actor: Actor,
    source: SourceFile,
    meta: LayerMeta & { display: unknown },
    stageId: string,
    job?: JobContext<unknown>,
  ): Promise<LayerRow> {
    await mkdir(path.join(this.tmpDir, 'rasters'), { recursive: true });
    const tileable = path.join(this.tmpDir, 'rasters', `${stageId}-${newId('tiles')}.tif`);
    try {
      const onProgress = (fraction: number) =>
        void job?.progress(Math.round(fraction * 95), 'Making the raster tileable');
      const raster = await ingestRaster(source.path, tileable, this.geo, { signal: job?.signal, onProgress });
      const given = (meta.display ?? {}) as RasterDisplay;
      refuseProblems(displayProblems(given, raster), 'display');
      const display = applyDisplay(raster.display, given, raster);
      refuseProblems(displayProblems(display, raster), 'display');
      return await this.store(roomId, actor, source, tileable, raster, meta, display, stageId);
    } catch (error) {
      throw refusal(error);
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
    meta: LayerMeta,
    display: RasterDisplay,
    stageId: string,
  ) {
    const id = newId('layer');
    const folder = rasterFolder(roomId, id);
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
      sourceKey: `${folder}source.tif`,
      sizeBytes: sourceBytes + raster.sizeBytes,
    };
    const now = Date.now();
    const row: LayerRow = {
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
      bbox: JSON.stringify(raster.bbox),
      source_format: 'geotiff',
      source_crs: raster.sourceCrs,
      // The files are stored files, which the quota counts; counting them here too would be twice.
      size_bytes: 0,
      raster: JSON.stringify(facts),
      file_key: `${folder}tiles.tif`,
      job_id: stageId,
      fields: null,
      created_by: actor.id,
      created_at: now,
      updated_at: now,
    };
    await this.layers.insert(this.db, [row]);
    const file = { roomId, contentType: 'image/tiff' };
    await this.files.store([
      { ...file, key: facts.sourceKey, kind: 'raster-source', path: source.path, bytes: sourceBytes },
      { ...file, key: row.file_key!, kind: 'raster-tiles', path: tileable, bytes: raster.sizeBytes },
    ]);
    return row;
  }

  /** Removes what a run under `stageId` wrote (never visible): its raster rows and their files. */
  async undo(stageId: string): Promise<void> {
    for (const row of await this.layers.byJob(stageId)) {
      if (row.kind !== 'raster') continue;
      if (row.file_key) {
        const local = await this.files.blobs.localFile(row.file_key);
        await this.tiles.forget(local.path);
        await local.release();
      }
      await this.files.removeUnder(row.room_id, rasterFolder(row.room_id, row.id));
      await this.layers.deleteRow(this.db, row.id);
    }
    await this.staged.end(stageId);
  }
}
