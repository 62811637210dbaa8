import { randomInt } from 'node:crypto';
import path from 'node:path';
import type { Actor } from '../../auth/access.js';
import type { ContentList } from '../../geo/feature-content.js';
import type { Db } from '../../db/database.js';
import type { StagedJobs } from '../../db/staged-jobs.js';
import type { GeoLimits } from '../../config.js';
import { openVectorFile, type OpenedVectorFile, type VectorTable } from '../../geo-engine/vector-open.js';
import { newId } from '../../ids.js';
import { notOnlyPoints } from '../../errors.js';
import { refusalOf } from '../ingest/geo-failures.js';
import type { IngestMeta, IngestProgress, IngestStep, SourceFile, StagedIngest } from '../ingest/ingest.js';
import type { StoredFiles } from '../files/stored-files.js';
import type { FeatureTablesRepository } from './feature-tables.js';
import { type LayerRow, type LayersRepository, NO_SOURCE, type SourceColumns } from './layers.repository.js';
import { presentVectorLayer } from './layers.presenter.js';
import { DEFAULT_STYLE, type StyleInput } from './layers.schemas.js';
import type { PointImport } from './point-import.js';
import { ingestVectorTables, type IngestDatabase } from './vector-ingest.js';

/** What the person named the layer, and how it should look. */
export interface LayerMeta extends IngestMeta {
  style?: StyleInput;
  /** GeoJSON sent in the body: a layer even of points, with `inline` as its source format. */
  inline?: boolean;
  /** A remote layer's source: its address and schedule, set as it is published. */
  remote?: SourceColumns;
  /** Read by a job nobody waits on for a refusal (a remote layer's): see OpenOptions's positionsCheckedOnRead. */
  positionsCheckedOnRead?: boolean;
  /** The members of the FeatureCollection the file holds, read already: see OpenOptions's collectionMembers. */
  collectionMembers?: Record<string, unknown>;
  /** They are the members before its features only: see OpenOptions's membersBeforeFeatures. */
  membersBeforeFeatures?: boolean;
  /** Answer the staged layer's features' content (`StagedLayerRow.content`): a refresh compares them. */
  withContent?: boolean;
}

/** A layer as stage() wrote it, with its features' content when its meta asked for it. */
export type StagedLayerRow = LayerRow & { content?: ContentList };

/** What an ingest of a vector file staged: its layers (none when it became markers). */
export type StagedLayers = StagedIngest & { layers: LayerRow[] };

/**
 * Whether a file becomes markers: sent `as=markers` (check refused anything else), or by
 * content (`as` auto or not given) when every table is of points; never GeoJSON sent inline
 * or `as=layer` (an upload's, or a remote layer's source), which make a layer even of points.
 */
function becomesMarkers(opened: OpenedVectorFile, meta: LayerMeta): boolean {
  if (meta.inline || meta.as === 'layer') return false;
  return meta.as === 'markers' || opened.tables.every((table) => table.geometryType === 'Point');
}

/** A new number naming a vector layer's own tables. */
export const storageKey = () => randomInt(1, 2 ** 47);

export interface LayerIngestOptions {
  db: Db;
  layers: LayersRepository;
  features: FeatureTablesRepository;
  points: PointImport;
  staged: StagedJobs;
  database: IngestDatabase;
  tmpDir: string;
  /** The owner's quota, checked again once the feature tables are written (they count, not the file). */
  quota: Pick<StoredFiles, 'assertRoomFor'>;
  geo: GeoLimits;
}

/**
 * The ingest step of vector files (modules/ingest runs it): a file whose every feature is a
 * point becomes markers (point-import.ts), unless it is sent `as=layer`; otherwise each
 * feature table becomes a vector layer whose features are stored in tables of its own by the
 * ingest worker. Everything is written staged under `stageId` (a job's id); the ingest makes
 * it visible in one write-path step with its history entries and live events;
 * `undo(stageId)` removes what an interrupted run wrote.
 */
export class LayerIngest implements IngestStep<OpenedVectorFile, LayerMeta, StagedLayers> {
  private readonly db: Db;
  private readonly layers: LayersRepository;

  constructor(private readonly options: LayerIngestOptions) {
    this.db = options.db;
    this.layers = options.layers;
  }

  /**
   * Opens the file: refuses it (VectorRejected) when it is not a vector file the service takes,
   * and, sent `as=markers`, when a table holds anything but points (400 `not_points`).
   */
  async check(source: SourceFile, meta?: LayerMeta): Promise<OpenedVectorFile> {
    const opened = await openVectorFile(source.path, source.fileName, this.options.geo, {
      sourceCrs: meta?.sourceCrs ?? null,
      positionsCheckedOnRead: meta?.positionsCheckedOnRead ?? false,
      ...(meta?.collectionMembers && {
        collectionMembers: meta.collectionMembers,
        membersBeforeFeatures: meta.membersBeforeFeatures ?? false,
      }),
    });
    const other = opened.tables.find((table) => table.geometryType !== 'Point');
    if (meta?.as === 'markers' && other) {
      const kind = other.geometryType && other.geometryType !== 'Mixed' ? other.geometryType : 'non-point';
      throw notOnlyPoints(`${other.label} holds ${kind} features`);
    }
    return opened;
  }

