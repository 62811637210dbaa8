import { open } from 'node:fs/promises';
import path from 'node:path';
import { actorOf, type Caller } from '../../auth/access.js';
import type { RoomRow } from '../../db/tables.js';
import { invalidField, notOnlyPoints } from '../../errors.js';
import { newId } from '../../ids.js';
import {
  JobFailure,
  jobActor,
  jobKind,
  type JobContext,
  type JobQueue,
  type JobWorker,
} from '../../infra/job-queue.js';
import { blobKeys } from '../files/blob-keys.js';
import type { StoredFiles } from '../files/stored-files.js';
import type { Ingest, IngestMeta, IngestStep, SourceFile, StagedIngest } from './ingest.js';
import { UPLOAD_AS, UploadJobPayload, type UploadAs, type UploadFields } from './uploads.schemas.js';
import { jobProgress } from './job-progress.js';

export const LAYER_UPLOAD_KIND = 'layer-upload';
/** Layer uploads in the job queue. */
export const LAYER_UPLOAD_JOB = jobKind(LAYER_UPLOAD_KIND, UploadJobPayload);
/** The stored-file kind of an upload waiting for its job. */
export const QUEUED_UPLOAD_KIND = 'queued-upload';

/** A file waiting in the blob store for its job. */
export interface QueuedFile {
  jobId: string;
  fileName: string;
  fileKey: string;
}

/** A step as the upload sees it: what it checked is handed back to it unread. */
export type UploadStep = IngestStep<unknown, IngestMeta, StagedIngest>;

export interface UploadsOptions {
  files: StoredFiles;
  jobs: JobQueue;
  ingest: Ingest;
  /** Vector files (GeoJSON, shapefile, GeoPackage, CSV) and GeoTIFFs. */
  steps: { vector: UploadStep; raster: UploadStep };
  /** What is wrong with an upload's `style`, or null (the vector layers' style schema). */
  styleProblem: (style: unknown) => string | null;
  /** Files up to this size may be processed while the client waits (UPLOAD_SYNC_MAX_BYTES); bigger ones are a job (202). */
  syncMaxBytes: number;
}

/**
 * `POST /api/layers/upload` and chunked uploads: a file becomes markers, vector layers or a
 * raster layer. The file's type picks the step (a GeoTIFF the raster one, any other file the
 * vector one), the step checks and stages it, the ingest publishes it: one way, no return.
 * Files up to `syncMaxBytes` are processed at once, unless the step finds them too much work
 * (`needsJob`: a GeoTIFF declaring more than RASTER_SYNC_MAX_PIXELS pixels times bands); the
 * others wait in the blob store (counting against the owner's quota) for a `layer-upload`
 * job, which callers poll at /api/layers/jobs/:jobId.
 */
export class Uploads {
  constructor(private readonly options: UploadsOptions) {}

  /** How the job queue runs layer uploads (src/jobs.ts). */
  readonly worker: JobWorker<UploadJobPayload> = {
    run: (job) => this.runJob(job),
    undo: (job, payload) => this.undoJob({ id: job.id, roomId: job.room_id }, payload),
  };

  /** An uploaded file (a temporary file the caller removes afterwards). */
  async upload(
    room: RoomRow,
    caller: Caller,
    source: SourceFile & { bytes: number },
    fields: UploadFields,
    requestId: string,
  ) {
    const meta = this.metaOf(fields, source.fileName);
    await this.options.files.assertRoomFor(room.id, source.bytes);
    if (source.bytes > this.options.syncMaxBytes)
      return { status: 202 as const, body: await this.queue(room, caller, source, meta, requestId) };
    const { step, checked } = await this.check(source, meta);
    if (step.needsJob?.(checked))
      return { status: 202 as const, body: await this.enqueue(room, caller, source, meta, requestId) };
    const target = { roomId: room.id, actor: actorOf(caller), stageId: newId('upload') };
    const staged = await this.options.ingest.run(step, target, checked, meta);
    return { status: 200 as const, body: await staged.answer() };
  }

  /** The upload's text fields as the layer's metadata (`style` checked, `display` left to the raster step). */
  metaOf(fields: UploadFields, fileName: string): IngestMeta & { display: unknown } {
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
    const problem = this.options.styleProblem(style);
    if (problem) throw invalidField('style', problem.replace(/^(\w+) /, 'key $1 '));
    // `districts.shp.zip` is the layer "districts", like `districts.geojson`.
    const layerName = (fields.layerName ?? '').trim() || path.parse(fileName).name.replace(/\.shp$/i, '') || 'Layer';
    return {
      layerName,
      description: fields.description?.trim() || null,
      style: style as Record<string, unknown>,
      display: parse('display') ?? null,
      sourceCrs: sourceCrsOf(fields.sourceCrs),
      as: asOf(fields.as),
    };
  }

  /** Checks the file, keeps it in the blob store and queues its job: 202 `{jobId}`. */
  async queue(
    room: RoomRow,
    caller: Caller,
    source: SourceFile & { bytes: number },
    meta: IngestMeta,
    requestId: string,
  ) {
    // A file that is refused is refused now, not in a job.
    await this.check(source, meta);
    return this.enqueue(room, caller, source, meta, requestId);
  }

