import type { FastifyBaseLogger } from 'fastify';
import type { Static, TSchema } from 'typebox';
import type { Db } from '../db/database.js';
import type { JobsTable } from '../db/tables.js';
import { type JobCount, JobRunner, type ListedStage } from './job-runner.js';
import type { JobObserver } from './metrics.js';

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
  /** The job's logger: its lines carry `jobId`, `kind` and the queuing request's `reqId`. */
  log: FastifyBaseLogger;
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
  /** The id of the request that queues it (`request.id`): the job's log lines carry it as `reqId`. */
  requestId?: string;
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

/** Long work that callers poll: in-process with durable rows (one instance), or BullMQ (several). */
export interface JobQueue {
  /** Gives a kind its worker; every kind is registered in src/jobs.ts, before `start`. */
  register<T extends TSchema>(kind: JobKind<T>, worker: JobWorker<Static<T>>): void;
  /** Queues a job of a registered kind (an unregistered one is refused). */
  enqueue<T extends TSchema>(kind: JobKind<T>, job: NewJob<Static<T>>): Promise<void>;
  find(id: string): Promise<JobRow | undefined>;
  /** Jobs waiting (`queued`), running (`processing`) or failed (`error`), newest first (the admin's list). */
  list(stage: ListedStage, limit: number): Promise<JobRow[]>;
  /** Jobs waiting, running and failed by kind and stage (the metrics). */
  counts(): Promise<JobCount[]>;
  /** Queues a failed job again, to run from the start; false when it is not failed. */
  retry(id: string): Promise<boolean>;
  /**
   * Ends a waiting or running job as failed, its partial work undone as for a job given up
   * after interruptions (JobRunner.cancel); false when it is neither.
   */
  cancel(id: string): Promise<boolean>;
  /**
   * Picks up jobs a previous process left queued or interrupted. Refuses to start (and logs
   * why) when one of them is of a kind no worker is registered for.
   */
  start(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Jobs in this process, with durable rows in `jobs` (one instance per database): `start`
 * resumes what a previous process left queued or interrupted.
 */
export class InProcessJobQueue implements JobQueue {
  private readonly runner: JobRunner;
  private readonly waiting: string[] = [];
  private readonly running = new Map<string, Promise<void>>();
  private readonly abort = new AbortController();

  constructor(
    db: Db,
    log: FastifyBaseLogger,
    private readonly concurrency = 1,
    observer?: JobObserver,
  ) {
    this.runner = new JobRunner(db, log, observer);
  }

  register<T extends TSchema>(kind: JobKind<T>, worker: JobWorker<Static<T>>): void {
    this.runner.register(kind, worker);
  }

  async enqueue<T extends TSchema>(kind: JobKind<T>, job: NewJob<Static<T>>): Promise<void> {
    await this.runner.insert(kind, job);
    this.waiting.push(job.id);
    this.pump();
  }

  find(id: string) {
    return this.runner.find(id);
  }

  list(stage: ListedStage, limit: number) {
    return this.runner.list(stage, limit);
  }

  counts(): Promise<JobCount[]> {
    return this.runner.counts();
  }

  async retry(id: string): Promise<boolean> {
    if (!(await this.runner.retry(id))) return false;
    this.waiting.push(id);
    this.pump();
    return true;
  }

  /** A cancelled job left in `waiting` is skipped when its turn comes (its row has ended). */
  async cancel(id: string): Promise<boolean> {
    return (await this.runner.cancel(id)) !== undefined;
  }

  async start(): Promise<void> {
    for (const job of await this.runner.unfinished()) {
      if (job.stage === 'processing')
        await this.runner.update(job.id, { stage: 'queued', message: 'Resuming after a restart' });
      this.waiting.push(job.id);
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
      const run = this.runner
        .run(id, this.abort.signal)
        .then(() => undefined)
        .finally(() => {
          this.running.delete(id);
          this.pump();
        });
      this.running.set(id, run);
    }
  }
}
