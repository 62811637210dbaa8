import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { Type, type Static } from 'typebox';
import { actorOf, type Caller } from '../../auth/access.js';
import type { RoomRow } from '../../db/tables.js';
import { AppError, gone, notFound, tooManyRequests } from '../../errors.js';
import {
  JobFailure,
  jobKind,
  type JobCaller,
  type JobContext,
  type JobQueue,
  type JobRow,
  type JobWorker,
} from '../../infra/job-queue.js';
import { blobKeys } from '../files/blob-keys.js';
import type { StoredFiles } from '../files/stored-files.js';
import { ROOM_EXPORT_KIND, type ExportJobsRepository } from './export-jobs.repository.js';
import { ARTIFACT_LIFETIME_MS, hasExpired, presentExportJob } from './exports.presenter.js';
import type { ExportOptions, RoomExporter } from './room-export.js';
import type { ExportJob, ExportOptionFields } from './exports.schemas.js';

/** Above this estimated size the application uses export jobs (the interface's "about 2 GiB"). */
export const SYNC_EXPORT_MAX_BYTES = 2 * 1024 ** 3;
/**
 * Export jobs a caller (a user, or a token) may hold at once: waiting, running, or complete
 * with an artifact not yet expired. One more replaces the caller's own oldest finished
 * artifact, or is 429 while all of theirs are still in progress; nobody else's artifact is
 * ever removed early.
 */
export const EXPORTS_PER_CALLER = 3;
/** The Retry-After of a refusal while the caller's jobs are all still in progress: fixed, a hint to the client. */
export const RUNNING_RETRY_S = 60;
/** A rough size of one marker, drawing or comment row in the file. */
const BYTES_PER_ROW = 512;

/** An export job's payload: its options. */
const ExportJobPayload = Type.Object({ includeTiffs: Type.Boolean(), includeTiles: Type.Boolean() });
/** Export jobs in the job queue (their answers: exports.presenter.ts). */
export const ROOM_EXPORT_JOB = jobKind(ROOM_EXPORT_KIND, ExportJobPayload);

export const optionsOf = (fields: ExportOptionFields): ExportOptions => ({
  includeTiffs: fields.include_tiffs === true,
  includeTiles: fields.include_tiles === true,
});

/**
 * Exports of a room as one GeoPackage: at once (the file streamed, then removed), or as an
 * export job whose artifact is kept in the blob store for 24 hours, bound to its room. A
 * request for an export job while the same one is still pending joins it, and a caller holds
 * at most EXPORTS_PER_CALLER jobs at once, so repeated requests cannot fill the disk.
 */
export class ExportsService {
  constructor(
    private readonly exporter: RoomExporter,
    private readonly jobs: ExportJobsRepository,
    private readonly files: StoredFiles,
    private readonly queue: JobQueue,
  ) {}

  /** How the job queue runs export jobs (src/jobs.ts). */
  readonly worker: JobWorker<Static<typeof ExportJobPayload>> = { run: (job) => this.run(job) };

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

  async start(
    room: RoomRow,
    caller: Caller,
    address: string,
    fields: ExportOptionFields,
    requestId: string,
  ): Promise<{ jobId: string }> {
    const options = optionsOf(fields);
    const waiting = (await this.jobs.notStarted(room.id)).find((job) => {
      const queued = JSON.parse(job.payload) as ExportOptions;
      return queued.includeTiffs === options.includeTiffs && queued.includeTiles === options.includeTiles;
    });
    if (waiting) return { jobId: waiting.id };
    // Export jobs need read only: an anonymous reader of a public room is bounded by its address.
    const actor: JobCaller = caller.kind === 'anonymous' ? { kind: 'anonymous', id: address } : actorOf(caller);
    await this.makeRoomFor(actor);
    const id = randomUUID();
    await this.queue.enqueue(ROOM_EXPORT_JOB, { id, roomId: room.id, payload: options, actor, requestId });
    return { jobId: id };
  }

  async status(room: RoomRow, jobId: string): Promise<ExportJob> {
    return presentExportJob(await this.find(room, jobId));
  }

  async artifact(room: RoomRow, jobId: string): Promise<{ stream: Readable; bytes: number }> {
    const found = await this.files.get(await this.artifactKey(room, jobId));
    if (found) return found;
    // Its bytes went after its row was read: the row says why now (expired: 410; room deleted: 404).
    throw new Error(`The export artifact ${await this.artifactKey(room, jobId)} is missing`);
  }

  /** The key of the job's artifact; 404 while the job has not completed, 410 once the artifact was removed. */
  private async artifactKey(room: RoomRow, jobId: string): Promise<string> {
    const row = await this.find(room, jobId);
    if (hasExpired(row))
      throw gone(
        'export_expired',
        'The export was removed (24 hours after it finished, or when its requester started newer exports); start a new export job',
      );
    if (row.stage !== 'complete' || !row.artifact_key) throw notFound('Export artifact (the job has not completed)');
    return row.artifact_key;
  }

  /** Removes the artifacts of jobs that finished more than 24 hours ago. */
  async sweep(now = Date.now()): Promise<void> {
    for (const row of await this.jobs.artifactsFinishedBefore(now - ARTIFACT_LIFETIME_MS)) await this.expire(row);
  }

  /**
   * Room for one more export job of the caller: beyond EXPORTS_PER_CALLER, the caller's own
   * oldest finished artifacts go (410 from then on); 429 while all of theirs are in progress.
   */
  private async makeRoomFor(actor: JobCaller, now = Date.now()): Promise<void> {
    const held = await this.jobs.held(actor, now - ARTIFACT_LIFETIME_MS);
    const finished = held
      .filter((row) => row.stage === 'complete')
      .sort((a, b) => (a.finished_at ?? 0) - (b.finished_at ?? 0));
    const excess = held.length + 1 - EXPORTS_PER_CALLER;
    if (excess > finished.length) throw tooManyRequests(RUNNING_RETRY_S);
    for (const row of finished.slice(0, Math.max(0, excess))) await this.expire(row);
  }

  /** The row first, then the bytes: a download that read the row before finds them gone and reads it again (410). */
  private async expire(row: JobRow): Promise<void> {
    await this.jobs.forgetArtifact(row.id);
    if (row.artifact_key) await this.files.discard([row.artifact_key]);
  }

  private async find(room: RoomRow, jobId: string): Promise<JobRow> {
    const row = await this.jobs.find(room.id, jobId);
    if (!row) throw notFound('Export job');
    return row;
  }

  /**
   * The job's work (run again from the start after an interruption): the GeoPackage into the
   * blob store, kept as the job's artifact for 24 hours.
   */
  private async run(job: JobContext<ExportOptions>) {
    try {
      const file = await this.exporter.write(job.roomId, job.payload, undefined, job.signal);
      const key = blobKeys.exportArtifact(job.roomId, job.id);
      const bytes = await this.files.putUnrecorded(key, file);
      return { message: 'Exported', result: { bytes }, artifactKey: key };
    } catch (error) {
      if (job.signal.aborted || error instanceof AppError) throw error;
      // Anything else may name our paths: the caller reads this, the queue logs the cause.
      throw new JobFailure('The export failed; try again', { cause: error });
    }
  }
}
