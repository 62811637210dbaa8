/**
 * `GET /export-manifest` and `POST /clone-jobs`: a room described in small JSON with a signed
 * 24-hour grant, and a copy of it made in another room by a job (`layersCloned`); a missing,
 * altered or expired grant is 403. Contract: docs/http-interface.md ("Export, import and clone",
 * clone rules), docs/contract-decisions.md ("Export, import, clone").
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { SignJWT } from 'jose';
import { assertError, assertOk, call, createRoom, roomHistory, scaffoldSuite } from '../helpers.js';
import { contentOf, fillRoom } from '../support/exports.js';
import { settledJob } from '../support/layers.js';
import { makeUploadFixtures } from '../support/rasters.js';

let rasters: ReturnType<typeof makeUploadFixtures>;

const s = scaffoldSuite({}, async () => {
  rasters = makeUploadFixtures();
  await fillRoom(s.t.app, s.room, s.users.owner.token, rasters.file('grid-2056.tif'));
});
after(async () => {
  rasters?.remove();
});

const manifestOf = async (roomId: string) =>
  assertOk(await call(s.t.app, 'GET', `/api/rooms/${roomId}/export-manifest`, { auth: s.users.viewer.token }));
const clone = (target: string, manifest: unknown) =>
  call(s.t.app, 'POST', `/api/rooms/${target}/clone-jobs`, { auth: s.users.owner.token, body: { manifest } });

test('the manifest is small JSON: markers, icons, drawn shapes and layer settings, no feature data', async () => {
  const manifest = await manifestOf(s.room);
  assert.equal(manifest.sourceRoomId, s.room);
  assert.equal(typeof manifest.grant, 'string');
  assert.ok(manifest.expiresAt > Date.now() + 23 * 3600 * 1000);
  assert.equal(manifest.markers.length, 2);
  assert.equal(manifest.icons.length, 1);
  assert.equal(manifest.drawings.length, 2);
  assert.deepEqual(
    manifest.layers.map((l: any) => Object.keys(l).sort()),
    [['description', 'id', 'name', 'style']],
  );
  assert.equal(manifest.rasterLayers.length, 1);
  assert.doesNotMatch(JSON.stringify(manifest), /"features"|"coordinates":\[\[\[7\.43/);
});

test('a clone job copies the room into another: same markers, icons, shapes, layers, features and rasters', async () => {
  const target = await createRoom(s.t.app, s.users.owner);
  const res = await clone(target, await manifestOf(s.room));
  assert.equal(res.statusCode, 202, res.body);
  const { jobId } = res.json();
  assert.match(jobId, /^job-[0-9a-f-]{36}$/);
  const job = await settledJob(s.t.app, jobId, s.users.owner.token);
  assert.equal(job.stage, 'complete', JSON.stringify(job));
  assert.equal(job.layersCloned, 2);
  const [source, copy] = [
    await contentOf(s.t.app, s.room, s.users.owner.token),
    await contentOf(s.t.app, target, s.users.owner.token),
  ];
  for (const kind of ['markers', 'icons', 'drawings', 'layers', 'features', 'rasters'] as const)
    assert.deepEqual(copy[kind], source[kind], kind);
  assert.deepEqual(
    (await roomHistory(s.t.app, target, s.users.owner.token)).map((e) => e.type),
    ['room.imported'],
  );
  // The copied photo is the target room's own file.
  const bridge = assertOk(
    await call(s.t.app, 'GET', `/api/rooms/${target}/markers`, { auth: s.users.owner.token }),
  ).markers.find((m: any) => m.title === 'Bridge');
  assert.match(bridge.imageKey, new RegExp(`^markers/${target}/`));
});

test('a missing, altered or expired grant, or one for another room, is 403 and starts nothing', async () => {
  const target = await createRoom(s.t.app, s.users.owner);
  const manifest = await manifestOf(s.room);
  const { grant: _grant, ...withoutGrant } = manifest;
  assertError(await clone(target, withoutGrant), 403, 'invalid_grant');
  const altered = manifest.grant.slice(0, -3) + (manifest.grant.endsWith('AAA') ? 'BBB' : 'AAA');
  assertError(await clone(target, { ...manifest, grant: altered }), 403, 'invalid_grant');
  const other = await createRoom(s.t.app, s.users.owner);
  assertError(await clone(target, { ...manifest, sourceRoomId: other }), 403, 'invalid_grant');
  const secret = s.t.config.jwtSecret ?? readFileSync(path.join(s.t.config.dataDir, 'jwt-secret'), 'utf8').trim();
  const expired = await new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(s.room)
    .setIssuer('maproom')
    .setAudience('maproom-clone-grant')
    .setIssuedAt(Math.floor(Date.now() / 1000) - 2 * 86400)
    .setExpirationTime(Math.floor(Date.now() / 1000) - 86400)
    .sign(new TextEncoder().encode(secret));
  assertError(await clone(target, { ...manifest, grant: expired }), 403, 'invalid_grant');
  // A session token is not a grant.
  assertError(await clone(target, { ...manifest, grant: s.users.owner.token }), 403, 'invalid_grant');
  assert.deepEqual(await roomHistory(s.t.app, target, s.users.owner.token), []);
});

test('a grant does not cover a new room that took the id of a deleted one', async () => {
  const source = await createRoom(s.t.app, s.users.owner);
  const manifest = assertOk(
    await call(s.t.app, 'GET', `/api/rooms/${source}/export-manifest`, { auth: s.users.owner.token }),
  );
  assertOk(await call(s.t.app, 'DELETE', `/api/rooms/${source}`, { auth: s.users.owner.token }));
  await createRoom(s.t.app, s.users.owner, source);
  const target = await createRoom(s.t.app, s.users.owner);
  assertError(await clone(target, manifest), 403, 'invalid_grant');
});

test('a clone job is polled by callers of its room only', async () => {
  const target = await createRoom(s.t.app, s.users.owner);
  const { jobId } = (await clone(target, await manifestOf(s.room))).json();
  assertError(
    await call(s.t.app, 'GET', `/api/layers/jobs/${jobId}`, { auth: s.users.stranger.token }),
    404,
    'not_found',
  );
  await settledJob(s.t.app, jobId, s.users.owner.token);
});
