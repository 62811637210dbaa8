/**
 * Who may reach vector layers. Routes addressed by layer id (features, chunks, tiles, delete)
 * resolve the layer's room and go through the one access check: whoever may not read that room
 * hears 404, as if the layer did not exist; a public room's layers are readable anonymously; a
 * token of the layer's own room hears why it is refused. Routes naming the room (the list,
 * uploads through `roomName`) answer a token of another room 403 "API token is not scoped to
 * this room". Uploads need `upload`; a caller without read gets back only ids.
 * Contract: docs/http-interface.md (Authentication; "Layers and uploads"), docs/contract-decisions.md
 * ("Layers and rasters", "Jobs", "Callers that may write but not read"), docs/decisions.md (Errors).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  assertError,
  assertOk,
  call,
  createRoom,
  issueToken,
  labelled,
  scaffold,
  type TestApp,
  TOKEN_ERRORS,
  type Users,
} from '../helpers.js';
import {
  completedJob,
  createInlineLayer,
  type Layer,
  storedState,
  TWO_SQUARES,
  uploadBytes,
  uploadFile,
} from '../support/layers.js';
import { makeVectorFixtures } from '../vector-fixtures.js';

let t: TestApp;
let users: Users;
let room: string;
let publicRoom: string;
let otherRoom: string;
let fixtures: ReturnType<typeof makeVectorFixtures>;
let privateLayer: Layer;
let publicLayer: Layer;
let foreignToken: string;

before(async () => {
  fixtures = makeVectorFixtures();
  ({ t, users, room, publicRoom, otherRoom } = await scaffold({ rooms: ['room', 'publicRoom', 'otherRoom'] }));
  privateLayer = await createInlineLayer(t.app, room, users.owner.token, { name: 'Private' });
  publicLayer = await createInlineLayer(t.app, publicRoom, users.owner.token, { name: 'Public' });
  foreignToken = (await issueToken(t.app, users.owner, otherRoom, ['read', 'write', 'upload'])).token;
});
after(async () => {
  await t?.close();
  fixtures?.remove();
});

/** The reads addressed by layer id alone. */
const readsOf = (layerId: string) => [
  `/api/layers/${layerId}/features`,
  `/api/layers/${layerId}/features/chunks/0`,
  `/api/layers/${layerId}/tiles/0/0/0.mvt`,
];
const get = (url: string, auth?: string) => call(t.app, 'GET', url, { auth });

describe('routes addressed by layer id', () => {
  test('a private room: members and its read tokens read; strangers, anonymous callers and tokens of other rooms hear 404', async () => {
    const reader = await issueToken(t.app, users.owner, room, ['read']);
    const writer = await issueToken(t.app, users.owner, room, ['write', 'upload']);
    for (const url of readsOf(privateLayer.id)) {
      labelled(url, () => undefined);
      for (const auth of [users.owner.token, users.editor.token, users.viewer.token, reader.token])
        assert.equal((await get(url, auth)).statusCode, 200, url);
      assertError(await get(url, users.stranger.token), 404, 'not_found');
      assertError(await get(url), 404, 'not_found');
      assertError(await get(url, foreignToken), 404, 'not_found');
      // A token of the layer's own room hears why.
      assertError(await get(url, writer.token), 403, 'forbidden', TOKEN_ERRORS.lacksRead);
    }
    for (const auth of [users.stranger.token, undefined]) {
      assertError(await call(t.app, 'DELETE', `/api/layers/${privateLayer.id}`, { auth }), 404, 'not_found');
    }
    assert.equal(
      (await get(`/api/layers/${privateLayer.id}/features`, users.owner.token)).json().features.length,
      2,
      'the layer stays',
    );
  });

  test('a public room: anyone reads its layers by id, anonymous callers too; tokens of other rooms still hear 404', async () => {
    for (const url of readsOf(publicLayer.id)) {
      for (const auth of [undefined, users.stranger.token, users.viewer.token])
        assert.equal((await get(url, auth)).statusCode, 200, `${url} as ${auth ? 'a user' : 'anonymous'}`);
      assertError(await get(url, foreignToken), 404, 'not_found');
    }
    const anonymous = assertOk(await get(`/api/layers/${publicLayer.id}/features`));
    assert.deepEqual(anonymous, assertOk(await get(`/api/layers/${publicLayer.id}/features`, users.owner.token)));
  });

  test("a public deck: anyone reads the layers its slides show, not the room's others", async () => {
    const deckRoom = await createRoom(t.app, users.owner);
    const shown = await createInlineLayer(t.app, deckRoom, users.owner.token, { name: 'Shown' });
    const hidden = await createInlineLayer(t.app, deckRoom, users.owner.token, { name: 'Hidden' });
    const slide = { title: 'Deck', view: { lat: 46.95, lng: 7.45, zoom: 12 }, layerIds: [shown.id] };
    assertOk(
      await call(t.app, 'POST', `/api/rooms/${deckRoom}/presentation/slides`, { auth: users.owner.token, body: slide }),
      201,
    );
    // Not yet public: the deck shows nothing to anyone outside.
    for (const url of readsOf(shown.id)) assertError(await get(url), 404, 'not_found');
    assertOk(
      await call(t.app, 'PATCH', `/api/rooms/${deckRoom}/presentation/public`, {
        auth: users.owner.token,
        body: { isPublic: true },
      }),
    );
    for (const url of readsOf(shown.id)) {
      for (const auth of [undefined, users.stranger.token])
        assert.equal((await get(url, auth)).statusCode, 200, `${url} as ${auth ? 'a stranger' : 'anonymous'}`);
      assertError(await get(url, foreignToken), 404, 'not_found');
    }
    for (const url of readsOf(hidden.id)) {
      for (const auth of [undefined, users.stranger.token]) assertError(await get(url, auth), 404, 'not_found');
    }
    // Members still read every layer; the list of the room stays closed to visitors.
    assert.equal((await get(readsOf(hidden.id)[0]!, users.owner.token)).statusCode, 200);
    assertError(await get(`/api/layers/${deckRoom}`), 401, 'unauthorized');
  });

  test('a room made private again closes its layers to anonymous callers', async () => {
    const roomId = publicRoom;
    assertOk(
      await call(t.app, 'PATCH', `/api/rooms/${roomId}/public`, { auth: users.owner.token, body: { isPublic: false } }),
    );
    try {
      for (const url of readsOf(publicLayer.id)) assertError(await get(url), 404, 'not_found');
    } finally {
      assertOk(
        await call(t.app, 'PATCH', `/api/rooms/${roomId}/public`, {
          auth: users.owner.token,
          body: { isPublic: true },
        }),
      );
    }
  });
});

