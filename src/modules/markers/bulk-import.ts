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
/** Markers inserted per transaction on SQLite: fixed, the engines cap bound values. */
const BATCH = 1000;
/** Markers per COPY (and transaction) on PostgreSQL: a commit every few tenths of a second. */
const COPY_ROWS = 10_000;
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
   * and written, in batches each its own short transaction; returns how many. On SQLite the
   * batches are multi-row inserts; on PostgreSQL, COPYs that take the rows as they are made,
   * so the file is read while the database writes.
   */
  private async insert(job: JobContext<Payload>, fileKey: string): Promise<number> {
    const rows = this.markerRows(job, fileKey);
    if (this.markers.copies) return this.copy(rows);
    let batch: MarkerRow[] = [];
    let count = 0;
    const flush = async () => {
      const full = batch;
      batch = [];
      await this.db.transaction().execute((trx) => this.markers.insertMany(trx, full));
    };
    for await (const piece of rows) {
      for (const row of piece) {
        batch.push(row);
        if (batch.length === BATCH) await flush();
      }
      count += piece.length;
    }
    if (batch.length) await flush();
    return count;
  }

  /**
   * PostgreSQL: the rows in COPYs of about `COPY_ROWS` each. Once a COPY has all its rows the
   * next one starts, while the database is still taking the last one's (at most two at once).
   */
  private async copy(rows: AsyncGenerator<MarkerRow[]>): Promise<number> {
    let ended = false;
    async function* upTo(limit: number, allTaken: () => void) {
      try {
        for (let taken = 0; taken < limit; ) {
          const next = await rows.next();
          if (next.done) {
            ended = true;
            return;
          }
          taken += next.value.length;
          yield next.value;
        }
      } finally {
        allTaken();
      }
    }
    const copying: Promise<number>[] = [];
    let count = 0;
    try {
      while (!ended) {
        let allTaken = () => {};
        const taken = new Promise<void>((resolve) => (allTaken = resolve));
        const copy = this.markers.copyMany(upTo(COPY_ROWS, allTaken));
        copying.push(copy);
        await Promise.race([taken, copy]);
        if (copying.length === 2) count += await copying.shift()!;
      }
      for (const copy of copying.splice(0)) count += await copy;
    } finally {
      await Promise.allSettled(copying); // none left writing when this ends
      await rows.return(undefined); // closes the file when a COPY failed
    }
    return count;
  }

  /**
   * The file's markers as rows, checked, in pieces as read. The markers' ids follow each
   * other (`newIdSequence`), so the id index takes them in order.
   */
  private async *markerRows(job: JobContext<Payload>, fileKey: string): AsyncGenerator<MarkerRow[]> {
    const icons = new Map<string, boolean>();
    const metas = new Map<string, ImageMeta | null>();
    const now = Date.now();
    const createdBy = jobActor(job).id;
    const nextId = newIdSequence('marker');
    let index = 0;
    for await (const features of this.featureBatches(job, fileKey)) {
      const rows: MarkerRow[] = new Array(features.length);
      for (let i = 0; i < features.length; i++, index++) {
        const marker = importedMarkerOf(pointOf(features[i], index), index);
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
        rows[i] = newMarkerRow(job.roomId, marker, {
          id: nextId(),
          createdBy,
          createdAt: now + index,
          imageMeta: pair !== undefined ? metas.get(pair) : null,
          importJobId: job.id,
        });
      }
      yield rows;
    }
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
