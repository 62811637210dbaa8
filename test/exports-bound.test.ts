/**
 * Export jobs are bounded per caller, never by removing anyone's artifact early: a read-only
 * token that starts more export jobs than its bound is refused 429 (with Retry-After), and
 * the owner's artifact still downloads; the owner has the same bound of their own, which
 * frees when one of their artifacts expires (24 hours after it finished).
 * Contract: http-interface.md ("Export job"); decisions: docs/decisions.md ("Export jobs").
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { EXPORTS_PER_CALLER } from '../src/modules/exports/exports.service.js';
import { assertError, assertOk, call, issueToken, scaffold, type TestApp, type Users } from './helpers.js';

let t: TestApp;
let users: Users;
let room: string;

before(async () => {
  ({ t, users, room } = await scaffold());
  assertOk(
    await call(t.app, 'POST', `/api/rooms/${room}/markers`, {
      auth: users.owner.token,
      body: { latitude: 46.95, longitude: 7.44, title: 'a' },
    }),
    201,
  );
});
after(() => t?.close());

/** Starts an export job as `auth` and waits for it to complete; answers its id. */
async function exportDone(auth: string): Promise<string> {
  const res = await call(t.app, 'POST', `/api/rooms/${room}/export-jobs`, { auth, body: {} });
  assert.equal(res.statusCode, 202, res.body);
  const { jobId } = res.json();
  for (let i = 0; i < 300; i++) {
    const job = assertOk(await call(t.app, 'GET', `/api/rooms/${room}/export-jobs/${jobId}`, { auth }));
    if (job.status === 'complete') return jobId;
    assert.notEqual(job.status, 'error', JSON.stringify(job));
    await sleep(50);
  }
  throw new Error('the export job did not finish');
}

const artifact = (jobId: string, auth: string) =>
  call(t.app, 'GET', `/api/rooms/${room}/export-jobs/${jobId}/artifact`, { auth });

test("a reader's export jobs are bounded; the owner's artifact stays", async () => {
  const ownerJob = await exportDone(users.owner.token);
  const reader = await issueToken(t.app, users.owner, room, ['read']);
  const readerJobs: string[] = [];
  for (let i = 0; i < EXPORTS_PER_CALLER; i++) readerJobs.push(await exportDone(reader.token));

  assert.equal((await artifact(ownerJob, users.owner.token)).statusCode, 200, "the owner's artifact is kept");
  const refused = await call(t.app, 'POST', `/api/rooms/${room}/export-jobs`, { auth: reader.token, body: {} });
  assertError(refused, 429, 'too_many_requests');
  const retry = Number(refused.headers['retry-after']);
  assert.ok(retry > 23 * 3600 && retry <= 24 * 3600, `Retry-After ${refused.headers['retry-after']}`);

  assert.equal((await artifact(ownerJob, users.owner.token)).statusCode, 200);
  for (const jobId of readerJobs)
    assert.equal((await artifact(jobId, reader.token)).statusCode, 200, "the reader's own artifacts are kept");
});

test("the owner's own bound, freed when one of their artifacts expires", async () => {
  const held = await t.database.db
    .selectFrom('jobs')
    .select('id')
    .where('kind', '=', 'room-export')
    .where('actor_id', '=', users.owner.id)
    .execute();
  const mine = held.map((r) => r.id);
  while (mine.length < EXPORTS_PER_CALLER) mine.push(await exportDone(users.owner.token));
  assertError(
    await call(t.app, 'POST', `/api/rooms/${room}/export-jobs`, { auth: users.owner.token, body: {} }),
    429,
    'too_many_requests',
  );
  // Another member is not bound by the owner's jobs.
  await exportDone(users.viewer.token);

  // One of the owner's artifacts finished just over 24 hours ago: expired (410), and it no longer counts.
  await t.database.db
    .updateTable('jobs')
    .set({ finished_at: Date.now() - 24 * 3600 * 1000 - 60_000 })
    .where('id', '=', mine[0]!)
    .execute();
  assertError(await artifact(mine[0]!, users.owner.token), 410, 'export_expired');
  await exportDone(users.owner.token);
  for (const jobId of mine.slice(1)) assert.equal((await artifact(jobId, users.owner.token)).statusCode, 200);
});
