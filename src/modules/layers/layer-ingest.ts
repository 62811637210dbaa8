import { randomInt } from 'node:crypto';
import type { GeoLimits } from '../../config.js';
import path from 'node:path';
import type { Actor } from '../../auth/access.js';
import type { Db } from '../../db/database.js';
import type { StagedJobs } from '../../db/staged-jobs.js';
import { AppError } from '../../errors.js';
import {
  openVectorFile,
  VectorRejected,
  type OpenedVectorFile,
  type VectorTable,
} from '../../geo-engine/vector-open.js';
import { newId } from '../../ids.js';
import type { WritePath } from '../history/write-path.js';
import type { FeatureTablesRepository } from './feature-tables.js';
import type { StoredFiles } from '../files/stored-files.js';
import type { LayerRow, LayersRepository } from './layers.repository.js';
import { presentVectorLayer } from './layers.presenter.js';
import { DEFAULT_STYLE, type StyleInput } from './layers.schemas.js';
import type { PointImport } from './point-import.js';
import { ingestVectorTables, type IngestDatabase } from './vector-ingest.js';

/** An uploaded file on local disk, and the name it was sent under (its extension tells formats apart). */
export interface SourceFile {
  path: string;
  fileName: string;
}

/** What the person named the layer, and how it should look. */
export interface LayerMeta {
  layerName: string;
  description?: string | null;
  style?: StyleInput;
}

export interface IngestProgress {
  signal?: AbortSignal;
  onProgress?: (percent: number, message: string) => void;
}

export type IngestOutcome =
  | { kind: 'layers'; layers: LayerRow[] }
  | { kind: 'markers'; markersCreated: number; markerIds: string[] };

/** An uploaded file the service refuses, as the documented error: 415 for a format it does not take, else 400. */
export function refusalOf(error: VectorRejected): AppError {
  return new AppError(error.code === 'unsupported_format' ? 415 : 400, error.code, error.message, error.details);
}

const storageKey = () => randomInt(1, 2 ** 47);

/**
 * Turns an uploaded vector file into the room's content: a file whose every feature is a
 * point becomes markers (point-import.ts); otherwise each feature table becomes a vector
 * layer whose features are stored in tables of its own by the ingest worker. Everything is
 * written staged under `stageId` (a job's id) and made visible in one write-path step with
 * its history entries and live events; `undo(stageId)` removes what an interrupted run wrote.
 */
export class LayerIngest {
  constructor(
    private readonly db: Db,
    private readonly layers: LayersRepository,
    private readonly features: FeatureTablesRepository,
    private readonly points: PointImport,
    private readonly staged: StagedJobs,
    private readonly writePath: WritePath,
    private readonly database: IngestDatabase,
    private readonly tmpDir: string,
    /** The owner's quota, checked again once the feature tables are written (they count, not the file). */
    private readonly quota: Pick<StoredFiles, 'assertRoomFor'>,
    private readonly geo: GeoLimits,
  ) {}

  /** Opens the file, or refuses it with the documented error (415, 400). */
  async open(source: SourceFile): Promise<OpenedVectorFile> {
    try {
      return await openVectorFile(source.path, source.fileName, this.geo);
    } catch (error) {
      throw error instanceof VectorRejected ? refusalOf(error) : error;
    }
  }

  /**
   * Stores the opened file under `stageId` and publishes it. `asLayer` (inline GeoJSON) makes
   * a layer even of points, with `inline` as its source format.
   */
  async run(
    roomId: string,
    actor: Actor,
    opened: OpenedVectorFile,
    meta: LayerMeta,
    stageId: string,
    progress: IngestProgress = {},
    asLayer = false,
  ): Promise<IngestOutcome> {
    await this.undo(stageId);
    await this.staged.begin(stageId, roomId);
    try {
      if (!asLayer && opened.tables.every((table) => table.geometryType === 'Point')) {
        return { kind: 'markers', ...(await this.points.run(roomId, actor, opened.tables, stageId, progress)) };
      }
      return {
        kind: 'layers',
        layers: await this.storeLayers(
          roomId,
          actor,
          opened,
          meta,
          stageId,
          progress,
          asLayer ? 'inline' : opened.format,
        ),
      };
    } catch (error) {
      if (!progress.signal?.aborted) await this.undo(stageId);
      throw error instanceof VectorRejected ? refusalOf(error) : error;
    }
  }

