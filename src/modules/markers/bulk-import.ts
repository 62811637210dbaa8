import { PassThrough } from 'node:stream';
import { Type } from 'typebox';
import { actorOf, type Caller } from '../../auth/access.js';
import type { Db } from '../../db/database.js';
import type { StagedJobs } from '../../db/staged-jobs.js';
import type { RoomRow } from '../../db/tables.js';
import { featureError, GeoJsonError, pointOf } from '../../geo/geojson-points.js';
import { readFeatureBatches } from '../../geo-engine/geojson-stream.js';
import type { UploadedFile } from '../../http/uploads.js';
import { newId, newIdSequence } from '../../ids.js';
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
import type { WritePath } from '../history/write-path.js';
import type { IconsRepository } from '../icons/icons.repository.js';
import { importedMarkerOf } from './imported-markers.js';
import type { MarkerImages } from './marker-images.js';
import { newMarkerRow, type MarkerRow } from './markers.presenter.js';
import type { MarkersRepository } from './markers.repository.js';
import type { ImageMeta } from './markers.schemas.js';

export const BULK_IMPORT_KIND = 'bulk-import';
/** The largest GeoJSON file a bulk import takes (about 5 million points); the route's documented cap. */
export const BULK_IMPORT_MAX_BYTES = 1024 ** 3;
/** Markers inserted per statement: fixed, the engines cap bound values. */
const BATCH = 1000;
/** Features read between two progress reports: fixed, progress is a percentage, not a cost. */
const PROGRESS_EVERY = 2_000;

const Payload = Type.Object({ fileKey: Type.String() });
type Payload = { fileKey: string };
/** Bulk imports in the job queue. */
export const BULK_IMPORT_JOB = jobKind(BULK_IMPORT_KIND, Payload);

export interface BulkImportParts {
  db: Db;
  files: StoredFiles;
  jobs: JobQueue;
  staged: StagedJobs;
  markers: MarkersRepository;
  icons: IconsRepository;
  images: MarkerImages;
  writePath: WritePath;
}

/**
 * Bulk import of a GeoJSON FeatureCollection of points as markers, as a job. The uploaded
 * file waits in storage; the job reads it as a stream, checks each feature and inserts the
 * markers in batches, staged: readers see none of them until the job's final write makes
 * them all visible at once with one `room.imported` history entry and live event. A problem
 * ends the job in `error` naming the feature and removes what it inserted (nobody saw it); a
 * job interrupted by a restart does the same and starts again.
 */
export class BulkImport {
  private readonly db: Db;
  private readonly files: StoredFiles;
  private readonly jobs: JobQueue;
  private readonly staged: StagedJobs;
  private readonly markers: MarkersRepository;
  private readonly icons: IconsRepository;
  private readonly images: MarkerImages;
  private readonly writePath: WritePath;

  constructor(parts: BulkImportParts) {
    ({
      db: this.db,
      files: this.files,
      jobs: this.jobs,
      staged: this.staged,
      markers: this.markers,
      icons: this.icons,
      images: this.images,
      writePath: this.writePath,
    } = parts);
  }

  /** How the job queue runs bulk imports (src/jobs.ts). */
  readonly worker: JobWorker<Payload> = {
    run: (job) => this.run(job),
    undo: (job, payload) => this.undo(job.id, payload.fileKey),
  };

  /** Keeps the uploaded file (it counts against the owner's quota while it waits) and queues the job (`requestId`: the request that asks). */
  async start(room: RoomRow, caller: Caller, file: UploadedFile, requestId: string) {
    await this.files.assertRoomFor(room.id, file.bytes);
    const jobId = newId('bulk-import');
    const fileKey = blobKeys.bulkImport(room.id, jobId);
    await this.files.putUnrecorded(fileKey, file.path);
    await this.jobs.enqueue(BULK_IMPORT_JOB, {
      id: jobId,
      roomId: room.id,
      payload: { fileKey },
      actor: actorOf(caller),
      requestId,
    });
    return { jobId };
  }

