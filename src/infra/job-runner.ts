import type { FastifyBaseLogger } from 'fastify';
import type { Static, TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import type { Db } from '../db/database.js';
import type { JobObserver, JobOutcome } from './metrics.js';
import { AppError } from '../errors.js';
import {
  type JobActor,
  type JobContext,
  JobFailure,
  type JobKind,
  type JobRow,
  type JobWorker,
  type NewJob,
} from './job-queue.js';

/** A job is started this many times in all (interruptions included) before it ends in `error`; fixed, a job that crashes its process three times will again. */
export const MAX_ATTEMPTS = 3;
/** A job's progress is written at most this often: fixed, it spares the database, not a tuning knob. */
export const PROGRESS_INTERVAL_MS = 250;
/** How often a running job's row is read to see whether an admin cancelled it (on any instance). */
const CANCEL_CHECK_MS = 500;
/** The message of a job an admin cancelled. */
export const CANCELLED = 'Cancelled by an administrator';

/** The stages an admin lists: waiting (`queued`), running (`processing`), failed (`error`). */
export type ListedStage = 'queued' | 'processing' | 'error';

/** A job running in this process: its own abort (a cancel), and when it has ended. */
interface Running {
  abort: AbortController;
  ended: Promise<unknown>;
}

interface Kind {
  check: ReturnType<typeof Compile>;
  // biome-ignore lint/suspicious/noExplicitAny: each kind registers its own payload type
  worker: JobWorker<any>;
}

/** Jobs of one kind in one stage (`JobRunner.counts`). */
export interface JobCount {
  kind: string;
  state: string;
  count: number;
  /** When the oldest of them was queued (ms). */
  oldestAt: number | null;
}

/** How a run ended: done (complete or error, or nothing to do), or interrupted by a shutdown (to resume). */
export type RunEnd = 'done' | 'interrupted';

/**
 * What every queue shares: the registered kinds and the `jobs` rows, the durable record and
 * the polled answer. Whatever carries a job to a worker (a list in this process, BullMQ)
 * calls `run(id)`, which reads the row, runs the worker and writes every state back.
 */
export class JobRunner {
  private readonly kinds = new Map<string, Kind>();
  private readonly running = new Map<string, Running>();

  constructor(
    private readonly db: Db,
    private readonly log: FastifyBaseLogger,
    /** Hears how each run ends (the metrics), when there is one. */
    private readonly observer?: JobObserver,
  ) {}

  register<T extends TSchema>(kind: JobKind<T>, worker: JobWorker<Static<T>>): void {
    if (this.kinds.has(kind.name)) throw new Error(`The job kind ${kind.name} is registered twice`);
    this.kinds.set(kind.name, { check: Compile(kind.payload), worker });
  }

  /** Writes the job's row, `queued`; refuses a kind without a worker. */
  async insert<T extends TSchema>({ name: kind }: JobKind<T>, job: NewJob<Static<T>>): Promise<void> {
    if (!this.kinds.has(kind)) throw new Error(`No worker is registered for jobs of kind ${kind} (src/jobs.ts)`);
    const now = Date.now();
    await this.db
      .insertInto('jobs')
      .values({
        id: job.id,
        room_id: job.roomId,
        kind,
        stage: 'queued',
        progress: 0,
        message: 'Waiting to start',
        payload: JSON.stringify(job.payload),
        result: null,
        artifact_key: null,
        actor_kind: job.actor.kind,
        actor_id: job.actor.id,
        attempts: 0,
        created_at: now,
        updated_at: now,
        started_at: null,
        finished_at: null,
        request_id: job.requestId ?? null,
      })
      .execute();
  }

  /** Removes the row of a job that could not be queued. */
  async remove(id: string): Promise<void> {
    await this.db.deleteFrom('jobs').where('id', '=', id).execute();
  }

  find(id: string) {
    return this.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /**
   * Jobs queued or processing, oldest first. Refuses (and logs why) when one of them is of a
   * kind no worker is registered for.
   */
  async unfinished(): Promise<JobRow[]> {
    const rows = await this.db
      .selectFrom('jobs')
      .selectAll()
      .where('stage', 'in', ['queued', 'processing'])
      .orderBy('created_at')
      .execute();
    const unknown = [...new Set(rows.map((job) => job.kind))].filter((kind) => !this.kinds.has(kind));
    if (unknown.length) {
      const message = `Refusing to start: jobs of kind ${unknown.join(', ')} are waiting, and no worker is registered for them (src/jobs.ts)`;
      this.log.fatal({ kinds: unknown }, message);
      throw new Error(message);
    }
    return rows;
  }

  async update(id: string, changes: Partial<JobRow>): Promise<void> {
    await this.db
      .updateTable('jobs')
      .set({ ...changes, updated_at: Date.now() })
      .where('id', '=', id)
      .execute();
  }

  /**
   * Runs the job, queued or interrupted (`processing`), from the start; a job that has ended
   * is left as it is. One started MAX_ATTEMPTS times already is given up: its worker's `undo`
   * removes its partial work and it ends in `error`. `signal` aborts it for a shutdown: the
   * row goes back to `queued`, to resume.
   */
  async run(id: string, signal: AbortSignal): Promise<RunEnd> {
    const row = await this.find(id);
    if (!row || (row.stage !== 'queued' && row.stage !== 'processing')) return 'done';
    const kind = this.kinds.get(row.kind);
    if (!kind) return this.fail(id, `No worker for jobs of kind ${row.kind}`);
    const payload = this.payloadOf(kind, row);
    if (!payload.ok) return this.fail(id, 'The job was queued by another version of the service and cannot run');
    if (row.attempts >= MAX_ATTEMPTS) {
      await kind.worker.undo?.(row, payload.value);
      return this.fail(id, `Interrupted ${row.attempts} times; giving up`);
    }
    // Only a job still waiting or interrupted starts: an admin may have cancelled it meanwhile.
    const started = await this.updateWhile(id, ['queued', 'processing'], {
      stage: 'processing',
      attempts: row.attempts + 1,
      message: 'Processing',
      started_at: Date.now(),
    });
    if (!started) return 'done';
    const log = this.jobLog(row);
    log.info({ attempt: row.attempts + 1 }, 'job started');
    const abort = new AbortController();
    const stop = () => abort.abort();
    signal.addEventListener('abort', stop, { once: true });
    // A cancel on another instance is seen in the row (this instance's own aborts at once).
    const watch = setInterval(() => {
      this.find(id).then(
        (now) => now?.stage !== 'processing' && abort.abort(),
        () => undefined,
      );
    }, CANCEL_CHECK_MS);
    const ended = this.runStarted(row, kind, payload.value, { shutdown: signal, abort, log });
    this.running.set(id, { abort, ended });
    try {
      return await ended;
    } finally {
      clearInterval(watch);
      signal.removeEventListener('abort', stop);
      this.running.delete(id);
    }
  }

  private async runStarted(
    row: JobRow,
    kind: Kind,
    payload: unknown,
    { shutdown, abort, log }: { shutdown: AbortSignal; abort: AbortController; log: FastifyBaseLogger },
  ): Promise<RunEnd> {
    const id = row.id;
    const startedAt = Date.now();
    const ended = (outcome: JobOutcome) => {
      const seconds = (Date.now() - startedAt) / 1000;
      this.observer?.jobEnded(row.kind, outcome, seconds);
      log.info({ outcome, seconds }, 'job ended');
    };
    try {
      const outcome = await kind.worker.run(this.contextOf(row, payload, abort.signal, log));
      // Written even over a cancel that came too late: the job's work is published.
      await this.update(id, {
        stage: 'complete',
        progress: 100,
        message: outcome.message,
        result: outcome.result === undefined ? null : JSON.stringify(outcome.result),
        artifact_key: outcome.artifactKey ?? null,
        finished_at: Date.now(),
      });
      ended('complete');
      return 'done';
    } catch (error) {
      if (shutdown.aborted) {
        // Shutting down: left for a worker to resume (unless an admin cancelled it).
        const requeued = await this.updateWhile(id, ['processing'], {
          stage: 'queued',
          message: 'Interrupted by a shutdown; will resume',
        }).catch(() => false);
        if (requeued) {
          ended('interrupted');
          return 'interrupted';
        }
      }
      if (abort.signal.aborted) {
        // Cancelled: its partial work is undone as for a job given up after interruptions.
        await kind.worker.undo?.(row, payload);
        ended('cancelled');
        return 'done';
      }
      const known = error instanceof JobFailure || error instanceof AppError;
      if (!known) log.error({ err: error }, 'job failed');
      else if (error instanceof JobFailure && error.cause !== undefined) log.error({ err: error.cause }, 'job failed');
      ended('error');
      return this.fail(id, known ? (error as Error).message : 'Processing failed unexpectedly');
    }
  }

  /** Jobs in a stage, newest first, at most `limit`. */
  list(stage: ListedStage, limit: number): Promise<JobRow[]> {
    return this.db
      .selectFrom('jobs')
      .selectAll()
      .where('stage', '=', stage)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  /** Jobs waiting, running and failed by kind and stage, with the oldest's creation time (the metrics). */
  async counts(): Promise<JobCount[]> {
    const rows = await this.db
      .selectFrom('jobs')
      .select(({ fn }) => [
        'kind',
        'stage',
        fn.countAll<number | string>().as('count'),
        fn.min('created_at').as('oldest'),
      ])
      .where('stage', 'in', ['queued', 'processing', 'error'])
      .groupBy(['kind', 'stage'])
      .execute();
    return rows.map((row) => ({
      kind: row.kind,
      state: row.stage,
      count: Number(row.count),
      oldestAt: row.oldest === null ? null : Number(row.oldest),
    }));
  }

  /**
   * Puts a failed job back in the queue, to run from the start with its attempts counted
   * anew; false when it is not failed. The queue then hands it to a worker.
   */
  retry(id: string): Promise<boolean> {
    return this.updateWhile(id, ['error'], {
      stage: 'queued',
      progress: 0,
      message: 'Waiting to start',
      result: null,
      attempts: 0,
      started_at: null,
      finished_at: null,
    });
  }

  /**
   * Ends a waiting or running job as failed (`CANCELLED`); its partial work is undone by its
   * worker's `undo`, as for a job given up after interruptions. A waiting one is undone here;
   * a running one by whoever runs it, as soon as it sees the cancel (at once in this process,
   * within CANCEL_CHECK_MS elsewhere), and this waits for it when it runs here.
   * `'waiting'` or `'running'` by what it was; undefined when it was neither.
   */
  async cancel(id: string): Promise<'waiting' | 'running' | undefined> {
    const ended = { stage: 'error', message: CANCELLED, finished_at: Date.now() };
    if (await this.updateWhile(id, ['queued'], ended)) {
      const row = await this.find(id);
      const kind = row && this.kinds.get(row.kind);
      if (row && kind) {
        const payload = this.payloadOf(kind, row);
        if (payload.ok) await kind.worker.undo?.(row, payload.value);
      }
      return 'waiting';
    }
    if (!(await this.updateWhile(id, ['processing'], ended))) return undefined;
    const here = this.running.get(id);
    if (here) {
      here.abort.abort();
      await here.ended.catch(() => undefined);
    }
    return 'running';
  }

  /** Changes the row only while it is in one of `stages`; whether it did. */
  private async updateWhile(id: string, stages: string[], changes: Partial<JobRow>): Promise<boolean> {
    const result = await this.db
      .updateTable('jobs')
      .set({ ...changes, updated_at: Date.now() })
      .where('id', '=', id)
      .where('stage', 'in', stages)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  private async fail(id: string, message: string): Promise<RunEnd> {
    await this.update(id, { stage: 'error', message, finished_at: Date.now() });
    return 'done';
  }

  /** The logger of a job's run: its lines carry the job, its kind and the request that queued it. */
  private jobLog(row: JobRow): FastifyBaseLogger {
    return this.log.child({ ...(row.request_id !== null && { reqId: row.request_id }), jobId: row.id, kind: row.kind });
  }

  private contextOf(row: JobRow, payload: unknown, signal: AbortSignal, log: FastifyBaseLogger): JobContext {
    const id = row.id;
    let lastWrite = 0;
    return {
      id,
      roomId: row.room_id,
      payload,
      actor: row.actor_kind === 'anonymous' ? null : { kind: row.actor_kind as JobActor['kind'], id: row.actor_id },
      signal,
      log,
      progress: async (percent, message, partial) => {
        const now = Date.now();
        if (now - lastWrite < PROGRESS_INTERVAL_MS && partial === undefined) return;
        lastWrite = now;
        await this.updateWhile(id, ['processing'], {
          progress: Math.min(99, Math.max(0, Math.round(percent * 10) / 10)),
          ...(message && { message }),
          ...(partial && { result: JSON.stringify(partial) }),
        });
      },
    };
  }

  /** The row's payload, if it fits the schema its kind was registered with. */
  private payloadOf(kind: Kind, row: JobRow): { ok: true; value: unknown } | { ok: false } {
    let value: unknown;
    try {
      value = JSON.parse(row.payload);
    } catch {
      return { ok: false };
    }
    return kind.check.Check(value) ? { ok: true, value } : { ok: false };
  }
}