describe('GET /api/layers/:roomName', () => {
  test('read on the room: members, read tokens, anyone on a public room; others refused with the usual answers', async () => {
    const url = `/api/layers/${room}`;
    const reader = await issueToken(t.app, users.owner, room, ['read']);
    const writer = await issueToken(t.app, users.owner, room, ['write']);
    for (const auth of [users.viewer.token, reader.token])
      assert.deepEqual(
        assertOk(await get(url, auth)).layers.map((l: Layer) => l.id),
        [privateLayer.id],
      );
    assertError(await get(url), 401, 'unauthorized');
    assertError(await get(url, users.stranger.token), 403, 'forbidden');
    assertError(await get(url, writer.token), 403, 'forbidden', TOKEN_ERRORS.lacksRead);
    assertError(await get(url, foreignToken), 403, 'forbidden', TOKEN_ERRORS.wrongRoom);
    assert.deepEqual(
      assertOk(await get(`/api/layers/${publicRoom}`)).layers.map((l: Layer) => l.id),
      [publicLayer.id],
    );
    assertError(await get(`/api/layers/${publicRoom}`, foreignToken), 403, 'forbidden', TOKEN_ERRORS.wrongRoom);
    assertError(await get('/api/layers/not-a-room'), 404, 'not_found');
    assertError(await get('/api/layers/bad%20room!'), 400, 'validation_error');
  });
});

describe('POST /api/layers/upload', () => {
  test('needs upload on the room named by roomName; refusals store nothing', async () => {
    const readWrite = await issueToken(t.app, users.owner, room, ['read', 'write']);
    const before = await storedState(t, room);
    const send = (auth?: string) => uploadFile(t.app, room, fixtures.file('lv95.zip'), auth);
    assertError(await send(), 401, 'unauthorized');
    assertError(await send(users.stranger.token), 403, 'forbidden');
    assertError(await send(users.viewer.token), 403, 'forbidden');
    assertError(await send(readWrite.token), 403, 'forbidden', TOKEN_ERRORS.lacksUpload);
    assertError(await send(foreignToken), 403, 'forbidden', TOKEN_ERRORS.wrongRoom);
    assertError(await uploadFile(t.app, publicRoom, fixtures.file('lv95.zip'), users.stranger.token), 403, 'forbidden');
    assertError(await uploadFile(t.app, publicRoom, fixtures.file('lv95.zip'), undefined), 401, 'unauthorized');
    assert.deepEqual(await storedState(t, room), before);
    assert.equal(assertOk(await send(users.editor.token)).layer.featureCount, 3, 'an editor may upload');
  });

  test('a token with upload and without read gets back only ids (layers and markers alike)', async () => {
    const uploader = await issueToken(t.app, users.owner, room, ['upload']);
    const layers = assertOk(await uploadFile(t.app, room, fixtures.file('two_tables.gpkg'), uploader.token));
    assert.deepEqual(Object.keys(layers).sort(), ['layer', 'layers']);
    assert.deepEqual(Object.keys(layers.layer), ['id']);
    assert.equal(layers.layers.length, 2);
    for (const layer of layers.layers) assert.deepEqual(Object.keys(layer), ['id']);
    const markers = assertOk(await uploadFile(t.app, room, fixtures.file('points_latlon.csv'), uploader.token));
    assert.equal(markers.markersCreated, 2);
    assert.equal(markers.layer, null);
    for (const marker of markers.markers) assert.deepEqual(Object.keys(marker), ['id']);
    // The layers exist in full for readers.
    const listed = assertOk(await get(`/api/layers/${room}`, users.owner.token)).layers.map((l: Layer) => l.id);
    for (const layer of layers.layers) assert.ok(listed.includes(layer.id));
  });

  test("a job's status: the room's readers poll it; an upload-only token 403; other rooms' callers 404", async () => {
    const uploader = await issueToken(t.app, users.owner, room, ['upload']);
    const padded = `${JSON.stringify(TWO_SQUARES).slice(0, -1) + ' '.repeat(5 * 1024 * 1024)}}`;
    const { jobId } = assertOk(await uploadBytes(t.app, room, padded, 'padded.geojson', uploader.token), 202);
    await completedJob(t.app, jobId, users.viewer.token);
    const url = `/api/layers/jobs/${jobId}`;
    assertError(await get(url, uploader.token), 403, 'forbidden', TOKEN_ERRORS.lacksRead);
    assertError(await get(url, foreignToken), 404, 'not_found');
    assertError(await get(url, users.stranger.token), 404, 'not_found');
    assertError(await get(url), 404, 'not_found');
    assertError(await get('/api/layers/jobs/job-doesnotexist0000', users.owner.token), 404, 'not_found');
  });
});
