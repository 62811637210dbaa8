/**
 * Markers over HTTP: who may read and change markers (roles, tokens, anonymous callers).
 * Contract: docs/http-interface.md (Marker, Markers, Events, Errors) and docs/contract-decisions.md.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  addMember,
  assertError,
  assertOk,
  call,
  issueToken,
  scaffold,
  type TestApp,
  TOKEN_ERRORS,
  type Users,
} from '../helpers.js';
import { markerCalls } from '../support/markers.js';

let t: TestApp;
let users: Users;
let room: string;
let otherRoom: string;
let publicRoom: string;
const { createMarker, getMarker, patchMarker, deleteMarker, stored, markerCount } = markerCalls(() => ({ t, users }));

before(async () => {
  ({ t, users, room, otherRoom, publicRoom } = await scaffold({ rooms: ['room', 'otherRoom', 'publicRoom'] }));
});
after(() => t?.close());

describe('who may read and change markers', () => {
  let marker: Record<string, any> & { id: string };
  let publicMarker: Record<string, any> & { id: string };
  before(async () => {
    await addMember(t.app, users.owner, publicRoom, users.viewer, 'viewer');
    marker = await createMarker(room, users.owner.token, { title: 'guarded' });
    publicMarker = await createMarker(publicRoom, users.owner.token, { title: 'public' });
  });

  const attempts = (roomId: string, markerId: string, auth?: string) =>
    Promise.all([
      call(t.app, 'POST', `/api/rooms/${roomId}/markers`, { auth, body: { latitude: 1, longitude: 1 } }),
      patchMarker(roomId, markerId, { title: 'hijacked' }, auth),
      deleteMarker(roomId, markerId, auth),
    ]);

  test('owner and editor sessions and a write token may create, change and delete', async () => {
    const writer = await issueToken(t.app, users.owner, room, ['read', 'write']);
    for (const auth of [users.owner.token, users.editor.token, writer.token]) {
      const m = await createMarker(room, auth);
      assertOk(await patchMarker(room, m.id, { title: 'ok' }, auth));
      assert.deepEqual(assertOk(await deleteMarker(room, m.id, auth)), { success: true, markerId: m.id });
      assertError(await getMarker(room, m.id, users.owner.token), 404, 'not_found');
    }
  });

  test('a viewer session reads but gets 403 forbidden on create, PATCH and DELETE', async () => {
    const before = await markerCount(room);
    for (const res of await attempts(room, marker.id, users.viewer.token)) assertError(res, 403, 'forbidden');
    assert.deepEqual(assertOk(await getMarker(room, marker.id, users.viewer.token)).marker, marker);
    assert.equal(
      assertOk(await call(t.app, 'GET', `/api/rooms/${room}/markers`, { auth: users.viewer.token })).count,
      before,
    );
    assert.equal(await markerCount(room), before);
  });

  test('a non-member session gets 403 forbidden on everything in a private room', async () => {
    for (const res of await attempts(room, marker.id, users.stranger.token)) assertError(res, 403, 'forbidden');
    assertError(await getMarker(room, marker.id, users.stranger.token), 403, 'forbidden');
    assertError(
      await call(t.app, 'GET', `/api/rooms/${room}/markers`, { auth: users.stranger.token }),
      403,
      'forbidden',
    );
    assert.deepEqual(await stored(room, marker.id), marker);
  });

  test('a read-only token reads but gets 403 "API token lacks \'write\' permission"', async () => {
    const read = await issueToken(t.app, users.owner, room, ['read']);
    const before = await markerCount(room);
    for (const res of await attempts(room, marker.id, read.token))
      assertError(res, 403, 'forbidden', TOKEN_ERRORS.lacksWrite);
    assert.deepEqual(assertOk(await getMarker(room, marker.id, read.token)).marker, marker);
    assert.equal(assertOk(await call(t.app, 'GET', `/api/rooms/${room}/markers`, { auth: read.token })).count, before);
    assert.equal(await markerCount(room), before);
  });

  test('a token of another room gets 403 "API token is not scoped to this room"', async () => {
    const foreign = await issueToken(t.app, users.owner, otherRoom, ['read', 'write']);
    for (const res of await attempts(room, marker.id, foreign.token))
      assertError(res, 403, 'forbidden', TOKEN_ERRORS.wrongRoom);
    assertError(await getMarker(room, marker.id, foreign.token), 403, 'forbidden', TOKEN_ERRORS.wrongRoom);
    assertError(
      await call(t.app, 'GET', `/api/rooms/${room}/markers`, { auth: foreign.token }),
      403,
      'forbidden',
      TOKEN_ERRORS.wrongRoom,
    );
    assert.deepEqual(await stored(room, marker.id), marker);
  });

  test('anonymous callers read a public room but get 401 on create, PATCH and DELETE', async () => {
    const list = assertOk(await call(t.app, 'GET', `/api/rooms/${publicRoom}/markers`));
    assert.equal(list.count, 1);
    assert.deepEqual(list.markers, [publicMarker]);
    assert.deepEqual(assertOk(await getMarker(publicRoom, publicMarker.id)), { success: true, marker: publicMarker });
    assertError(await getMarker(publicRoom, 'marker-missing'), 404, 'not_found');
    for (const res of await attempts(publicRoom, publicMarker.id)) assertError(res, 401, 'unauthorized');
    // A viewer of the public room still cannot write; a signed-in non-member reads.
    for (const res of await attempts(publicRoom, publicMarker.id, users.viewer.token))
      assertError(res, 403, 'forbidden');
    assertOk(await getMarker(publicRoom, publicMarker.id, users.stranger.token));
    for (const res of await attempts(publicRoom, publicMarker.id, users.stranger.token))
      assertError(res, 403, 'forbidden');
    assert.deepEqual(await stored(publicRoom, publicMarker.id), publicMarker);
  });

  test('anonymous callers get 401 on a private room', async () => {
    assertError(await call(t.app, 'GET', `/api/rooms/${room}/markers`), 401, 'unauthorized');
    assertError(await getMarker(room, marker.id), 401, 'unauthorized');
    for (const res of await attempts(room, marker.id)) assertError(res, 401, 'unauthorized');
    assert.deepEqual(await stored(room, marker.id), marker);
  });
});