  /** Opens the file, or refuses it with the documented error (415, 400). */
  async open(source: SourceFile, meta?: LayerMeta): Promise<OpenedVectorFile> {
    try {
      return await this.check(source, meta);
    } catch (error) {
      throw refusalOf(error);
    }
  }

  async stageFile(
    roomId: string,
    actor: Actor,
    opened: OpenedVectorFile,
    meta: LayerMeta,
    stageId: string,
    progress: IngestProgress,
  ): Promise<StagedLayers> {
    if (becomesMarkers(opened, meta)) {
      return { layers: [], ...(await this.options.points.stageFile(roomId, actor, opened.tables, stageId, progress)) };
    }
    const several = opened.tables.length > 1;
    const named = opened.tables.map((table) => ({
      table,
      meta: { ...meta, layerName: several ? `${meta.layerName} – ${table.name}`.slice(0, 200) : meta.layerName },
    }));
    const sourceFormat = meta.inline ? 'inline' : opened.format;
    const rows = await this.stage(roomId, actor, named, stageId, sourceFormat, progress);
    const layers = rows.map(presentVectorLayer);
    const layerIds = rows.map((row) => row.id);
    return {
      layers: rows,
      changes: layers.map((layer) => ({
        type: 'layer.created',
        objectType: 'layer',
        objectId: layer.id,
        changes: { name: layer.name, featureCount: layer.featureCount },
        data: layer,
      })),
      answer: async () => ({ layer: layers[0] ?? null, layers }),
      done: {
        message: `The layer${layerIds.length > 1 ? 's are' : ' is'} ready`,
        result: { layerId: layerIds[0], layerIds },
      },
    };
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
  ): Promise<StagedLayerRow[]> {
    const now = Date.now();
    // A file's tables a millisecond apart, its first the newest: the page shows the newest layer
    // on top, so they read top to bottom in the file's order.
    const rows: LayerRow[] = tables.map(({ table, meta }, i) => ({
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
      last_row: 0,
      bbox: null,
      source_format: sourceFormat,
      source_crs: table.sourceCrs,
      size_bytes: 0,
      raster: null,
      file_key: null,
      job_id: stageId,
      fields: null,
      ...(meta.remote ?? NO_SOURCE),
      created_by: actor.id,
      created_at: now - i,
      updated_at: now - i,
    }));
    await this.layers.insert(this.db, rows);
    const results = await ingestVectorTables(
      {
        tables: rows.map((row, i) => ({
          table: tables[i]!.table,
          key: row.storage_key!,
          content: tables[i]!.meta.withContent ?? false,
        })),
        database: this.options.database,
        stagingDir: path.join(this.options.tmpDir, 'staging'),
        parts: 2,
        limits: this.options.geo,
      },
      { signal: progress.signal, onProgress: (fraction, message) => progress.onProgress?.(fraction * 100, message) },
    );
    for (const [i, result] of results.entries()) {
      const row = rows[i]!;
      Object.assign(row, {
        feature_count: result.featureCount,
        last_row: result.featureCount,
        geometry_type: result.geometryType ?? row.geometry_type,
        bbox: result.bbox ? JSON.stringify(result.bbox) : null,
        size_bytes: result.sizeBytes,
        fields: JSON.stringify(result.fields),
      });
      const { feature_count, last_row, geometry_type, bbox, size_bytes, fields } = row;
      await this.layers.update(this.db, row.id, { feature_count, last_row, geometry_type, bbox, size_bytes, fields });
      await this.layers.insertChunks(this.db, row.id, result.chunks);
    }
    const staged: StagedLayerRow[] = rows.map((row, i) => ({ ...row, content: results[i]!.content }));
    // The tables, staged, already count: a file that expanded past the quota is refused (413) and undone.
    await this.options.quota.assertRoomFor(roomId, 0);
    return staged;
  }

  /** Removes what a run under `stageId` wrote (never visible): layers and their tables, markers. */
  async undo(stageId: string): Promise<void> {
    for (const row of await this.layers.byJob(stageId)) {
      if (row.storage_key !== null) await this.options.features.drop(this.db, Number(row.storage_key));
      await this.layers.deleteRow(this.db, row.id);
    }
    await this.options.points.undo(stageId);
    await this.options.staged.end(stageId);
  }
}