  private async run(job: JobContext<Payload>) {
    const { fileKey } = job.payload;
    await this.markers.deleteImported(this.db, job.id);
    await this.staged.begin(job.id, job.roomId);
    try {
      const count = await this.insert(job, fileKey);
      const summary = { source: 'bulk-import', jobId: job.id, markers: count };
      await this.writePath.write(job.roomId, jobActor(job), async (trx) => {
        await this.staged.publish(trx, job.id);
        return {
          result: null,
          changes: [
            { type: 'room.imported', objectType: 'room', objectId: job.roomId, changes: summary, data: summary },
          ],
        };
      });
      await this.files.discard([fileKey]);
      return { message: `Imported ${count} marker${count === 1 ? '' : 's'}`, result: { markersCreated: count } };
    } catch (error) {
      if (job.signal.aborted) throw error; // resumed at the next start
      await this.undo(job.id, fileKey);
      if (error instanceof GeoJsonError) throw new JobFailure(error.message);
      throw error;
    }
  }

  /** Removes what the job inserted (never visible), and its uploaded file. */
  private async undo(jobId: string, fileKey: string) {
    await this.markers.deleteImported(this.db, jobId);
    await this.staged.end(jobId);
    await this.files.discard([fileKey]);
  }

  /**
   * One pass over the file: each feature is checked (with the icons and images it names)
   * and inserted in batches, each its own short transaction; returns how many. The markers'
   * ids follow each other (`newIdSequence`), so the id index takes them in order.
   */
  private async insert(job: JobContext<Payload>, fileKey: string): Promise<number> {
    const icons = new Map<string, boolean>();
    const metas = new Map<string, ImageMeta | null>();
    const now = Date.now();
    const createdBy = jobActor(job).id;
    const nextId = newIdSequence('marker');
    let batch: MarkerRow[] = [];
    let count = 0;
    const flush = async () => {
      const rows = batch;
      batch = [];
      await this.db.transaction().execute((trx) => this.markers.insertMany(trx, rows));
    };
    for await (const features of this.featureBatches(job, fileKey)) {
      for (const feature of features) {
        const index = count;
        const marker = importedMarkerOf(pointOf(feature, index), index);
        const iconId = marker.markerIconId;
        if (iconId != null) {
          if (!icons.has(iconId)) icons.set(iconId, await this.icons.exists(job.roomId, iconId));
          if (!icons.get(iconId)) throw featureError(index, `markerIconId ${iconId} is not an icon of this room`);
        }
        const pair = marker.imageKey != null ? `${marker.imageKey}|${marker.thumbnailKey}` : undefined;
        if (pair !== undefined && !metas.has(pair)) {
          try {
            metas.set(pair, await this.images.metaForPair(job.roomId, marker.imageKey!, marker.thumbnailKey!));
          } catch (error) {
            throw featureError(index, (error as Error).message);
          }
        }
        const imageMeta = pair !== undefined ? metas.get(pair) : null;
        batch.push(
          newMarkerRow(job.roomId, marker, {
            id: nextId(),
            createdBy,
            createdAt: now + index,
            imageMeta,
            importJobId: job.id,
          }),
        );
        count++;
        if (batch.length === BATCH) await flush();
      }
    }
    if (batch.length) await flush();
    return count;
  }

  /** The file's features in batches, reporting progress by the share of the file read. */
  private async *featureBatches(job: JobContext<Payload>, fileKey: string) {
    const stored = await this.files.get(fileKey);
    if (!stored) throw new JobFailure('The uploaded file is no longer available; upload it again');
    let bytes = 0;
    let read = 0;
    let reported = 0;
    const counted = new PassThrough();
    stored.stream.on('error', (error) => counted.destroy(error));
    stored.stream.on('data', (chunk: Buffer) => (bytes += chunk.length));
    stored.stream.pipe(counted);
    try {
      for await (const features of readFeatureBatches(counted)) {
        if (job.signal.aborted) throw new Error('Shutting down');
        yield features;
        read += features.length;
        if (read - reported >= PROGRESS_EVERY) {
          reported = read;
          await job.progress((100 * bytes) / Math.max(1, stored.bytes), `Read ${read} markers so far`);
        }
      }
    } finally {
      stored.stream.destroy();
    }
  }
}
