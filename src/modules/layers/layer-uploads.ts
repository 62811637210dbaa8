import { open } from 'node:fs/promises';
import path from 'node:path';
import { Type } from 'typebox';
import { actorOf, type Actor, type Caller } from '../../auth/access.js';
import type { RoomRow } from '../../db/tables.js';
import { invalidField } from '../../errors.js';
import { newId } from '../../ids.js';
import { JobFailure, type JobContext, type JobQueue, type JobType } from '../../infra/job-queue.js';
import { SchemaCheck } from '../../schema-problems.js';
import type { StoredFiles } from '../files/stored-files.js';
import { presentMarker } from '../markers/markers.presenter.js';
import type { MarkersRepository } from '../markers/markers.repository.js';
import type { IngestOutcome, LayerIngest, LayerMeta, SourceFile } from './layer-ingest.js';
import { presentVectorLayer } from './layers.presenter.js';
import { StyleInput } from './layers.schemas.js';

/** The interface's cap on one request; bigger files go through chunked upload. */
export const UPLOAD_MAX_BYTES = 50 * 1024 * 1024;
/** Files up to this size are processed while the client waits; bigger ones are a job (202). */
export const SYNC_MAX_BYTES = 5 * 1024 * 1024;
export const LAYER_UPLOAD_KIND = 'layer-upload';

const Payload = Type.Object({
  fileKey: Type.String(),
  fileName: Type.String(),
  layerName: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  style: Type.Record(Type.String(), Type.Unknown()),
  display: Type.Union([Type.Unknown(), Type.Null()]),
});
type Payload = {
  fileKey: string;
  fileName: string;
  layerName: string;
  description: string | null;
  style: Record<string, unknown>;
  display: unknown;
};

/** What an upload's form says besides the file. */
export interface UploadFields {
  layerName?: string;
  description?: string;
  style?: string;
  display?: string;
}

/** Rasters (GeoTIFF) take their own path (modules/rasters); vector files take LayerIngest's. */
export interface RasterUploads {
  isRaster(source: SourceFile): Promise<boolean>;
  /** Checks the file and the display before anything is kept (400 with the reason). */
  check(source: SourceFile, display: unknown): Promise<void>;
  run(
    roomId: string,
    actor: Actor,
    source: SourceFile,
    meta: LayerMeta & { display: unknown },
    stageId: string,
    job?: JobContext<unknown>,
  ): Promise<{ layerId: string; answer: unknown }>;
  undo(stageId: string): Promise<void>;
}

/** Checks a layer style (an upload's `style` field, a style restored from an export). */
export const styleCheck = new SchemaCheck(StyleInput);

/** The upload's text fields as a layer's metadata: `style` and `display` are JSON texts. */
export function layerMetaOf(fields: UploadFields, fileName: string): LayerMeta & { display: unknown } {
  const parse = (name: 'style' | 'display'): unknown => {
    const text = fields[name];
    if (text === undefined || text.trim() === '') return undefined;
    try {
      return JSON.parse(text);
    } catch {
      throw invalidField(name, 'must be a JSON object');
    }
  };
  const style = parse('style') ?? {};
  const problem = styleCheck.problem(style);
  if (problem) throw invalidField('style', problem.replace(/^(\w+) /, 'key $1 '));
  // `districts.shp.zip` is the layer "districts", like `districts.geojson`.
  const layerName = (fields.layerName ?? '').trim() || path.parse(fileName).name.replace(/\.shp$/i, '') || 'Layer';
  return {
    layerName,
    description: fields.description?.trim() || null,
    style: style as StyleInput,
    display: parse('display') ?? null,
  };
}

/** The stored-file kind of an upload waiting for its job. */
export const QUEUED_UPLOAD_KIND = 'queued-upload';

/**
 * `POST /api/layers/upload` and chunked uploads: a file becomes markers, vector layers or a
 * raster layer. Files up to SYNC_MAX_BYTES are processed at once; bigger ones wait in the
 * blob store (counting against the owner's quota) for a `layer-upload` job, which callers
 * poll at /api/layers/jobs/:jobId.
 */
export class LayerUploads {
  private readonly uploads: JobType<Payload>;

  constructor(
    private readonly files: StoredFiles,
    jobs: JobQueue,
    private readonly ingest: LayerIngest,
    private readonly markers: MarkersRepository,
    private readonly rasters: RasterUploads,
  ) {
    this.uploads = jobs.register(
      LAYER_UPLOAD_KIND,
      Payload,
      (job) => this.runJob(job),
      (job, payload) => this.undoJob({ id: job.id, roomId: job.room_id }, payload),
    );
  }

