/**
 * Export jobs: 202 with a uuid, the job bound to its room (another room's id is 404), an
 * export that waits in the queue and runs after a restart, its artifact a valid GeoPackage,
 * removed 24 hours after it finished (410), and the import's quota.
 * Contract: docs/http-interface.md ("Export job", "Export, import and clone", rule 4).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BuildOptions } from '../../src/app.js';
import { assertError, assertOk, call, createRoom, scaffold, type TestApp, type Users } from '../helpers.js';
import { assertValidGpkg, exported, fillRoom, importFile, ogrTables, scratch } from '../support/exports.js';
import { makeUploadFixtures } from '../support/rasters.js';

let t: TestApp;
let users: Users;
let room: string;
let otherRoom: string;
let publicRoom: string;
let files: ReturnType<typeof scratch>;
let rasters: ReturnType<typeof makeUploadFixtures>;
const build: BuildOptions = { jobWorkers: 0 };

before(async () => {
  files = scratch();
  rasters = makeUploadFixtures();
  ({ t, users, room, otherRoom, publicRoom } = await scaffold({ rooms: ['room', 'otherRoom', 'publicRoom'], build }));
  await fillRoom(t.app, room, users.owner.token, rasters.file('grid-2056.tif'));
});
after(async () => {
  await t?.close();
  files?.remove();
  rasters?.remove();
});

async function settled(roomId: string, jobId: string, auth: string | undefined = users.viewer.token) {
  for (let i = 0; i < 300; i++) {
    const job = assertOk(await call(t.app, 'GET', `/api/rooms/${roomId}/export-jobs/${jobId}`, { auth }));
    if (job.status === 'complete' || job.status === 'error') return job;
    await sleep(100);
  }
  throw new Error('the export job did not finish');
}

test('an export job is bound to its room, survives a restart, and its artifact expires after 24 hours', async () => {
  const res = await call(t.app, 'POST', `/api/rooms/${room}/export-jobs`, {
    auth: users.viewer.token,
    body: { include_tiffs: true },
  });
  assert.equal(res.statusCode, 202, res.body);
  const { jobId } = res.json();
  assert.match(jobId, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

  const waiting = assertOk(
    await call(t.app, 'GET', `/api/rooms/${room}/export-jobs/${jobId}`, { auth: users.viewer.token }),
  );
  assert.deepEqual(waiting, {
    jobId,
    status: 'pending',
    bytes: null,
    startedAt: null,
    finishedAt: null,
    expiresAt: null,
  });
  assertError(
    await call(t.app, 'GET', `/api/rooms/${room}/export-jobs/${jobId}/artifact`, { auth: users.viewer.token }),
    404,
    'not_found',
  );
  // Asking again for the same export while it waits joins it.
  const again = await call(t.app, 'POST', `/api/rooms/${room}/export-jobs`, {
    auth: users.owner.token,
    body: { include_tiffs: true },
  });
  assert.equal(again.statusCode, 202);
  assert.equal(again.json().jobId, jobId);
  // Another room of the same owner does not know the job.
  assertError(
    await call(t.app, 'GET', `/api/rooms/${otherRoom}/export-jobs/${jobId}`, { auth: users.owner.token }),
    404,
    'not_found',
  );
  assertError(
    await call(t.app, 'GET', `/api/rooms/${otherRoom}/export-jobs/${jobId}/artifact`, { auth: users.owner.token }),
    404,
    'not_found',
  );

  // The service stops with the job queued; the next start runs it.
  build.jobWorkers = 1;
  await t.restart();
  const done = await settled(room, jobId);
  assert.equal(done.status, 'complete', JSON.stringify(done));
  assert.ok(done.startedAt <= done.finishedAt);
  assert.equal(done.expiresAt, done.finishedAt + 24 * 3600 * 1000);

  const artifact = await call(t.app, 'GET', `/api/rooms/${room}/export-jobs/${jobId}/artifact`, {
    auth: users.viewer.token,
  });
  assert.equal(artifact.statusCode, 200);
  assert.equal(artifact.headers['content-type'], 'application/geopackage+sqlite3');
  assert.equal(artifact.rawPayload.length, done.bytes);
  const file = files.file('artifact.gpkg');
  (await import('node:fs')).writeFileSync(file, artifact.rawPayload);
  assertValidGpkg(file);
  assert.equal(ogrTables(file).get('markers'), 2);
  assert.equal(ogrTables(file).get('raster_files'), 1);
  assertError(
    await call(t.app, 'GET', `/api/rooms/${otherRoom}/export-jobs/${jobId}/artifact`, { auth: users.owner.token }),
    404,
    'not_found',
  );

  // Just over 24 hours later: expired at once, before the hourly sweep has removed the artifact...
  await t.database.db
    .updateTable('jobs')
    .set({ finished_at: Date.now() - 24 * 3600 * 1000 - 60_000 })
    .where('id', '=', jobId)
    .execute();
  const due = assertOk(
    await call(t.app, 'GET', `/api/rooms/${room}/export-jobs/${jobId}`, { auth: users.viewer.token }),
  );
  assert.equal(due.status, 'expired');
  assert.equal(due.expiresAt, null);
  assertError(
    await call(t.app, 'GET', `/api/rooms/${room}/export-jobs/${jobId}/artifact`, { auth: users.viewer.token }),
    410,
    'export_expired',
  );
  // ... which the sweep (at start and every hour) then removes.
  await t.restart();
  const expired = assertOk(
    await call(t.app, 'GET', `/api/rooms/${room}/export-jobs/${jobId}`, { auth: users.viewer.token }),
  );
  assert.equal(expired.status, 'expired');
  assertError(
    await call(t.app, 'GET', `/api/rooms/${room}/export-jobs/${jobId}/artifact`, { auth: users.viewer.token }),
    410,
    'export_expired',
  );
});

test('an import counts against the owner quota: past it, 413 and nothing imported', async () => {
  const file = files.file('quota.gpkg');
  await exported(t.app, room, users.owner.token, file, '?include_tiffs=true');
  const small = await scaffold({ users: ['owner', 'editor', 'viewer'], config: { storageQuotaBytes: 20_000 } });
  try {
    const target = await createRoom(small.t.app, small.users.owner);
    assertError(
      await importFile(small.t.app, target, small.users.owner.token, readFileSync(file)),
      413,
      'quota_exceeded',
    );
    const markers = assertOk(
      await call(small.t.app, 'GET', `/api/rooms/${target}/markers`, { auth: small.users.owner.token }),
    ).markers;
    assert.equal(markers.length, 0);
  } finally {
    await small.t.close();
  }
});

test('an anonymous reader of a public room may start an export job, as it may export at once (export jobs need read)', async () => {
  build.jobWorkers = 1;
  await t.restart();
  assert.equal((await call(t.app, 'POST', `/api/rooms/${publicRoom}/export`, { body: {} })).statusCode, 200);
  const res = await call(t.app, 'POST', `/api/rooms/${publicRoom}/export-jobs`, { body: {} });
  assert.equal(res.statusCode, 202, res.payload);
  const { jobId } = res.json();
  const done = await settled(publicRoom, jobId, undefined);
  assert.equal(done.status, 'complete', JSON.stringify(done));
  const artifact = await call(t.app, 'GET', `/api/rooms/${publicRoom}/export-jobs/${jobId}/artifact`);
  assert.equal(artifact.statusCode, 200);
  // A private room still refuses the anonymous caller.
  assertError(await call(t.app, 'POST', `/api/rooms/${room}/export-jobs`, { body: {} }), 401, 'unauthorized');
});