  private async storeLayers(
    roomId: string,
    actor: Actor,
    opened: OpenedVectorFile,
    meta: LayerMeta,
    stageId: string,
    progress: IngestProgress,
    sourceFormat: string,
  ) {
    const several = opened.tables.length > 1;
    const named = opened.tables.map((table) => ({
      table,
      meta: { ...meta, layerName: several ? `${meta.layerName} – ${table.name}`.slice(0, 200) : meta.layerName },
    }));
    const rows = await this.stage(roomId, actor, named, stageId, sourceFormat, progress);
    await this.writePath.write(roomId, actor, async (trx) => {
      await this.staged.publish(trx, stageId);
      return {
        result: null,
        changes: rows.map((row) => {
          const layer = presentVectorLayer(row);
          return {
            type: 'layer.created',
            objectType: 'layer',
            objectId: row.id,
            changes: { name: row.name, featureCount: layer.featureCount },
            data: layer,
          };
        }),
      };
    });
    return rows;
  }

  /**
   * Stores tables as layers staged under `stageId` (registered by the caller), each with its
   * name, description and style, and checks the quota; the caller publishes them.
   */
  async stage(
    roomId: string,
    actor: Actor,
    tables: { table: VectorTable; meta: LayerMeta }[],
    stageId: string,
    sourceFormat: string,
    progress: IngestProgress = {},
  ): Promise<LayerRow[]> {
    const now = Date.now();
    const rows: LayerRow[] = tables.map(({ table, meta }) => ({
      id: newId('layer'),
      room_id: roomId,
      kind: 'vector',
      storage_key: storageKey(),
      name: meta.layerName,
      description: meta.description ?? null,
      style: JSON.stringify({ ...DEFAULT_STYLE, ...meta.style }),
      display: null,
      geometry_type: table.geometryType,
      feature_count: 0,
      bbox: null,
      source_format: sourceFormat,
      source_crs: table.sourceCrs,
      size_bytes: 0,
      raster: null,
      file_key: null,
      job_id: stageId,
      fields: null,
      created_by: actor.id,
      created_at: now,
      updated_at: now,
    }));
    await this.layers.insert(this.db, rows);
    const results = await ingestVectorTables(
      {
        tables: rows.map((row, i) => ({ table: tables[i]!.table, key: row.storage_key! })),
        database: this.database,
        stagingDir: path.join(this.tmpDir, 'staging'),
        parts: 2,
        limits: this.geo,
      },
      { signal: progress.signal, onProgress: (fraction, message) => progress.onProgress?.(fraction * 100, message) },
    );
    for (const [i, result] of results.entries()) {
      const row = rows[i]!;
      Object.assign(row, {
        feature_count: result.featureCount,
        geometry_type: result.geometryType ?? row.geometry_type,
        bbox: result.bbox ? JSON.stringify(result.bbox) : null,
        size_bytes: result.sizeBytes,
        fields: JSON.stringify(result.fields),
      });
      const { feature_count, geometry_type, bbox, size_bytes, fields } = row;
      await this.layers.update(this.db, row.id, { feature_count, geometry_type, bbox, size_bytes, fields });
      await this.layers.insertChunks(this.db, row.id, result.chunks);
    }
    // The tables, staged, already count: a file that expanded past the quota is refused (413) and undone.
    await this.quota.assertRoomFor(roomId, 0);
    return rows;
  }

  /** Removes what a run under `stageId` wrote (never visible): layers and their tables, markers. */
  async undo(stageId: string): Promise<void> {
    for (const row of await this.layers.byJob(stageId)) {
      if (row.storage_key !== null) await this.features.drop(this.db, Number(row.storage_key));
      await this.layers.deleteRow(this.db, row.id);
    }
    await this.points.undo(stageId);
    await this.staged.end(stageId);
  }
}
