import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/database.js';
import type { JobsTable } from '../db/tables.js';
import { AppError } from '../errors.js';

export type JobRow = JobsTable;
export type JobStage = 'queued' | 'processing' | 'complete' | 'error';

export interface JobContext {
  id: string;
  roomId: string;
  payload: Record<string, unknown>;
  actor: { kind: 'user' | 'token'; id: string };
  /** Aborted when the service shuts down; the job is then resumed at the next start. */
  signal: AbortSignal;
  /** Reports progress (0 to 100) and an optional message; cheap to call often. */
  progress(percent: number, message?: string): Promise<void>;
}

export interface JobOutcome {
  message: string;
  result?: unknown;
}

/** A job's work. It must be safe to run again from the start after an interruption. */
export type JobHandler = (job: JobContext) => Promise<JobOutcome>;

/** A failure the job's caller should read as is (e.g. "feature 12: geometry must be a Point"). */
export class JobFailure extends Error {}

export interface NewJob {
  id: string;
  kind: string;
  roomId: string;
  payload: Record<string, unknown>;
  actor: { kind: 'user' | 'token'; id: string };
}

/** Long work that callers poll: in-process with durable rows now, BullMQ later. */
export interface JobQueue {
  /** `undo` removes a job's partial work when it is given up after repeated interruptions. */
  register(kind: string, handler: JobHandler, undo?: (job: JobRow) => Promise<void>): void;
  enqueue(job: NewJob): Promise<void>;
  find(id: string): Promise<JobRow | undefined>;
  /** Picks up jobs a previous process left queued or interrupted. */
  start(): Promise<void>;
  close(): Promise<void>;
}

/** An interrupted job is tried again this many times in all before it ends in `error`. */
const MAX_ATTEMPTS = 3;
const PROGRESS_INTERVAL_MS = 250;

export class InProcessJobQueue implements JobQueue {
  private readonly handlers = new Map<string, JobHandler>();
  private readonly undoers = new Map<string, (job: JobRow) => Promise<void>>();
  private readonly waiting: string[] = [];
  private readonly running = new Map<string, Promise<void>>();
  private readonly abort = new AbortController();

  constructor(
    private readonly db: Db,
    private readonly log: FastifyBaseLogger,
    private readonly concurrency = 1,
  ) {}

  register(kind: string, handler: JobHandler, undo?: (job: JobRow) => Promise<void>): void {
    this.handlers.set(kind, handler);
    if (undo) this.undoers.set(kind, undo);
  }

  async enqueue(job: NewJob): Promise<void> {
    const now = Date.now();
    await this.db
      .insertInto('jobs')
      .values({
        id: job.id,
        room_id: job.roomId,
        kind: job.kind,
        stage: 'queued',
        progress: 0,
        message: 'Waiting to start',
        payload: JSON.stringify(job.payload),
        result: null,
        actor_kind: job.actor.kind,
        actor_id: job.actor.id,
        attempts: 0,
        created_at: now,
        updated_at: now,
      })
      .execute();
    this.waiting.push(job.id);
    this.pump();
  }

  find(id: string) {
    return this.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async start(): Promise<void> {
    const unfinished = await this.db
      .selectFrom('jobs')
      .selectAll()
      .where('stage', 'in', ['queued', 'processing'])
      .orderBy('created_at')
      .execute();
    for (const job of unfinished) {
      if (job.attempts >= MAX_ATTEMPTS) {
        await this.undoers.get(job.kind)?.(job);
        await this.update(job.id, { stage: 'error', message: `Interrupted ${job.attempts} times by restarts; giving up` });
      } else {
        await this.update(job.id, { stage: 'queued', message: 'Resuming after a restart' });
        this.waiting.push(job.id);
      }
    }
    this.pump();
  }

  async close(): Promise<void> {
    this.abort.abort();
    this.waiting.length = 0;
    await Promise.allSettled(this.running.values());
  }

  private pump() {
    while (!this.abort.signal.aborted && this.running.size < this.concurrency && this.waiting.length) {
      const id = this.waiting.shift()!;
      const run = this.run(id).finally(() => {
        this.running.delete(id);
        this.pump();
      });
      this.running.set(id, run);
    }
  }

  private async run(id: string): Promise<void> {
    const row = await this.find(id);
    if (!row || row.stage !== 'queued') return;
    const handler = this.handlers.get(row.kind);
    if (!handler) {
      await this.update(id, { stage: 'error', message: `No worker for jobs of kind ${row.kind}` });
      return;
    }
    await this.update(id, { stage: 'processing', attempts: row.attempts + 1, message: 'Processing' });
    let lastWrite = 0;
    const context: JobContext = {
      id,
      roomId: row.room_id,
      payload: JSON.parse(row.payload),
      actor: { kind: row.actor_kind as 'user' | 'token', id: row.actor_id },
      signal: this.abort.signal,
      progress: async (percent, message) => {
        const now = Date.now();
        if (now - lastWrite < PROGRESS_INTERVAL_MS) return;
        lastWrite = now;
        await this.update(id, { progress: Math.min(99, Math.max(0, Math.round(percent * 10) / 10)), ...(message && { message }) });
      },
    };
    try {
      const outcome = await handler(context);
      await this.update(id, {
        stage: 'complete',
        progress: 100,
        message: outcome.message,
        result: outcome.result === undefined ? null : JSON.stringify(outcome.result),
      });
    } catch (error) {
      if (this.abort.signal.aborted) {
        // Shutting down: leave it for the next start to resume.
        await this.update(id, { stage: 'queued', message: 'Interrupted by a shutdown; will resume' }).catch(() => undefined);
        return;
      }
      const known = error instanceof JobFailure || error instanceof AppError;
      if (!known) this.log.error({ err: error, jobId: id }, 'job failed');
      await this.update(id, { stage: 'error', message: known ? (error as Error).message : 'Processing failed unexpectedly' });
    }
  }

  private async update(id: string, changes: Partial<JobRow>): Promise<void> {
    await this.db.updateTable('jobs').set({ ...changes, updated_at: Date.now() }).where('id', '=', id).execute();
  }
}
