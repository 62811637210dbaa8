import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import {
  assertError,
  assertOk,
  assertValidation,
  call,
  createRoom,
  issueToken,
  postMultipart,
  roomHistory,
  scaffoldSuite,
} from '../helpers.js';
import { waitForJob } from '../support/access-matrix-world.js';
import { createInlineLayer } from '../support/layers.js';

/**
 * The room at a moment: `GET /api/rooms/:roomId/history/snapshot?at=` answers the
 * markers, drawings, layers and rasters as history kept them then (docs/decisions.md, "Snapshot").
 */

const s = scaffoldSuite();

const owner = (method: string, url: string, body?: unknown) =>
  call(s.t.app, method, `/api/rooms/${s.room}${url}`, { auth: s.users.owner.token, body });
const snapshot = (at: unknown, auth = s.users.owner.token, roomId = s.room) =>
  call(s.t.app, 'GET', `/api/rooms/${roomId}/history/snapshot?at=${at}`, { auth });

/** The time of the room's newest entry; then a moment passes, so later entries are later. */
async function moment() {
  const [newest] = await roomHistory(s.t.app, s.room, s.users.owner.token, 'limit=1');
  assert.ok(newest);
  await sleep(5);
  return { at: newest.at, version: newest.version };
}

const titles = (markers: { title: string }[]) => markers.map((m) => m.title);

test('each moment shows the objects as they were then; now shows what the lists show', async () => {
  const empty = assertOk(await snapshot(0));
  assert.deepEqual(empty, {
    version: 0,
    at: 0,
    complete: true,
    markers: [],
    drawings: [],
    layers: [],
    rasterLayers: [],
  });

  const { marker: a } = assertOk(await owner('POST', '/markers', { latitude: 1, longitude: 2, title: 'A1' }), 201);
  const { drawing } = assertOk(
    await owner('POST', '/drawings', { geometry: { type: 'Point', coordinates: [7, 46] }, label: 'D' }),
    201,
  );
  const first = await moment();

  assertOk(await owner('PATCH', `/markers/${a.id}`, { title: 'A2' }));
  assertOk(await owner('DELETE', `/drawings/${drawing.id}`));
  assertOk(await owner('POST', '/markers', { latitude: 3, longitude: 4, title: 'B' }), 201);
  const layer = await createInlineLayer(s.t.app, s.room, s.users.owner.token, { name: 'Parcels' });
  const second = await moment();

  assertOk(await owner('DELETE', `/markers/${a.id}`));
  assertOk(await owner('PATCH', `/layers/${layer.id}`, { name: 'Renamed' }));

  const then = assertOk(await snapshot(first.at));
  assert.equal(then.version, first.version);
  assert.equal(then.complete, true);
  assert.deepEqual(titles(then.markers), ['A1']);
  assert.equal(then.markers[0].id, a.id);
  assert.deepEqual(
    then.drawings.map((d: { id: string; label: string }) => [d.id, d.label]),
    [[drawing.id, 'D']],
  );
  assert.deepEqual(then.layers, []);

  const later = assertOk(await snapshot(second.at));
  assert.equal(later.version, second.version);
  assert.deepEqual(titles(later.markers), ['A2', 'B']);
  assert.deepEqual(later.drawings, []);
  assert.deepEqual(
    later.layers.map((l: { name: string }) => l.name),
    ['Parcels'],
  );

  const now = assertOk(await snapshot(Date.now() + 60_000));
  assert.deepEqual(now.markers, assertOk(await owner('GET', '/markers')).markers);
  assert.deepEqual(now.drawings, assertOk(await owner('GET', '/drawings')).drawings);
  assert.deepEqual(
    now.layers.map((l: { id: string; name: string }) => [l.id, l.name]),
    [[layer.id, 'Renamed']],
  );
});

test('a clear empties the room from its moment on; the moment before still shows the objects', async () => {
  const roomId = await createRoom(s.t.app, s.users.owner);
  const post = (url: string, body: unknown) =>
    call(s.t.app, 'POST', `/api/rooms/${roomId}${url}`, { auth: s.users.owner.token, body });
  assertOk(await post('/markers', { latitude: 1, longitude: 1, title: 'Before the clear' }), 201);
  const [beforeClear] = await roomHistory(s.t.app, roomId, s.users.owner.token, 'limit=1');
  await sleep(5);
  assertOk(await post('/clear', undefined));
  assertOk(await post('/markers', { latitude: 2, longitude: 2, title: 'After the clear' }), 201);

  assert.deepEqual(titles(assertOk(await snapshot(beforeClear!.at, s.users.owner.token, roomId)).markers), [
    'Before the clear',
  ]);
  assert.deepEqual(titles(assertOk(await snapshot(Date.now() + 1000, s.users.owner.token, roomId)).markers), [
    'After the clear',
  ]);
});

test('`at` is required, an integer of epoch milliseconds; reading needs read', async () => {
  assertValidation(
    await call(s.t.app, 'GET', `/api/rooms/${s.room}/history/snapshot`, { auth: s.users.owner.token }),
    'at',
  );
  assertValidation(await snapshot(-1), 'at');
  assertValidation(await snapshot('yesterday'), 'at');
  assertValidation(await snapshot(1.5), 'at');
  assertValidation(await snapshot(9e15), 'at');

  assertOk(await snapshot(Date.now(), s.users.viewer.token));
  assertError(await snapshot(Date.now(), s.users.stranger.token), 403, 'forbidden');
  const { token: writeOnly } = await issueToken(s.t.app, s.users.owner, s.room, ['write']);
  assertError(await snapshot(Date.now(), writeOnly), 403, 'forbidden', "API token lacks 'read' permission");
  const { token: reader } = await issueToken(s.t.app, s.users.owner, s.room, ['read']);
  assertOk(await snapshot(Date.now(), reader));
});

test('imported markers show while unchanged since; one changed since makes the moment incomplete', async () => {
  const roomId = await createRoom(s.t.app, s.users.owner);
  const collection = JSON.stringify({
    type: 'FeatureCollection',
    features: [
      { type: 'Feature', geometry: { type: 'Point', coordinates: [8.5, 47.4] }, properties: { title: 'Zurich' } },
    ],
  });
  const { jobId } = assertOk(
    await postMultipart(
      s.t.app,
      `/api/rooms/${roomId}/bulk-import`,
      { file: { data: collection, filename: 'points.geojson' } },
      s.users.owner.token,
    ),
  );
  await waitForJob(s.t, jobId, s.users.owner.token);
  const [imported] = await roomHistory(s.t.app, roomId, s.users.owner.token, 'limit=1');
  assert.equal(imported?.type, 'room.imported');
  await sleep(5);

  const afterImport = assertOk(await snapshot(Date.now(), s.users.owner.token, roomId));
  assert.equal(afterImport.complete, true);
  assert.deepEqual(titles(afterImport.markers), ['Zurich']);
  const moment = Date.now();
  await sleep(5);

  const [marker] = afterImport.markers;
  assertOk(
    await call(s.t.app, 'PATCH', `/api/rooms/${roomId}/markers/${marker.id}`, {
      auth: s.users.owner.token,
      body: { title: 'Zürich' },
    }),
  );
  const before = assertOk(await snapshot(moment, s.users.owner.token, roomId));
  assert.equal(before.complete, false, 'the imported marker changed since: its state then is not in history');
  assert.deepEqual(before.markers, []);
  assert.deepEqual(titles(assertOk(await snapshot(Date.now(), s.users.owner.token, roomId)).markers), ['Zürich']);
});
