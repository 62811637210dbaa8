import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, afterEach, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import { Type } from 'typebox';
import type { Db } from '../../src/db/database.js';
import { JobFailure, type JobQueue, type JobRow, jobKind, type NewJob } from '../../src/infra/job-queue.js';
import { CANCELLED, MAX_ATTEMPTS } from '../../src/infra/job-runner.js';
import { buildTestApp, createRoom, signup, type TestApp } from '../helpers.js';
import { recordingLogger } from './logger.js';

/**
 * What every JobQueue does (src/infra/job-queue.ts), run against each implementation: the
 * in-process one (test/infra/job-queue-contract.test.ts, both databases) and BullMQ
 * (test/scale-out/job-queue-bullmq.test.ts). The `jobs` row is the answer, polled from the
 * database; `shared` implementations also hold with several queues on one database.
 */
export interface QueueMaker {
  /** Several queues (instances) may share one database: BullMQ. */
  shared: boolean;
  /** A queue on the database, running `concurrency` jobs at once (0: it only queues), logging to `log`. */
  make(db: Db, concurrency: number, log: FastifyBaseLogger): JobQueue;
}

/** A job that waits for its release, then ends as told. */
export const Gate = jobKind('contract-gate', Type.Object({ n: Type.Integer() }));

export interface Gates {
  /** Runs of each job id, in every queue of the test. */
  runs: Map<string, number>;
  /** Undos of each job id. */
  undos: Map<string, number>;
  /** Lets the job finish (with a failure when given one). */
  release(id: string, failure?: Error): void;
}

/** Registers the gate kind on queues, all sharing one record of runs. */
export function gates() {
  const runs = new Map<string, number>();
  const undos = new Map<string, number>();
  const waiting = new Map<string, { promise: Promise<Error | undefined>; resolve(failure?: Error): void }>();
  const gateOf = (id: string) => {
    if (!waiting.has(id)) {
      let resolve!: (failure?: Error) => void;
      const promise = new Promise<Error | undefined>((done) => (resolve = done));
      waiting.set(id, { promise, resolve });
    }
    return waiting.get(id)!;
  };
  const record: Gates = { runs, undos, release: (id, failure) => gateOf(id).resolve(failure) };
  const register = (queue: JobQueue) =>
    queue.register(Gate, {
      run: async (job) => {
        runs.set(job.id, (runs.get(job.id) ?? 0) + 1);
        await job.progress(50, 'Halfway');
        const aborted = new Promise<never>((_, reject) =>
          job.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }),
        );
        aborted.catch(() => undefined); // when the gate opens first
        const failure = await Promise.race([gateOf(job.id).promise, aborted]);
        if (failure) throw failure;
        return { message: `Gate ${job.payload.n} passed`, result: { n: job.payload.n } };
      },
      undo: async (row) => void undos.set(row.id, (undos.get(row.id) ?? 0) + 1),
    });
  return { ...record, register };
}

/** Polls the row until `done` holds; fails after `ms` (a deadline, not a measurement). */
export async function rowWhen(db: Db, id: string, done: (row: JobRow) => boolean, ms = 20_000): Promise<JobRow> {
  const deadline = Date.now() + ms;
  for (;;) {
    const row = await db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
    if (row && done(row)) return row;
    if (Date.now() > deadline) throw new Error(`job ${id} is still ${JSON.stringify(row)}`);
    await sleep(25);
  }
}

const ended = (row: JobRow) => row.stage === 'complete' || row.stage === 'error';

