/**
 * The admin's jobs over HTTP on the embedded queue (no workers: jobs wait): every waiting job
 * listed with its kind and room, cancel (its staged file removed, as after a crash), retry of
 * a failed one (it runs after the next start), the refusals, and the audit entries. Running
 * jobs and BullMQ: the job queue contract (test/support/job-queue-contract.ts).
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BuildOptions } from '../../src/app.js';
import {
  assertError,
  assertOk,
  call,
  postMultipart,
  scaffold,
  signup,
  type TestApp,
  type TestUser,
  type Users,
} from '../helpers.js';

const ADMIN = 'jobs-admin@example.org';
const build: BuildOptions = { jobWorkers: 0 };
let t: TestApp;
let users: Users;
let room: string;
let admin: TestUser;

before(async () => {
  ({ t, users, room } = await scaffold({ build, config: { adminEmails: ADMIN } }));
  admin = await signup(t.app, ADMIN);
});
after(async () => {
  await t?.close();
});

const asAdmin = (method: 'GET' | 'POST', url: string) => call(t.app, method, url, { auth: admin.token });

async function queueImport(): Promise<string> {
  const text = JSON.stringify({
    type: 'FeatureCollection',
    features: [{ type: 'Feature', geometry: { type: 'Point', coordinates: [7.4, 46.9] }, properties: { title: 'a' } }],
  });
  const res = await postMultipart(
    t.app,
    `/api/rooms/${room}/bulk-import`,
    { file: { data: text, filename: 'points.geojson' } },
    users.owner.token,
  );
  return assertOk(res).jobId;
}

test('waiting jobs are listed; cancel ends one as failed and removes its staged file; retry runs a failed one', async () => {
  const importId = await queueImport();
  const exportRes = await call(t.app, 'POST', `/api/rooms/${room}/export-jobs`, { auth: users.owner.token, body: {} });
  assert.equal(exportRes.statusCode, 202, exportRes.body);
  const exportId = exportRes.json().jobId;

  const waiting = assertOk(await asAdmin('GET', '/api/admin/jobs?state=waiting')).jobs;
  assert.deepEqual(
    waiting.map((j: { id: string }) => j.id),
    [exportId, importId],
    'newest first',
  );
  assert.deepEqual(waiting[1], {
    id: importId,
    kind: 'bulk-import',
    roomId: room,
    state: 'waiting',
    error: null,
    createdAt: waiting[1].createdAt,
  });
  assert.deepEqual(assertOk(await asAdmin('GET', '/api/admin/jobs?state=failed')).jobs, []);
  assertError(await asAdmin('GET', '/api/admin/jobs?state=complete'), 400, 'validation_error');

  // The import's uploaded file waits in the store; cancelling removes it.
  const row = await t.database.db
    .selectFrom('jobs')
    .select('payload')
    .where('id', '=', importId)
    .executeTakeFirstOrThrow();
  const file = path.join(t.config.dataDir, 'blobs', JSON.parse(row.payload).fileKey);
  assert.ok(existsSync(file), file);
  const cancelled = assertOk(await asAdmin('POST', `/api/admin/jobs/${importId}/cancel`));
  assert.equal(cancelled.state, 'failed');
  assert.equal(cancelled.error, 'Cancelled by an administrator');
  assert.equal(existsSync(file), false, 'the staged file is gone');
  const polled = assertOk(await call(t.app, 'GET', `/api/jobs/${importId}`, { auth: users.owner.token }));
  assert.equal(polled.stage, 'error');
  assertError(await asAdmin('POST', `/api/admin/jobs/${importId}/cancel`), 409, 'job_ended');
  assertError(await asAdmin('POST', `/api/admin/jobs/${exportId}/retry`), 409, 'job_not_failed');
  assertError(await asAdmin('POST', '/api/admin/jobs/no-such-job/retry'), 404, 'not_found');

  // A failed job (here the cancelled export) is queued again and runs at the next start.
  assertOk(await asAdmin('POST', `/api/admin/jobs/${exportId}/cancel`));
  const failed = assertOk(await asAdmin('GET', '/api/admin/jobs?state=failed')).jobs;
  assert.deepEqual(
    failed.map((j: { id: string; error: string }) => [j.id, j.error]),
    [
      [exportId, 'Cancelled by an administrator'],
      [importId, 'Cancelled by an administrator'],
    ],
  );
  const retried = assertOk(await asAdmin('POST', `/api/admin/jobs/${exportId}/retry`));
  assert.equal(retried.state, 'waiting');
  assert.equal(retried.error, null);
  build.jobWorkers = 1;
  await t.restart();
  let stage = '';
  for (let i = 0; i < 400 && stage !== 'complete'; i++) {
    stage = assertOk(await call(t.app, 'GET', `/api/jobs/${exportId}`, { auth: users.owner.token })).stage;
    if (stage !== 'complete') await sleep(50);
  }
  assert.equal(stage, 'complete');

  const { entries } = assertOk(await asAdmin('GET', '/api/admin/audit'));
  assert.deepEqual(
    entries.map((e: { action: string; target: string; adminId: string }) => [e.action, e.target, e.adminId]),
    [
      ['job.retry', exportId, admin.id],
      ['job.cancel', exportId, admin.id],
      ['job.cancel', importId, admin.id],
    ],
  );
});

test('jobs routes refuse other sessions and room tokens', async () => {
  assertError(await call(t.app, 'GET', '/api/admin/jobs', { auth: users.owner.token }), 403, 'forbidden');
  assertError(await call(t.app, 'POST', '/api/admin/jobs/x/cancel', { auth: users.owner.token }), 403, 'forbidden');
});