  /** An uploaded file (a temporary file the caller removes afterwards). */
  async upload(room: RoomRow, caller: Caller, source: SourceFile & { bytes: number }, fields: UploadFields) {
    const meta = layerMetaOf(fields, source.fileName);
    await this.files.assertRoomFor(room.id, source.bytes);
    if (source.bytes > SYNC_MAX_BYTES)
      return { status: 202 as const, body: await this.queue(room, caller, source, meta) };
    const actor = actorOf(caller);
    const stageId = newId('upload');
    if (await this.rasters.isRaster(source)) {
      await this.rasters.check(source, meta.display);
      return { status: 200 as const, body: (await this.rasters.run(room.id, actor, source, meta, stageId)).answer };
    }
    const opened = await this.ingest.open(source);
    return {
      status: 200 as const,
      body: await this.answer(room.id, await this.ingest.run(room.id, actor, opened, meta, stageId)),
    };
  }

  /** Keeps the file in the blob store and queues its job: 202 `{jobId}`. */
  async queue(
    room: RoomRow,
    caller: Caller,
    source: SourceFile & { bytes: number },
    meta: LayerMeta & { display: unknown },
  ) {
    if (await this.rasters.isRaster(source)) await this.rasters.check(source, meta.display);
    else await this.ingest.open(source); // a file that is refused is refused now, not in a job
    const jobId = newId('job');
    const fileKey = `uploads/${room.id}/${jobId}${path
      .extname(source.fileName)
      .toLowerCase()
      .replace(/[^.a-z0-9]/g, '')}`;
    // Counted against the quota while it waits, so that queued files cannot pile up past it.
    await this.files.store([
      {
        roomId: room.id,
        key: fileKey,
        kind: QUEUED_UPLOAD_KIND,
        contentType: 'application/octet-stream',
        path: source.path,
        bytes: source.bytes,
      },
    ]);
    const payload = {
      fileKey,
      fileName: source.fileName,
      layerName: meta.layerName,
      description: meta.description ?? null,
      style: meta.style ?? {},
      display: meta.display,
    };
    try {
      await this.uploads.enqueue({ id: jobId, roomId: room.id, payload, actor: actorOf(caller) });
    } catch (error) {
      await this.files.remove(room.id, [fileKey]);
      throw error;
    }
    return { jobId };
  }

  /** The answer of a processed upload (the interface's shapes by content). */
  private async answer(roomId: string, outcome: IngestOutcome) {
    if (outcome.kind === 'markers') {
      const markers = await this.markers.findMany(roomId, outcome.markerIds);
      return { markersCreated: outcome.markersCreated, markers: markers.map(presentMarker), layer: null };
    }
    const layers = outcome.layers.map(presentVectorLayer);
    return { layer: layers[0] ?? null, layers };
  }

  private async runJob(job: JobContext<Payload>) {
    const { fileKey, fileName, layerName, description, style, display } = job.payload;
    // From here on the layers, markers or raster files the job stores count instead.
    await this.files.uncount(job.roomId, fileKey);
    const local = await this.files.blobs.localFile(fileKey);
    const source = { path: local.path, fileName };
    const meta = { layerName, description, style: style as StyleInput, display };
    const progress = {
      signal: job.signal,
      onProgress: (percent: number, message: string) => void job.progress(percent, message),
    };
    try {
      if (await this.rasters.isRaster(source)) {
        const { layerId } = await this.rasters.run(
          job.roomId,
          job.actor,
          source,
          meta,
          job.id,
          job as JobContext<unknown>,
        );
        return { message: 'The raster layer is ready', result: { layerId, layerIds: [layerId] } };
      }
      const opened = await this.ingest.open(source);
      const outcome = await this.ingest.run(job.roomId, job.actor, opened, meta, job.id, progress);
      await this.files.blobs.delete(fileKey);
      if (outcome.kind === 'markers')
        return {
          message: `Created ${outcome.markersCreated} markers`,
          result: { markersCreated: outcome.markersCreated },
        };
      const layerIds = outcome.layers.map((l) => l.id);
      return {
        message: `The layer${layerIds.length > 1 ? 's are' : ' is'} ready`,
        result: { layerId: layerIds[0], layerIds },
      };
    } catch (error) {
      if (job.signal.aborted) throw error;
      await this.undoJob(job, job.payload);
      const known = error as { statusCode?: number; message?: string };
      if (known.statusCode && known.statusCode < 500) throw new JobFailure(known.message ?? 'The file was refused');
      throw error;
    } finally {
      await local.release();
    }
  }

  private async undoJob(job: { id: string; roomId: string }, payload: Payload) {
    await this.ingest.undo(job.id);
    await this.rasters.undo(job.id);
    await this.files.uncount(job.roomId, payload.fileKey);
    await this.files.blobs.delete(payload.fileKey);
  }
}

/** Whether a file starts like a TIFF or BigTIFF (`II*\0`, `MM\0*`, `II+\0`, `MM\0+`). */
export async function looksLikeTiff(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const head = Buffer.alloc(4);
    await handle.read(head, 0, 4, 0);
    const magic = head.toString('latin1');
    return magic === 'II*\0' || magic === 'MM\0*' || magic === 'II+\0' || magic === 'MM\0+';
  } finally {
    await handle.close();
  }
}
