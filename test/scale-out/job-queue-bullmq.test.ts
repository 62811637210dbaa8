import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import { BullJobQueue } from '../../src/infra/bull-job-queue.js';
import { BullScheduler } from '../../src/infra/bull-scheduler.js';
import { bullmqConnection } from '../../src/infra/bullmq.js';
import { buildTestApp, createRoom, signup, type TestApp } from '../helpers.js';
import { Gate, gates, jobQueueContract, rowWhen } from '../support/job-queue-contract.js';
import { recordingLogger } from '../support/logger.js';
import { freshRedisUrl, REDIS_TEST_DB } from '../support/redis.js';

/**
 * Jobs on BullMQ (docs/decisions.md, "Jobs on BullMQ"): the job queue contract with several
 * queues on one database, a worker killed with SIGKILL mid-job, and sweeps once per period.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const redisUrl = await freshRedisUrl(REDIS_TEST_DB.jobQueue);
const log = recordingLogger().logger;

jobQueueContract('BullMQ', {
  shared: true,
  make: (db, concurrency, queueLog) => new BullJobQueue({ db, log: queueLog, redisUrl, concurrency }),
});

/** A worker in a process of its own (test/support/job-worker-process.ts), once it takes jobs. */
function workerProcess(databaseUrl: string): Promise<ChildProcess> {
  const script = path.join(ROOT, 'test/support/job-worker-process.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', script, databaseUrl, redisUrl], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk));
    child.stdout!.on('data', (chunk: Buffer) => String(chunk).includes('ready') && resolve(child));
    child.once('exit', (code) => reject(new Error(`the worker exited with ${code} before it was ready: ${err}`)));
  });
}

describe('a worker killed mid-job', () => {
  let t: TestApp;
  let child: ChildProcess | undefined;
  const queues: BullJobQueue[] = [];
  before(async () => {
    t = await buildTestApp({}, { jobWorkers: 0 });
  });
  after(async () => {
    child?.kill('SIGKILL');
    for (const queue of queues) await queue.close();
    await t?.close();
  });

  test('its job goes to another worker within 60 s, which runs it once more from the start and finishes it', async () => {
    const db = t.database.db;
    const roomId = await createRoom(t.app, await signup(t.app));
    child = await workerProcess(t.config.databaseUrl!);
    const g = gates();
    const queuing = new BullJobQueue({ db, log, redisUrl, concurrency: 0 });
    queues.push(queuing);
    g.register(queuing);
    const id = randomUUID();
    await queuing.enqueue(Gate, { id, roomId, payload: { n: 1 }, actor: { kind: 'user', id: 'user-1' } });
    await rowWhen(db, id, (row) => row.message === 'Halfway in the child');

    // A worker joins while the child runs the job: it leaves the job alone.
    const survivor = new BullJobQueue({ db, log, redisUrl, concurrency: 1 });
    queues.push(survivor);
    g.register(survivor);
    await survivor.start();
    g.release(id);
    assert.equal((await survivor.find(id))?.attempts, 1);

    child.kill('SIGKILL');
    const done = await rowWhen(db, id, (row) => row.stage === 'complete' || row.stage === 'error', 60_000);
    assert.equal(done.stage, 'complete', JSON.stringify(done));
    assert.equal(done.attempts, 2, 'one attempt in the killed worker, one in the survivor');
    assert.equal(g.runs.get(id), 1);
  });
});

describe('sweeps on BullMQ', () => {
  test('two schedulers run a sweep once per period between them, and none after close', async () => {
    const everyMs = 500;
    const runs: number[] = [];
    const schedulers = [new BullScheduler(redisUrl, log), new BullScheduler(redisUrl, log)];
    for (const scheduler of schedulers)
      scheduler.add({ name: 'counting', everyMs, run: async () => void runs.push(1) });
    const started = Date.now();
    for (const scheduler of schedulers) await scheduler.start();
    while (runs.length < 6) await sleep(20);
    const elapsed = Date.now() - started;
    // Once per instance would be about twice as many: at most one each period, and the first at start.
    assert.ok(runs.length <= Math.floor(elapsed / everyMs) + 1, `${runs.length} runs in ${elapsed} ms`);
    for (const scheduler of schedulers) await scheduler.close();
    const stopped = runs.length;
    await sleep(3 * everyMs);
    assert.equal(runs.length, stopped);
  });

  test('a sweep no longer listed is removed from Redis when a scheduler starts', async () => {
    const first = new BullScheduler(redisUrl, log);
    first.add({ name: 'retired', everyMs: 60_000, run: async () => undefined });
    await first.start();
    await first.close();
    const next = new BullScheduler(redisUrl, log);
    next.add({ name: 'current', everyMs: 60_000, run: async () => undefined });
    await next.start();
    await next.close();
    const queue = new Queue('sweeps', bullmqConnection(redisUrl));
    try {
      assert.deepEqual((await queue.getJobSchedulers()).map((s) => s.key).sort(), ['current']);
    } finally {
      await queue.close();
    }
  });
});
