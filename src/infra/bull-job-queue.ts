import { type Job, Queue, WaitingError, Worker } from 'bullmq';
import type { FastifyBaseLogger } from 'fastify';
import type { Static, TSchema } from 'typebox';
import type { Db } from '../db/database.js';
import { bullmqConnection } from './bullmq.js';
import type { JobKind, JobQueue, JobWorker, NewJob } from './job-queue.js';
import { type JobCount, JobRunner, type ListedStage, MAX_ATTEMPTS } from './job-runner.js';
import type { JobObserver } from './metrics.js';

const QUEUE_NAME = 'jobs';

/**
 * When a worker stops without a word (SIGKILL, a lost machine): it renews its lock on a job
 * every `lockDurationMs / 2`, so the lock lapses at most `lockDurationMs` after it stopped;
 * every worker looks for lapsed locks every `stalledIntervalMs` (a job is marked on one look
 * and taken back on the next). Another worker has the job again within lock + 2 intervals,
 * 40 s, under the 60 s the scale-out rule allows. Raising the lock makes a false stall (an
 * event loop blocked past it) rarer and the hand-over slower.
 */
export const STALL_TIMING = { lockDurationMs: 20_000, stalledIntervalMs: 10_000 };

export interface BullJobQueueOptions {
  db: Db;
  log: FastifyBaseLogger;
  redisUrl: string;
  /** Jobs this instance runs at once; 0 runs none, it only queues (INSTANCE_ROLE=http). */
  concurrency: number;
  /** Hears how each run ends (the metrics). */
  observer?: JobObserver;
}

/**
 * Jobs carried by BullMQ to any worker of the deployment. The `jobs` row stays the durable
 * record and the polled answer (any instance reads the same); the BullMQ job carries only the
 * id (the same id: queuing twice is one job) and BullMQ gives it to one worker at a time.
 * A worker that joins resets nothing; a job whose worker stopped is taken back by BullMQ
 * (STALL_TIMING) and run again from the start, its attempts counted in the row: started
 * MAX_ATTEMPTS times, it is given up (its worker's `undo`, then `error`).
 */
export class BullJobQueue implements JobQueue {
  private readonly runner: JobRunner;
  private readonly queue: Queue;
  private worker?: Worker;
  private readonly abort = new AbortController();

  constructor(private readonly options: BullJobQueueOptions) {
    this.runner = new JobRunner(options.db, options.log, options.observer);
    const { connection, prefix } = bullmqConnection(options.redisUrl);
    // Queuing fails at once while Redis is unreachable, rather than holding the request.
    this.queue = new Queue(QUEUE_NAME, { connection: { ...connection, enableOfflineQueue: false }, prefix });
    this.queue.on('error', (error) => options.log.error({ err: error }, 'job queue: Redis error'));
  }

  register<T extends TSchema>(kind: JobKind<T>, worker: JobWorker<Static<T>>): void {
    this.runner.register(kind, worker);
  }

  async enqueue<T extends TSchema>(kind: JobKind<T>, job: NewJob<Static<T>>): Promise<void> {
    await this.runner.insert(kind, job);
    try {
      await this.add(kind.name, job.id);
    } catch (error) {
      await this.runner.remove(job.id);
      throw error;
    }
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

  /** The failed job's BullMQ job was removed when it failed: a new one with the same id carries it. */
  async retry(id: string): Promise<boolean> {
    const row = await this.runner.find(id);
    if (!row || !(await this.runner.retry(id))) return false;
    await this.add(row.kind, id);
    return true;
  }

  /**
   * The row says cancelled; a waiting BullMQ job is removed (one a worker holds ends there,
   * when the worker sees the row).
   */
  async cancel(id: string): Promise<boolean> {
    const was = await this.runner.cancel(id);
    if (was === 'waiting') await this.queue.remove(id).catch(() => undefined);
    return was !== undefined;
  }

  /**
   * Starts this instance's worker (none with concurrency 0). Jobs whose row is unfinished but
   * which BullMQ does not hold (queued before the deployment had Redis, or failed by BullMQ
   * after too many stalls) are handed to it again; jobs other workers run are left alone.
   */
  async start(): Promise<void> {
    if (this.options.concurrency <= 0) return;
    for (const row of await this.runner.unfinished()) {
      if (!(await this.queue.getJob(row.id))) await this.add(row.kind, row.id);
    }
    const { connection, prefix } = bullmqConnection(this.options.redisUrl);
    this.worker = new Worker(QUEUE_NAME, (job, token) => this.process(job, token), {
      connection: { ...connection, maxRetriesPerRequest: null },
      prefix,
      concurrency: this.options.concurrency,
      lockDuration: STALL_TIMING.lockDurationMs,
      stalledInterval: STALL_TIMING.stalledIntervalMs,
      // The row counts attempts and gives up; BullMQ's own limit is only a backstop past it.
      maxStalledCount: MAX_ATTEMPTS,
    });
    this.worker.on('error', (error) => this.options.log.error({ err: error }, 'job worker: Redis error'));
    await this.worker.waitUntilReady();
  }

  /** Stops taking jobs; a running one is aborted and handed back to the queue, to resume. */
  async close(): Promise<void> {
    this.abort.abort();
    // The worker first (a running job goes back to waiting), then the queue; both even when
    // Redis is gone (closing then fails: there is nothing left to close).
    // A connection that cannot say goodbye is dropped, so that nothing keeps reconnecting.
    await this.worker?.close().catch(() => this.worker?.disconnect());
    await this.queue.close().catch(() => this.queue.disconnect());
  }

  private async add(kind: string, id: string): Promise<void> {
    await this.queue.add(kind, {}, { jobId: id, removeOnComplete: true, removeOnFail: true });
  }

  private async process(job: Job, token?: string): Promise<void> {
    const end = await this.runner.run(job.id!, this.abort.signal);
    if (end === 'interrupted') {
      await job.moveToWait(token);
      throw new WaitingError();
    }
  }
}
