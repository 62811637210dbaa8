import { PassThrough } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import type { Caller } from '../../auth/access.js';
import type { Db } from '../../db/database.js';
import { AppError, badRequest } from '../../errors.js';
import { GeoJsonError, pointMarkerOf, readFeatures } from '../../geo/geojson-points.js';
import { newId } from '../../ids.js';
import type { BlobStore } from '../../infra/blob-store.js';
import type { StoredFiles } from '../files/stored-files.js';
import { JobFailure, type JobContext, type JobQueue } from '../../infra/job-queue.js';
import { fileTooLarge } from '../files/multipart-form.js';
import { actorOf, type WritePath } from '../history/write-path.js';
import type { RoomRow } from '../rooms/rooms.repository.js';
import type { ImageMeta, MarkerImages } from './marker-images.js';
import { newMarkerRow, type MarkerRow } from './markers.presenter.js';
import type { MarkersRepository } from './markers.repository.js';

export const BULK_IMPORT_KIND = 'bulk-import';
/** The largest GeoJSON file a bulk import takes (about 5 million points). */
export const BULK_IMPORT_MAX_BYTES = 1024 ** 3;
const BATCH = 1000;

/**
 * Bulk import of a GeoJSON FeatureCollection of points as markers, as a job. The file is
 * streamed to storage, then read as a stream, each feature checked and inserted in
 * batches. A problem ends the job in `error` naming the feature, and what was inserted is
 * removed, so nothing is half-imported; a job interrupted by a restart does the same and
 * starts again. History and live clients get one `room.imported` change, not one per marker.
 */
export class BulkImport {
  constructor(
    private readonly db: Db,
    private readonly files: StoredFiles,
    private readonly jobs: JobQueue,
    private readonly markers: MarkersRepository,
    private readonly images: MarkerImages,
    private readonly writePath: WritePath,
  ) {
    jobs.register(
      BULK_IMPORT_KIND,
      (job) => this.run(job),
      (job) => this.undo(job.id, String(JSON.parse(job.payload).fileKey)),
    );
  }

  private get blobs(): BlobStore {
    return this.files.blobs;
  }

  /** Streams the uploaded `file` part to storage and queues the job. */
  async start(room: RoomRow, caller: Caller, request: FastifyRequest) {
    if (!request.isMultipart()) {
      throw new AppError(415, 'unsupported_media_type', 'Send the file as multipart/form-data in the field "file"');
    }
    const part = await request.file({ limits: { fileSize: BULK_IMPORT_MAX_BYTES, files: 1 } });
    if (!part || part.fieldname !== 'file') throw badRequest('The multipart field "file" is required', [{ field: 'file', message: 'required' }]);
    const jobId = newId('bulk-import');
    const fileKey = `imports/${room.id}/${jobId}.geojson`;
    const bytes = await this.blobs.put(fileKey, part.file);
    try {
      if (part.file.truncated) throw fileTooLarge('file', BULK_IMPORT_MAX_BYTES);
      // The file waits on disk until the job has run: it must fit in the owner's quota.
      await this.files.assertRoomFor(room.id, bytes);
    } catch (error) {
      await this.blobs.delete(fileKey);
      throw error;
    }
    await this.jobs.enqueue({ id: jobId, kind: BULK_IMPORT_KIND, roomId: room.id, payload: { fileKey }, actor: actorOf(caller) });
    return { jobId };
  }

  private async run(job: JobContext) {
    const fileKey = String(job.payload.fileKey);
    await this.markers.deleteImported(this.db, job.id);
    try {
      const count = await this.insert(job, fileKey);
      await this.writePath.write(job.roomId, job.actor, async () => ({
        result: null,
        changes: [
          {
            type: 'room.imported',
            objectType: 'room',
            objectId: job.roomId,
            changes: { source: 'bulk-import', jobId: job.id, markers: count },
            data: { source: 'bulk-import', jobId: job.id, markers: count },
          },
        ],
      }));
      await this.blobs.delete(fileKey);
      return { message: `Imported ${count} marker${count === 1 ? '' : 's'}`, result: { markersCreated: count } };
    } catch (error) {
      if (job.signal.aborted) throw error; // resumed at the next start
      await this.undo(job.id, fileKey);
      if (error instanceof GeoJsonError) throw new JobFailure(error.message);
      throw error;
    }
  }

  /** Removes what the job inserted, and its uploaded file. */
  private async undo(jobId: string, fileKey: string) {
    await this.markers.deleteImported(this.db, jobId);
    await this.blobs.delete(fileKey);
  }

  /**
   * One pass over the file: each feature is checked (with the icons and images it names)
   * and inserted in batches, each its own short transaction; returns how many.
   */
  private async insert(job: JobContext, fileKey: string): Promise<number> {
    const icons = new Map<string, boolean>();
    const metas = new Map<string, ImageMeta | null>();
    const now = Date.now();
    let batch: MarkerRow[] = [];
    let count = 0;
    const flush = async () => {
      const rows = batch;
      batch = [];
      await this.db.transaction().execute((trx) => this.markers.insert(trx, rows));
    };
    for await (const { index, marker } of this.features(job, fileKey)) {
      if (marker.markerIconId !== undefined) {
        if (!icons.has(marker.markerIconId)) icons.set(marker.markerIconId, await this.markers.iconExists(job.roomId, marker.markerIconId));
        if (!icons.get(marker.markerIconId)) {
          throw new GeoJsonError(`Feature ${index + 1} (features[${index}]): markerIconId ${marker.markerIconId} is not an icon of this room`);
        }
      }
      const pair = marker.imageKey !== undefined ? `${marker.imageKey}|${marker.thumbnailKey}` : undefined;
      if (pair !== undefined && !metas.has(pair)) {
        try {
          metas.set(pair, await this.images.metaForPair(job.roomId, marker.imageKey!, marker.thumbnailKey!));
        } catch (error) {
          throw new GeoJsonError(`Feature ${index + 1} (features[${index}]): ${(error as Error).message}`);
        }
      }
      const imageMeta = pair !== undefined ? metas.get(pair) : null;
      batch.push(newMarkerRow(job.roomId, marker, { createdBy: job.actor.id, createdAt: now + index, imageMeta, importJobId: job.id }));
      count++;
      if (batch.length === BATCH) await flush();
    }
    if (batch.length) await flush();
    return count;
  }

  /** The file's markers, reporting progress by the share of the file read. */
  private async *features(job: JobContext, fileKey: string) {
    const stored = await this.blobs.get(fileKey);
    if (!stored) throw new JobFailure('The uploaded file is no longer available; upload it again');
    let bytes = 0;
    const counted = new PassThrough();
    stored.stream.on('error', (error) => counted.destroy(error));
    stored.stream.on('data', (chunk: Buffer) => (bytes += chunk.length));
    stored.stream.pipe(counted);
    try {
      for await (const { index, feature } of readFeatures(counted)) {
        if (job.signal.aborted) throw new Error('Shutting down');
        yield { index, marker: pointMarkerOf(feature, index) };
        if (index % 1000 === 0) await job.progress((100 * bytes) / Math.max(1, stored.bytes), `Imported ${index} markers so far`);
      }
    } finally {
      stored.stream.destroy();
    }
  }

}
