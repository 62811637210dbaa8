import type { FastifyBaseLogger } from 'fastify';
import type { Static, TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import type { Db } from '../db/database.js';
import type { JobsTable } from '../db/tables.js';
import { AppError } from '../errors.js';

export type JobRow = JobsTable;
export type JobStage = 'queued' | 'processing' | 'complete' | 'error';

/** Who queued a job: a user or a room token (auth's Actor). */
export interface JobActor {
  kind: 'user' | 'token';
  id: string;
}

/**
 * Who queues a job: an actor, or an anonymous reader of a public room, known by its client
 * address (only for jobs that change nothing, such as an export).
 */
export type JobCaller = JobActor | { kind: 'anonymous'; id: string };

export interface JobContext<P = unknown> {
  id: string;
  roomId: string;
  payload: P;
  /** Who queued it; null for an anonymous reader of a public room (only jobs that change nothing, such as an export). */
  actor: JobActor | null;
  /** Aborted when the service shuts down; the job is then resumed at the next start. */
  signal: AbortSignal;
  /** Reports progress (0 to 100) and an optional message; cheap to call often. `partial` results show while it runs (e.g. layersCloned). */
  progress(percent: number, message?: string, partial?: Record<string, unknown>): Promise<void>;
}

export interface JobOutcome {
  message: string;
  result?: unknown;
  /** A file the job made in the blob store, kept with the job until a sweep removes it (an export's GeoPackage). */
  artifactKey?: string;
}

/** A job's work. It must be safe to run again from the start after an interruption. */
export type JobHandler<P = unknown> = (job: JobContext<P>) => Promise<JobOutcome>;

/**
 * A failure the job's caller should read as is (e.g. "feature 12: geometry must be a Point").
 * Given a `cause`, the queue logs the cause (the message stands in for an unexpected error).
 */
export class JobFailure extends Error {}

export interface NewJob<P> {
  id: string;
  roomId: string;
  payload: P;
  actor: JobCaller;
}

/** The actor a job that changes the room needs; such jobs are never queued by anonymous callers. */
export function jobActor(job: JobContext): JobActor {
  if (!job.actor) throw new Error(`Job ${job.id} changes its room but was queued by an anonymous caller`);
  return job.actor;
}

/**
 * A kind of job: its name and its payload's schema (checked when it runs, since rows outlive
 * code versions). The domain that queues it declares it; src/jobs.ts gives it its worker.
 */
export interface JobKind<T extends TSchema = TSchema> {
  readonly name: string;
  readonly payload: T;
}

export const jobKind = <T extends TSchema>(name: string, payload: T): JobKind<T> => ({ name, payload });

/**
 * How a kind of job is worked: `run`, and `undo`, which removes a job's partial work when it
 * is given up after repeated interruptions.
 */
export interface JobWorker<P> {
  run: JobHandler<P>;
  undo?: (job: JobRow, payload: P) => Promise<void>;
}

/** Long work that callers poll: in-process with durable rows now, BullMQ later. */
export interface JobQueue {
  /** Gives a kind its worker; every kind is registered in src/jobs.ts, before `start`. */
  register<T extends TSchema>(kind: JobKind<T>, worker: JobWorker<Static<T>>): void;
  /** Queues a job of a registered kind (an unregistered one is refused). */
  enqueue<T extends TSchema>(kind: JobKind<T>, job: NewJob<Static<T>>): Promise<void>;
  find(id: string): Promise<JobRow | undefined>;
  /**
   * Picks up jobs a previous process left queued or interrupted. Refuses to start (and logs
   * why) when one of them is of a kind no worker is registered for.
   */
  start(): Promise<void>;
  close(): Promise<void>;
}

/** An interrupted job is tried again this many times in all before it ends in `error`. */
const MAX_ATTEMPTS = 3;
const PROGRESS_INTERVAL_MS = 250;

interface Kind {
  check: ReturnType<typeof Compile>;
  // biome-ignore lint/suspicious/noExplicitAny: each kind registers its own payload type
  worker: JobWorker<any>;
}

export class InProcessJobQueue implements JobQueue {
  private readonly kinds = new Map<string, Kind>();
  private readonly waiting: string[] = [];
  private readonly running = new Map<string, Promise<void>>();
  private readonly abort = new AbortController();

  constructor(
    private readonly db: Db,
    private readonly log: FastifyBaseLogger,
    private readonly concurrency = 1,
  ) {}

  register<T extends TSchema>(kind: JobKind<T>, worker: JobWorker<Static<T>>): void {
    if (this.kinds.has(kind.name)) throw new Error(`The job kind ${kind.name} is registered twice`);
    this.kinds.set(kind.name, { check: Compile(kind.payload), worker });
  }

  async enqueue<T extends TSchema>({ name: kind }: JobKind<T>, job: NewJob<Static<T>>): Promise<void> {
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
    const unknown = [...new Set(unfinished.map((job) => job.kind))].filter((kind) => !this.kinds.has(kind));
    if (unknown.length) {
      const message = `Refusing to start: jobs of kind ${unknown.join(', ')} are waiting, and no worker is registered for them (src/jobs.ts)`;
      this.log.fatal({ kinds: unknown }, message);
      throw new Error(message);
    }
    for (const job of unfinished) {
      if (job.attempts >= MAX_ATTEMPTS) {
        const kind = this.kinds.get(job.kind);
        const payload = this.payloadOf(job);
        if (kind?.worker.undo && payload.ok) await kind.worker.undo(job, payload.value);
        await this.update(job.id, {
          stage: 'error',
          message: `Interrupted ${job.attempts} times by restarts; giving up`,
          finished_at: Date.now(),
        });
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
    if (row?.stage !== 'queued') return;
    const kind = this.kinds.get(row.kind);
    if (!kind) {
      await this.update(id, {
        stage: 'error',
        message: `No worker for jobs of kind ${row.kind}`,
        finished_at: Date.now(),
      });
      return;
    }
    const payload = this.payloadOf(row);
    if (!payload.ok) {
      await this.update(id, {
        stage: 'error',
        message: 'The job was queued by another version of the service and cannot run',
        finished_at: Date.now(),
      });
      return;
    }
    await this.update(id, {
      stage: 'processing',
      attempts: row.attempts + 1,
      message: 'Processing',
      started_at: Date.now(),
    });
    let lastWrite = 0;
    const context: JobContext = {
      id,
      roomId: row.room_id,
      payload: payload.value,
      actor: row.actor_kind === 'anonymous' ? null : { kind: row.actor_kind as JobActor['kind'], id: row.actor_id },
      signal: this.abort.signal,
      progress: async (percent, message, partial) => {
        const now = Date.now();
        if (now - lastWrite < PROGRESS_INTERVAL_MS && partial === undefined) return;
        lastWrite = now;
        await this.update(id, {
          progress: Math.min(99, Math.max(0, Math.round(percent * 10) / 10)),
          ...(message && { message }),
          ...(partial && { result: JSON.stringify(partial) }),
        });
      },
    };
    try {
      const outcome = await kind.worker.run(context);
      await this.update(id, {
        stage: 'complete',
        progress: 100,
        message: outcome.message,
        result: outcome.result === undefined ? null : JSON.stringify(outcome.result),
        artifact_key: outcome.artifactKey ?? null,
        finished_at: Date.now(),
      });
    } catch (error) {
      if (this.abort.signal.aborted) {
        // Shutting down: leave it for the next start to resume.
        await this.update(id, { stage: 'queued', message: 'Interrupted by a shutdown; will resume' }).catch(
          () => undefined,
        );
        return;
      }
      const known = error instanceof JobFailure || error instanceof AppError;
      if (!known) this.log.error({ err: error, jobId: id }, 'job failed');
      else if (error instanceof JobFailure && error.cause !== undefined)
        this.log.error({ err: error.cause, jobId: id }, 'job failed');
      await this.update(id, {
        stage: 'error',
        message: known ? (error as Error).message : 'Processing failed unexpectedly',
        finished_at: Date.now(),
      });
    }
  }

  /** The row's payload, if it fits the schema its kind was registered with. */
  private payloadOf(row: JobRow): { ok: true; value: unknown } | { ok: false } {
    const kind = this.kinds.get(row.kind);
    let value: unknown;
    try {
      value = JSON.parse(row.payload);
    } catch {
      return { ok: false };
    }
    return kind?.check.Check(value) ? { ok: true, value } : { ok: false };
  }

  private async update(id: string, changes: Partial<JobRow>): Promise<void> {
    await this.db
      .updateTable('jobs')
      .set({ ...changes, updated_at: Date.now() })
      .where('id', '=', id)
      .execute();
  }
}
