/**
 * Export jobs are bounded per caller, never by removing anyone else's artifact early: a
 * read-only token that starts one export more than its bound replaces its own oldest
 * artifact (410 from then on) while the owner's artifact still downloads; a caller whose
 * jobs are all still in progress is refused 429 with Retry-After.
 * Anonymous readers of a public room may start export jobs (they need read), bounded by
 * client address.
 * Contract: docs/http-interface.md ("Export job"); decisions: docs/decisions.md ("Export jobs").
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { EXPORTS_PER_CALLER } from '../../src/modules/exports/exports.service.js';
import { assertError, assertOk, call, issueToken, scaffold, type TestApp, type Users } from '../helpers.js';

let t: TestApp;
let users: Users;
let room: string;
let publicRoom: string;

before(async () => {
  ({ t, users, room, publicRoom } = await scaffold({ rooms: ['room', 'publicRoom'] }));
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

test("one export more replaces the caller's own oldest artifact; the owner's artifact stays", async () => {
  const ownerJob = await exportDone(users.owner.token);
  const reader = await issueToken(t.app, users.owner, room, ['read']);
  const readerJobs: string[] = [];
  for (let i = 0; i < EXPORTS_PER_CALLER; i++) readerJobs.push(await exportDone(reader.token));
  assert.equal((await artifact(ownerJob, users.owner.token)).statusCode, 200, "the owner's artifact is kept");

  const newest = await exportDone(reader.token);
  assertError(await artifact(readerJobs[0]!, reader.token), 410, 'export_expired');
  for (const jobId of [...readerJobs.slice(1), newest])
    assert.equal((await artifact(jobId, reader.token)).statusCode, 200, "the reader's newer artifacts are kept");
  assert.equal((await artifact(ownerJob, users.owner.token)).statusCode, 200, "nobody else's artifact goes");
});

test('a caller whose export jobs are all in progress is refused 429, and others are not', async () => {
  const mine = (
    await t.database.db
      .selectFrom('jobs')
      .select('id')
      .where('kind', '=', 'room-export')
      .where('actor_id', '=', users.owner.id)
      .execute()
  ).map((r) => r.id);
  while (mine.length < EXPORTS_PER_CALLER) mine.push(await exportDone(users.owner.token));
  // The owner's jobs as if still running (a worker holds them).
  await t.database.db.updateTable('jobs').set({ stage: 'processing' }).where('id', 'in', mine).execute();
  const refused = await call(t.app, 'POST', `/api/rooms/${room}/export-jobs`, { auth: users.owner.token, body: {} });
  assertError(refused, 429, 'too_many_requests');
  assert.equal(refused.headers['retry-after'], '60');
  // Another member is not bound by the owner's jobs.
  await exportDone(users.viewer.token);
  await t.database.db.updateTable('jobs').set({ stage: 'complete' }).where('id', 'in', mine).execute();
  await exportDone(users.owner.token);
});

test('anonymous readers of a public room start export jobs, bounded by client address', async () => {
  /** An anonymous export job request from `address`, waited for when accepted. */
  const start = async (address: string) => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/rooms/${publicRoom}/export-jobs`,
      payload: {},
      remoteAddress: address,
    });
    if (res.statusCode !== 202) return { res, jobId: '' };
    const { jobId } = res.json();
    for (let i = 0; i < 300; i++) {
      const job = assertOk(await call(t.app, 'GET', `/api/rooms/${publicRoom}/export-jobs/${jobId}`));
      if (job.status === 'complete') break;
      assert.notEqual(job.status, 'error', JSON.stringify(job));
      await sleep(50);
    }
    return { res, jobId: jobId as string };
  };
  const anonymousArtifact = (jobId: string) =>
    call(t.app, 'GET', `/api/rooms/${publicRoom}/export-jobs/${jobId}/artifact`);
  const first: string[] = [];
  for (let i = 0; i < EXPORTS_PER_CALLER; i++) {
    const { res, jobId } = await start('192.0.2.1');
    assert.equal(res.statusCode, 202, res.body);
    first.push(jobId);
  }
  // Another address has its own bound: its export replaces nothing of the first address's.
  assert.equal((await start('192.0.2.2')).res.statusCode, 202);
  for (const jobId of first) assert.equal((await anonymousArtifact(jobId)).statusCode, 200);
  // One more from the first address replaces that address's own oldest artifact.
  assert.equal((await start('192.0.2.1')).res.statusCode, 202);
  assertError(await anonymousArtifact(first[0]!), 410, 'export_expired');
  // While all of an address's jobs are in progress, one more is 429.
  await t.database.db.updateTable('jobs').set({ stage: 'processing' }).where('actor_id', '=', '192.0.2.2').execute();
  const extra = [await start('192.0.2.2'), await start('192.0.2.2')];
  for (const { res } of extra) assert.equal(res.statusCode, 202);
  await t.database.db.updateTable('jobs').set({ stage: 'processing' }).where('actor_id', '=', '192.0.2.2').execute();
  assertError((await start('192.0.2.2')).res as never, 429, 'too_many_requests');
  await t.database.db.updateTable('jobs').set({ stage: 'complete' }).where('actor_id', '=', '192.0.2.2').execute();
  // A private room still refuses an anonymous caller.
  assertError(await call(t.app, 'POST', `/api/rooms/${room}/export-jobs`, { body: {} }), 401, 'unauthorized');
});
