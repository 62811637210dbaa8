/**
 * One job system: an export job is a job of the queue like a bulk import (polled at
 * /api/jobs/:jobId too, bound to its room, resumed after a restart), and the queue refuses to
 * start while a waiting job's kind has no worker, rather than failing the job.
 * Contract: docs/http-interface.md ("Processing job": an export job's id is `<uuid>`; "Export job").
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Type } from 'typebox';
import type { BuildOptions } from '../../src/app.js';
import { InProcessJobQueue, jobKind } from '../../src/infra/job-queue.js';
import { assertError, assertOk, call, scaffold, type TestApp, type Users } from '../helpers.js';
import { recordingLogger } from '../support/logger.js';

let t: TestApp;
let users: Users;
let room: string;
let otherRoom: string;
const build: BuildOptions = { jobWorkers: 0 };

before(async () => {
  ({ t, users, room, otherRoom } = await scaffold({ rooms: ['room', 'otherRoom'], build }));
  const marker = { latitude: 46.5, longitude: 7.4, title: 'Bern' };
  assertOk(await call(t.app, 'POST', `/api/rooms/${room}/markers`, { auth: users.owner.token, body: marker }), 201);
});
after(async () => {
  await t?.close();
});

async function pollJob(jobId: string, auth: string) {
  for (let i = 0; i < 600; i++) {
    const job = assertOk(await call(t.app, 'GET', `/api/jobs/${jobId}`, { auth }));
    if (job.stage === 'complete' || job.stage === 'error') return job;
    await sleep(50);
  }
  throw new Error(`job ${jobId} did not finish`);
}

test('an export job is a job of the queue: polled at /api/jobs/:jobId, bound to its room, run after a restart', async () => {
  const res = await call(t.app, 'POST', `/api/rooms/${room}/export-jobs`, { auth: users.viewer.token, body: {} });
  assert.equal(res.statusCode, 202, res.body);
  const { jobId } = res.json();

  // Waiting (no workers): the same job, seen as a job and as an export job.
  const queued = assertOk(await call(t.app, 'GET', `/api/jobs/${jobId}`, { auth: users.viewer.token }));
  assert.equal(queued.jobId, jobId);
  assert.equal(queued.kind, 'room-export');
  assert.equal(queued.stage, 'queued');
  assert.equal(queued.progress, 0);
  const pending = assertOk(
    await call(t.app, 'GET', `/api/rooms/${room}/export-jobs/${jobId}`, { auth: users.viewer.token }),
  );
  assert.equal(pending.status, 'pending');
  // The job's room decides who sees it: a stranger and another room hear 404.
  assertError(await call(t.app, 'GET', `/api/jobs/${jobId}`, { auth: users.stranger.token }), 404, 'not_found');
  assertError(
    await call(t.app, 'GET', `/api/rooms/${otherRoom}/export-jobs/${jobId}`, { auth: users.owner.token }),
    404,
    'not_found',
  );

  // The next start runs it, like any job left waiting.
  build.jobWorkers = 1;
  await t.restart();
  const done = await pollJob(jobId, users.viewer.token);
  assert.equal(done.stage, 'complete', JSON.stringify(done));
  assert.equal(done.progress, 100);
  const exportJob = assertOk(
    await call(t.app, 'GET', `/api/rooms/${room}/export-jobs/${jobId}`, { auth: users.viewer.token }),
  );
  assert.equal(exportJob.status, 'complete');
  assert.equal(typeof exportJob.bytes, 'number');
  assert.ok(exportJob.bytes > 0);
  // One record: the job's result is the export job's size, its end the export's end.
  assert.equal(done.bytes, exportJob.bytes);
  assert.ok(exportJob.finishedAt >= exportJob.startedAt);
  assert.ok(done.updatedAt >= exportJob.finishedAt);
  const artifact = await call(t.app, 'GET', `/api/rooms/${room}/export-jobs/${jobId}/artifact`, {
    auth: users.viewer.token,
  });
  assert.equal(artifact.statusCode, 200);
  assert.equal(artifact.rawPayload.length, exportJob.bytes);
});

const Retired = jobKind('retired-kind', Type.Object({ n: Type.Integer() }));

/** A queued row of the retired kind, as an older version of the service would have left it. */
const retiredJob = (id: string, roomId: string, actorId: string) => {
  const now = Date.now();
  return {
    id,
    room_id: roomId,
    kind: Retired.name,
    stage: 'queued',
    progress: 0,
    message: 'Waiting to start',
    payload: JSON.stringify({ n: 7 }),
    result: null,
    actor_kind: 'user',
    actor_id: actorId,
    attempts: 0,
    created_at: now,
    updated_at: now,
    started_at: null,
    finished_at: null,
    artifact_key: null,
  };
};

test('the service does not start while a waiting job has a kind without a worker, and logs why', async () => {
  const lines: string[] = [];
  const logStream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const own = await scaffold({
    users: ['owner'],
    rooms: ['otherRoom'],
    config: { logLevel: 'warn' },
    build: { logStream },
  });
  try {
    await own.t.database.db
      .insertInto('jobs')
      .values(retiredJob('job-retired-0', own.otherRoom, own.users.owner.id))
      .execute();
    await assert.rejects(own.t.restart(), /retired-kind/);
    const fatal = lines.map((line) => JSON.parse(line)).filter((entry) => entry.level === 60);
    assert.equal(fatal.length, 1, lines.join(''));
    assert.match(
      fatal[0].msg,
      /^Refusing to start: jobs of kind retired-kind are waiting, and no worker is registered/,
    );
    assert.deepEqual(fatal[0].kinds, ['retired-kind']);
  } finally {
    await own.t.close();
  }
});

test('the queue refuses to start while a waiting job has a kind without a worker, and runs it once there is one', async () => {
  const db = t.database.db;
  await db
    .insertInto('jobs')
    .values(retiredJob('job-retired-1', room, users.owner.id))
    .execute();
  const { lines, logger } = recordingLogger();
  const queue = new InProcessJobQueue(db, logger, 1);
  await assert.rejects(queue.start(), /retired-kind/);
  assert.equal(lines.length, 1);
  assert.equal(lines[0]!.level, 'fatal');
  assert.match(lines[0]!.message, /^Refusing to start: jobs of kind retired-kind are waiting, and no worker/);
  // Refused, not failed: the job still waits for a version of the service that runs it.
  const row = await db.selectFrom('jobs').selectAll().where('id', '=', 'job-retired-1').executeTakeFirstOrThrow();
  assert.equal(row.stage, 'queued');
  assert.equal(row.attempts, 0);
  // A kind nobody registered cannot be queued either.
  await assert.rejects(
    queue.enqueue(Retired, { id: 'job-retired-2', roomId: room, payload: { n: 1 }, actor: { kind: 'user', id: 'u' } }),
    /No worker is registered for jobs of kind retired-kind/,
  );
  assert.equal(await queue.find('job-retired-2'), undefined);
  await queue.close();

  const seen: number[] = [];
  const working = new InProcessJobQueue(db, recordingLogger().logger, 1);
  working.register(Retired, {
    run: async (job) => {
      seen.push(job.payload.n);
      return { message: 'Done', result: { doubled: job.payload.n * 2 } };
    },
  });
  await working.start();
  for (let i = 0; i < 100 && (await working.find('job-retired-1'))?.stage !== 'complete'; i++) await sleep(20);
  await working.close();
  assert.deepEqual(seen, [7]);
  const done = assertOk(await call(t.app, 'GET', `/api/jobs/job-retired-1`, { auth: users.owner.token }));
  assert.equal(done.stage, 'complete');
  assert.equal(done.doubled, 14);
});