export function jobQueueContract(name: string, maker: QueueMaker) {
  describe(`job queue contract: ${name}`, () => {
    let t: TestApp;
    let db: Db;
    let roomId: string;
    const open: JobQueue[] = [];
    /** A started queue with the gate registered; closed after the test. */
    const started = async (g: ReturnType<typeof gates>, concurrency = 1, log = recordingLogger().logger) => {
      const queue = maker.make(db, concurrency, log);
      open.push(queue);
      g.register(queue);
      await queue.start();
      return queue;
    };
    const newJob = (n: number): NewJob<{ n: number }> => ({
      id: randomUUID(),
      roomId,
      payload: { n },
      actor: { kind: 'user', id: 'user-1' },
    });

    before(async () => {
      t = await buildTestApp({}, { jobWorkers: 0 });
      db = t.database.db;
      roomId = await createRoom(t.app, await signup(t.app));
    });
    afterEach(async () => {
      for (const queue of open.splice(0)) await queue.close();
    });
    after(async () => {
      await t?.close();
    });

    test('a job is queued, runs with progress, and its row answers each stage', async () => {
      const g = gates();
      const queue = await started(g);
      const job = newJob(1);
      await queue.enqueue(Gate, job);
      const running = await rowWhen(db, job.id, (row) => row.message === 'Halfway');
      assert.equal(running.stage, 'processing');
      assert.equal(running.progress, 50);
      assert.equal(running.attempts, 1);
      assert.deepEqual(await queue.find(job.id), running);
      g.release(job.id);
      const done = await rowWhen(db, job.id, ended);
      assert.equal(done.stage, 'complete');
      assert.equal(done.progress, 100);
      assert.equal(done.message, 'Gate 1 passed');
      assert.deepEqual(JSON.parse(done.result!), { n: 1 });
      assert.ok(done.finished_at! >= done.started_at!);
      assert.equal(g.runs.get(job.id), 1);
    });

    test('a failure ends in error: a JobFailure with its message, anything else with a general one', async () => {
      const g = gates();
      const queue = await started(g);
      const [known, unknown] = [newJob(2), newJob(3)];
      await queue.enqueue(Gate, known);
      await queue.enqueue(Gate, unknown);
      g.release(known.id, new JobFailure('feature 12: geometry must be a Point'));
      g.release(unknown.id, new Error('/tmp/secret path'));
      assert.equal((await rowWhen(db, known.id, ended)).message, 'feature 12: geometry must be a Point');
      const failed = await rowWhen(db, unknown.id, ended);
      assert.equal(failed.stage, 'error');
      assert.equal(failed.message, 'Processing failed unexpectedly');
    });

    test("a job's log lines carry its id, its kind and the id of the request that queued it", async () => {
      const g = gates();
      const queuing = await started(g, 0);
      const { lines, logger } = recordingLogger();
      const [asked, unasked] = [{ ...newJob(11), requestId: 'a1b2c3d4-7' }, newJob(12)];
      await queuing.enqueue(Gate, asked);
      await queuing.enqueue(Gate, unasked);
      await queuing.close();
      // Run by another queue (on BullMQ, any instance's worker): the id travels with the job.
      await started(g, 1, logger);
      g.release(asked.id, new Error('the unexpected'));
      g.release(unasked.id);
      const of = (id: string) => lines.filter((line) => line.bindings.jobId === id);
      const hasEnded = (id: string) => of(id).some((line) => line.message === 'job ended');
      for (let i = 0; i < 800 && !(hasEnded(asked.id) && hasEnded(unasked.id)); i++) await sleep(25);
      assert.deepEqual(
        of(asked.id).map((line) => [line.message, line.bindings]),
        ['job started', 'job failed', 'job ended'].map((message) => [
          message,
          { reqId: 'a1b2c3d4-7', jobId: asked.id, kind: Gate.name },
        ]),
      );
      assert.deepEqual(
        of(unasked.id).map((line) => [line.message, line.bindings]),
        ['job started', 'job ended'].map((message) => [message, { jobId: unasked.id, kind: Gate.name }]),
      );
    });

    test('a kind without a worker, and an id queued twice, are refused; the job runs once', async () => {
      const g = gates();
      const queue = await started(g);
      const Unknown = jobKind('contract-unknown', Type.Object({}));
      await assert.rejects(
        queue.enqueue(Unknown, { ...newJob(0), payload: {} }),
        /No worker is registered for jobs of kind contract-unknown/,
      );
      const job = newJob(4);
      await queue.enqueue(Gate, job);
      await assert.rejects(queue.enqueue(Gate, job));
      g.release(job.id);
      assert.equal((await rowWhen(db, job.id, ended)).stage, 'complete');
      assert.equal(g.runs.get(job.id), 1);
    });

    test('jobs queued while no worker runs stay queued; a worker that starts later runs them', async () => {
      const g = gates();
      const queuing = await started(g, 0);
      const job = newJob(5);
      await queuing.enqueue(Gate, job);
      await sleep(300);
      const waiting = await queuing.find(job.id);
      assert.equal(waiting?.stage, 'queued');
      assert.equal(g.runs.get(job.id), undefined);
      await queuing.close();
      g.release(job.id);
      await started(g);
      assert.equal((await rowWhen(db, job.id, ended)).stage, 'complete');
      assert.equal(g.runs.get(job.id), 1);
    });

    test('close interrupts a running job: back to queued, resumed from the start by the next worker', async () => {
      const g = gates();
      const first = await started(g);
      const job = newJob(6);
      await first.enqueue(Gate, job);
      await rowWhen(db, job.id, (row) => row.message === 'Halfway');
      await first.close();
      const interrupted = await rowWhen(db, job.id, (row) => row.stage === 'queued');
      assert.equal(interrupted.message, 'Interrupted by a shutdown; will resume');
      g.release(job.id);
      await started(g);
      const done = await rowWhen(db, job.id, ended);
      assert.equal(done.stage, 'complete');
      assert.equal(done.attempts, 2);
      assert.equal(g.runs.get(job.id), 2);
    });

    test(`a job started ${MAX_ATTEMPTS} times is given up: its worker's undo runs, and it ends in error`, async () => {
      const g = gates();
      const queuing = await started(g, 0);
      const job = newJob(7);
      await queuing.enqueue(Gate, job);
      await queuing.close();
      // As a job interrupted that often leaves its row.
      await db
        .updateTable('jobs')
        .set({ stage: 'processing', attempts: MAX_ATTEMPTS })
        .where('id', '=', job.id)
        .execute();
      await started(g);
      const given = await rowWhen(db, job.id, ended);
      assert.equal(given.stage, 'error');
      assert.match(given.message!, new RegExp(`Interrupted ${MAX_ATTEMPTS} times; giving up`));
      assert.equal(g.undos.get(job.id), 1);
      assert.equal(g.runs.get(job.id), undefined);
    });

    test('cancel: a waiting job ends as cancelled, its undo runs, and no worker runs it', async () => {
      const g = gates();
      const queuing = await started(g, 0);
      const job = newJob(8);
      await queuing.enqueue(Gate, job);
      assert.equal(await queuing.cancel(job.id), true);
      const cancelled = await queuing.find(job.id);
      assert.equal(cancelled?.stage, 'error');
      assert.equal(cancelled?.message, CANCELLED);
      assert.equal(g.undos.get(job.id), 1);
      assert.equal(await queuing.cancel(job.id), false, 'an ended job is not cancelled again');
      await started(g);
      await sleep(300);
      assert.equal(g.runs.get(job.id), undefined);
      assert.equal((await queuing.find(job.id))?.stage, 'error');
    });

    test('cancel: a running job is aborted, its undo runs, and it is not resumed', async () => {
      const g = gates();
      const queue = await started(g);
      const job = newJob(9);
      await queue.enqueue(Gate, job);
      await rowWhen(db, job.id, (row) => row.message === 'Halfway');
      assert.equal(await queue.cancel(job.id), true);
      // Waited for in this process: undone by the time cancel answers.
      assert.equal(g.undos.get(job.id), 1);
      const row = await rowWhen(db, job.id, ended);
      assert.equal(row.message, CANCELLED);
      await queue.close();
      await started(g);
      await sleep(300);
      assert.equal(g.runs.get(job.id), 1);
    });

    test('retry: a failed job runs again from the start; a job that has not failed is not retried', async () => {
      const g = gates();
      const queue = await started(g);
      const job = newJob(10);
      await queue.enqueue(Gate, job);
      assert.equal(await queue.retry(job.id), false);
      g.release(job.id, new JobFailure('the source went away'));
      assert.equal((await rowWhen(db, job.id, ended)).stage, 'error');
      // The gate stays open with its failure: the second run has a gate of its own.
      await queue.close();
      const second = gates();
      const again = await started(second);
      assert.equal(await again.retry(job.id), true);
      second.release(job.id);
      const done = await rowWhen(db, job.id, (row) => row.stage === 'complete');
      assert.equal(done.attempts, 1);
      assert.equal((g.runs.get(job.id) ?? 0) + (second.runs.get(job.id) ?? 0), 2);
    });

    describe('several queues on one database', { skip: !maker.shared && 'one instance per database' }, () => {
      test('two workers: every job runs exactly once, polled alike from both', async () => {
        const g = gates();
        const [a, b] = [await started(g, 2), await started(g, 2)];
        const jobs = Array.from({ length: 12 }, (_, i) => newJob(100 + i));
        for (const [i, job] of jobs.entries()) await (i % 2 ? a : b).enqueue(Gate, job);
        for (const job of jobs) g.release(job.id);
        for (const job of jobs) {
          const done = await rowWhen(db, job.id, ended);
          assert.equal(done.stage, 'complete');
          assert.deepEqual(await a.find(job.id), await b.find(job.id));
        }
        for (const job of jobs) assert.equal(g.runs.get(job.id), 1, `job ${job.id} ran once`);
      });

      test('cancel from another instance: the worker running the job sees it within a second and undoes it', async () => {
        const g = gates();
        const worker = await started(g);
        const other = await started(g, 0);
        const job = newJob(201);
        await worker.enqueue(Gate, job);
        await rowWhen(db, job.id, (row) => row.message === 'Halfway');
        const asked = Date.now();
        assert.equal(await other.cancel(job.id), true);
        for (let i = 0; i < 80 && !g.undos.get(job.id); i++) await sleep(25);
        assert.equal(g.undos.get(job.id), 1, 'undone by the worker that ran it');
        assert.ok(Date.now() - asked < 2000);
        assert.equal((await other.find(job.id))?.message, CANCELLED);
      });

      test('a worker that joins leaves the jobs other workers run alone', async () => {
        const g = gates();
        const a = await started(g);
        const job = newJob(200);
        await a.enqueue(Gate, job);
        await rowWhen(db, job.id, (row) => row.message === 'Halfway');
        await started(g); // joins while the job runs
        const still = await a.find(job.id);
        assert.equal(still?.stage, 'processing');
        assert.equal(still?.attempts, 1);
        g.release(job.id);
        const done = await rowWhen(db, job.id, ended);
        assert.equal(done.attempts, 1);
        assert.equal(g.runs.get(job.id), 1);
      });
    });
  });
}