  /**
   * A file already in the blob store under `queuedFile(...)`'s key (a chunked upload, assembled
   * there): checked from a local copy (on object storage, a download), then queued as `queue`
   * does. The caller deletes the stored file when this rejects.
   */
  async queueStored(
    room: RoomRow,
    caller: Caller,
    stored: QueuedFile & { bytes: number },
    meta: IngestMeta,
    requestId: string,
  ) {
    const { files } = this.options;
    const local = await files.localFile(stored.fileKey);
    try {
      await this.check({ path: local.path, fileName: stored.fileName }, meta);
    } finally {
      await local.release();
    }
    await files.store([{ ...this.queuedRow(room, stored), alreadyStored: true, bytes: stored.bytes }]);
    return this.enqueueJob(room, caller, stored, meta, requestId);
  }

  /** The job id and blob key of a file that will wait for a job. */
  queuedFile(roomId: string, fileName: string): QueuedFile {
    const jobId = newId('job');
    return { jobId, fileName, fileKey: blobKeys.queuedUpload(roomId, jobId, fileName) };
  }

  private queuedRow(room: RoomRow, queued: QueuedFile) {
    return {
      roomId: room.id,
      key: queued.fileKey,
      kind: QUEUED_UPLOAD_KIND,
      contentType: 'application/octet-stream',
    };
  }

  /** Keeps a checked file in the blob store and queues its job. */
  private async enqueue(
    room: RoomRow,
    caller: Caller,
    source: SourceFile & { bytes: number },
    meta: IngestMeta,
    requestId: string,
  ) {
    const queued = this.queuedFile(room.id, source.fileName);
    // Counted against the quota while it waits, so that queued files cannot pile up past it.
    await this.options.files.store([{ ...this.queuedRow(room, queued), path: source.path, bytes: source.bytes }]);
    return this.enqueueJob(room, caller, queued, meta, requestId);
  }

  /** Queues the job of a stored, recorded file (`requestId`: the request that asks); the file goes when that fails. */
  private async enqueueJob(room: RoomRow, caller: Caller, queued: QueuedFile, meta: IngestMeta, requestId: string) {
    const { files } = this.options;
    const { jobId, fileKey } = queued;
    const payload = {
      fileKey,
      fileName: queued.fileName,
      layerName: meta.layerName,
      description: meta.description ?? null,
      style: meta.style ?? {},
      display: meta.display,
      sourceCrs: meta.sourceCrs ?? null,
      as: meta.as ?? 'auto',
    };
    try {
      await this.options.jobs.enqueue(LAYER_UPLOAD_JOB, {
        id: jobId,
        roomId: room.id,
        payload,
        actor: actorOf(caller),
        requestId,
      });
    } catch (error) {
      await files.remove(room.id, [fileKey]);
      throw error;
    }
    return { jobId };
  }

  /** The file's step, and what the step checked; a GeoTIFF sent `as=markers` is refused (it holds no points). */
  private async check(source: SourceFile, meta: IngestMeta) {
    const step = await this.stepFor(source);
    if (meta.as === 'markers' && step === this.options.steps.raster) throw notOnlyPoints('a GeoTIFF holds no points');
    return { step, checked: await this.options.ingest.check(step, source, meta) };
  }

  /** The step for the file: a GeoTIFF (by its name or its first bytes) is a raster; anything else vector. */
  private async stepFor(source: SourceFile): Promise<UploadStep> {
    const { vector, raster } = this.options.steps;
    return /\.tiff?$/i.test(source.fileName) || (await looksLikeTiff(source.path)) ? raster : vector;
  }

  private async runJob(job: JobContext<UploadJobPayload>) {
    const { files, ingest } = this.options;
    const { fileKey, fileName, ...meta } = job.payload;
    // From here on the layers, markers or raster files the job stores count instead.
    await files.uncount(job.roomId, fileKey);
    const local = await files.localFile(fileKey);
    const source = { path: local.path, fileName };
    const progress = jobProgress(job);
    try {
      const { step, checked } = await this.check(source, meta);
      const target = { roomId: job.roomId, actor: jobActor(job), stageId: job.id };
      const { done } = await ingest.run(step, target, checked, meta, progress);
      await files.discard([fileKey]);
      return done;
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

  private async undoJob(job: { id: string; roomId: string }, payload: UploadJobPayload) {
    const { files, steps } = this.options;
    await steps.vector.undo(job.id);
    await steps.raster.undo(job.id);
    await files.uncount(job.roomId, payload.fileKey);
    await files.discard([payload.fileKey]);
  }
}

/** An upload's `sourceCrs` (`2056`, `EPSG:2056`, any case) as `EPSG:2056`; null when not given. */
function sourceCrsOf(text: string | undefined): string | null {
  const trimmed = text?.trim() ?? '';
  if (trimmed === '') return null;
  const code = /^(?:epsg:)?(\d{4,6})$/i.exec(trimmed)?.[1];
  if (!code) throw invalidField('sourceCrs', 'must be an EPSG code, such as 2056 or EPSG:2056 (Swiss LV95)');
  return `EPSG:${Number(code)}`;
}

/** An upload's `as`: `auto` when not given. */
function asOf(text: string | undefined): UploadAs {
  const trimmed = text?.trim() ?? '';
  if (trimmed === '') return 'auto';
  const value = UPLOAD_AS.find((known) => known === trimmed);
  if (!value) throw invalidField('as', `must be one of: ${UPLOAD_AS.join(', ')}`);
  return value;
}

/** Whether a file starts like a TIFF or BigTIFF (`II*\0`, `MM\0*`, `II+\0`, `MM\0+`). */
async function looksLikeTiff(file: string): Promise<boolean> {
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
