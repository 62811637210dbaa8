/**
 * Markers over HTTP: who may read and change markers (roles, tokens, anonymous callers).
 * Contract: docs/http-interface.md (Marker, Markers, Events, Errors) and docs/contract-decisions.md.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { addMember, assertError, assertOk, call, issueToken, scaffoldSuite, TOKEN_ERRORS } from '../helpers.js';
import { markerCalls } from '../support/markers.js';

const s = scaffoldSuite({ rooms: ['room', 'otherRoom', 'publicRoom'] });
const { createMarker, getMarker, patchMarker, deleteMarker, stored, markerCount } = markerCalls(() => s);

describe('who may read and change markers', () => {
  let marker: Record<string, any> & { id: string };
  let publicMarker: Record<string, any> & { id: string };
  before(async () => {
    await addMember(s.t.app, s.users.owner, s.publicRoom, s.users.viewer, 'viewer');
    marker = await createMarker(s.room, s.users.owner.token, { title: 'guarded' });
    publicMarker = await createMarker(s.publicRoom, s.users.owner.token, { title: 'public' });
  });

  const attempts = (roomId: string, markerId: string, auth?: string) =>
    Promise.all([
      call(s.t.app, 'POST', `/api/rooms/${roomId}/markers`, { auth, body: { latitude: 1, longitude: 1 } }),
      patchMarker(roomId, markerId, { title: 'hijacked' }, auth),
      deleteMarker(roomId, markerId, auth),
    ]);

  test('owner and editor sessions and a write token may create, change and delete', async () => {
    const writer = await issueToken(s.t.app, s.users.owner, s.room, ['read', 'write']);
    for (const auth of [s.users.owner.token, s.users.editor.token, writer.token]) {
      const m = await createMarker(s.room, auth);
      assertOk(await patchMarker(s.room, m.id, { title: 'ok' }, auth));
      assert.deepEqual(assertOk(await deleteMarker(s.room, m.id, auth)), { success: true, markerId: m.id });
      assertError(await getMarker(s.room, m.id, s.users.owner.token), 404, 'not_found');
    }
  });

  test('a viewer session reads but gets 403 forbidden on create, PATCH and DELETE', async () => {
    const before = await markerCount(s.room);
    for (const res of await attempts(s.room, marker.id, s.users.viewer.token)) assertError(res, 403, 'forbidden');
    assert.deepEqual(assertOk(await getMarker(s.room, marker.id, s.users.viewer.token)).marker, marker);
    assert.equal(
      assertOk(await call(s.t.app, 'GET', `/api/rooms/${s.room}/markers`, { auth: s.users.viewer.token })).count,
      before,
    );
    assert.equal(await markerCount(s.room), before);
  });

  test('a non-member session gets 403 forbidden on everything in a private room', async () => {
    for (const res of await attempts(s.room, marker.id, s.users.stranger.token)) assertError(res, 403, 'forbidden');
    assertError(await getMarker(s.room, marker.id, s.users.stranger.token), 403, 'forbidden');
    assertError(
      await call(s.t.app, 'GET', `/api/rooms/${s.room}/markers`, { auth: s.users.stranger.token }),
      403,
      'forbidden',
    );
    assert.deepEqual(await stored(s.room, marker.id), marker);
  });

  test('a read-only token reads but gets 403 "API token lacks \'write\' permission"', async () => {
    const read = await issueToken(s.t.app, s.users.owner, s.room, ['read']);
    const before = await markerCount(s.room);
    for (const res of await attempts(s.room, marker.id, read.token))
      assertError(res, 403, 'forbidden', TOKEN_ERRORS.lacksWrite);
    assert.deepEqual(assertOk(await getMarker(s.room, marker.id, read.token)).marker, marker);
    assert.equal(
      assertOk(await call(s.t.app, 'GET', `/api/rooms/${s.room}/markers`, { auth: read.token })).count,
      before,
    );
    assert.equal(await markerCount(s.room), before);
  });

  test('a token of another room gets 403 "API token is not scoped to this room"', async () => {
    const foreign = await issueToken(s.t.app, s.users.owner, s.otherRoom, ['read', 'write']);
    for (const res of await attempts(s.room, marker.id, foreign.token))
      assertError(res, 403, 'forbidden', TOKEN_ERRORS.wrongRoom);
    assertError(await getMarker(s.room, marker.id, foreign.token), 403, 'forbidden', TOKEN_ERRORS.wrongRoom);
    assertError(
      await call(s.t.app, 'GET', `/api/rooms/${s.room}/markers`, { auth: foreign.token }),
      403,
      'forbidden',
      TOKEN_ERRORS.wrongRoom,
    );
    assert.deepEqual(await stored(s.room, marker.id), marker);
  });

  test('anonymous callers read a public room but get 401 on create, PATCH and DELETE', async () => {
    const list = assertOk(await call(s.t.app, 'GET', `/api/rooms/${s.publicRoom}/markers`));
    assert.equal(list.count, 1);
    assert.deepEqual(list.markers, [publicMarker]);
    assert.deepEqual(assertOk(await getMarker(s.publicRoom, publicMarker.id)), { success: true, marker: publicMarker });
    assertError(await getMarker(s.publicRoom, 'marker-missing'), 404, 'not_found');
    for (const res of await attempts(s.publicRoom, publicMarker.id)) assertError(res, 401, 'unauthorized');
    // A viewer of the public room still cannot write; a signed-in non-member reads.
    for (const res of await attempts(s.publicRoom, publicMarker.id, s.users.viewer.token))
      assertError(res, 403, 'forbidden');
    assertOk(await getMarker(s.publicRoom, publicMarker.id, s.users.stranger.token));
    for (const res of await attempts(s.publicRoom, publicMarker.id, s.users.stranger.token))
      assertError(res, 403, 'forbidden');
    assert.deepEqual(await stored(s.publicRoom, publicMarker.id), publicMarker);
  });

  test('anonymous callers get 401 on a private room', async () => {
    assertError(await call(s.t.app, 'GET', `/api/rooms/${s.room}/markers`), 401, 'unauthorized');
    assertError(await getMarker(s.room, marker.id), 401, 'unauthorized');
    for (const res of await attempts(s.room, marker.id)) assertError(res, 401, 'unauthorized');
    assert.deepEqual(await stored(s.room, marker.id), marker);
  });
});
