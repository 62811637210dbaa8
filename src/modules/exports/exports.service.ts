import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { Type } from 'typebox';
import { actorOf, type Caller } from '../../auth/access.js';
import type { RoomRow } from '../../db/tables.js';
import { AppError, gone, notFound } from '../../errors.js';
import type { JobQueue, JobType } from '../../infra/job-queue.js';
import { blobKeys } from '../files/blob-keys.js';
import type { StoredFiles } from '../files/stored-files.js';
import type { ExportJobRow, ExportJobsRepository } from './export-jobs.repository.js';
import type { ExportOptions, RoomExporter } from './room-export.js';
import type { ExportJob, ExportOptionFields } from './exports.schemas.js';

/** How long an export job's artifact is kept. */
export const ARTIFACT_LIFETIME_MS = 24 * 3600 * 1000;
/** Above this estimated size the application uses export jobs (the interface's "about 2 GiB"). */
export const SYNC_EXPORT_MAX_BYTES = 2 * 1024 ** 3;
/** Artifacts kept per room: a newer export job's completion removes the oldest beyond these. */
export const ARTIFACTS_PER_ROOM = 3;
/** A rough size of one marker, drawing or comment row in the file. */
const BYTES_PER_ROW = 512;

const Payload = Type.Object({ exportJobId: Type.String() });

export const optionsOf = (fields: ExportOptionFields): ExportOptions => ({
  includeTiffs: fields.include_tiffs === true,
  includeTiles: fields.include_tiles === true,
});

/** A complete job is expired from 24 hours after it finished, whether or not the sweep has removed its artifact yet. */
const hasExpired = (row: ExportJobRow, now = Date.now()) =>
  row.status === 'expired' ||
  (row.status === 'complete' && row.finished_at !== null && row.finished_at + ARTIFACT_LIFETIME_MS <= now);

function presentExportJob(row: ExportJobRow): ExportJob {
  const expired = hasExpired(row);
  return {
    jobId: row.id,
    status: expired ? 'expired' : (row.status as ExportJob['status']),
    bytes: row.bytes,
    ...(row.error !== null && { error: row.error }),
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    expiresAt:
      row.status === 'complete' && !expired && row.finished_at !== null ? row.finished_at + ARTIFACT_LIFETIME_MS : null,
  };
}

/**
 * Exports of a room as one GeoPackage: at once (the file streamed, then removed), or as an
 * export job whose artifact is kept in the blob store for 24 hours, bound to its room. A
 * request for an export job while the same one is still pending joins it, and a room keeps
 * at most ARTIFACTS_PER_ROOM artifacts, so repeated requests cannot fill the disk.
 */
export class ExportsService {
  private readonly jobType: JobType<{ exportJobId: string }>;

  constructor(
    private readonly exporter: RoomExporter,
    private readonly jobs: ExportJobsRepository,
    private readonly files: StoredFiles,
    queue: JobQueue,
  ) {
    this.jobType = queue.register('room-export', Payload, async (job) => {
      await this.run(job.payload.exportJobId, job.signal);
      return { message: 'Exported' };
    });
  }

  /** The export as a stream; its temporary file is removed once the stream ends or fails. */
  async exportNow(room: RoomRow, options: ExportOptions): Promise<{ stream: Readable; bytes: number }> {
    const file = await this.exporter.write(room.id, options);
    const { size } = await stat(file);
    const stream = createReadStream(file);
    stream.once('close', () => void rm(file, { force: true }));
    return { stream, bytes: size };
  }

  async size(room: RoomRow) {
    const rows = await this.exporter.estimate(room.id);
    const bytes = rows.bytes + rows.rows * BYTES_PER_ROW;
    return {
      bytes,
      thresholdBytes: SYNC_EXPORT_MAX_BYTES,
      recommended: bytes > SYNC_EXPORT_MAX_BYTES ? ('async' as const) : ('sync' as const),
    };
  }

  async start(room: RoomRow, caller: Caller, fields: ExportOptionFields): Promise<{ jobId: string }> {
    const options = optionsOf(fields);
    const actor = actorOf(caller);
    const waiting = await this.jobs.findPending(room.id, options.includeTiffs ? 1 : 0, options.includeTiles ? 1 : 0);
    if (waiting) return { jobId: waiting.id };
    const id = randomUUID();
    await this.jobs.insert({
      id,
      room_id: room.id,
      status: 'pending',
      include_tiffs: options.includeTiffs ? 1 : 0,
      include_tiles: options.includeTiles ? 1 : 0,
      bytes: null,
      error: null,
      artifact_key: null,
      created_at: Date.now(),
      started_at: null,
      finished_at: null,
    });
    await this.jobType.enqueue({ id: `export-${id}`, roomId: room.id, payload: { exportJobId: id }, actor });
    return { jobId: id };
  }

  async status(room: RoomRow, jobId: string): Promise<ExportJob> {
    return presentExportJob(await this.find(room, jobId));
  }

  async artifact(room: RoomRow, jobId: string): Promise<{ stream: Readable; bytes: number }> {
    const row = await this.find(room, jobId);
    if (hasExpired(row))
      throw gone(
        'export_expired',
        'The export was removed (24 hours after it finished, or when newer exports of the room replaced it); start a new export job',
      );
    if (row.status !== 'complete' || !row.artifact_key) throw notFound('Export artifact (the job has not completed)');
    const found = await this.files.get(row.artifact_key);
    if (!found) throw notFound('Export artifact');
    return found;
  }

  /** Removes the artifacts of jobs that finished more than 24 hours ago. */
  async sweep(now = Date.now()): Promise<void> {
    for (const row of await this.jobs.finishedBefore(now - ARTIFACT_LIFETIME_MS)) await this.expire(row);
  }

  private async expire(row: ExportJobRow): Promise<void> {
    if (row.artifact_key) await this.files.discard([row.artifact_key]);
    await this.jobs.update(row.id, { status: 'expired', artifact_key: null });
  }

  private async find(room: RoomRow, jobId: string): Promise<ExportJobRow> {
    const row = await this.jobs.find(room.id, jobId);
    if (!row) throw notFound('Export job');
    return row;
  }

  /** The job's work (run again from the start after an interruption). */
  private async run(id: string, signal: AbortSignal): Promise<void> {
    const row = await this.jobs.findById(id);
    if (!row) return;
    await this.jobs.update(id, { status: 'running', started_at: Date.now(), error: null });
    try {
      const file = await this.exporter.write(
        row.room_id,
        { includeTiffs: row.include_tiffs === 1, includeTiles: row.include_tiles === 1 },
        undefined,
        signal,
      );
      const key = blobKeys.exportArtifact(row.room_id, id);
      const bytes = await this.files.putUnrecorded(key, file);
      await this.jobs.update(id, { status: 'complete', bytes, artifact_key: key, finished_at: Date.now() });
      for (const old of (await this.jobs.completeOfRoom(row.room_id)).slice(ARTIFACTS_PER_ROOM)) await this.expire(old);
    } catch (error) {
      if (signal.aborted) throw error;
      // An AppError's message is for the caller; anything else may name our paths (the job queue logs it).
      const message = error instanceof AppError ? error.message : 'The export failed; try again';
      await this.jobs.update(id, { status: 'error', error: message, finished_at: Date.now() });
      throw error;
    }
  }
}
