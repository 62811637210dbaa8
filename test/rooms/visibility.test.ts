import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertError, assertOk, call, createRoom, issueToken, scaffoldSuite, uniqueRoomId } from '../helpers.js';
import { INFO_FIELDS, pick, roomCalls } from '../support/rooms.js';

/**
 * Rooms: the public `info`, and making a room or its presentation public.
 * Contract: docs/http-interface.md (Room, States, Rooms endpoints, Authentication) and
 * docs/contract-decisions.md (Errors, Rooms, Room API tokens).
 */

const s = scaffoldSuite({ rooms: [] });
const { roomWithMembers, info, metadata } = roomCalls(() => s);

// ---------------------------------------------------------------------------------------
describe('GET /api/rooms/:roomId/info', () => {
  const settings = {
    name: 'Info room',
    defaultView: { lat: -33.9, lng: 151.2, zoom: 9.5 },
    defaultTheme: 'light',
    defaultBaseLayer: 'voyager',
  };
  const expected = (isPublic: boolean) => ({
    isPublic,
    presentationIsPublic: false,
    autoZoomEnabled: true,
    defaultViewLat: -33.9,
    defaultViewLng: 151.2,
    defaultViewZoom: 9.5,
    defaultTheme: 'light',
    defaultBaseLayer: 'voyager',
  });

  test('members of a private room get the settings with requiresAuth false', async () => {
    const roomId = await roomWithMembers(settings);
    for (const user of [s.users.owner, s.users.editor, s.users.viewer]) {
      const i = await info(roomId, user.token);
      assert.equal(i.roomId, roomId);
      assert.equal(i.requiresAuth, false);
      assert.deepEqual(pick(i, INFO_FIELDS), expected(false));
    }
  });

  test('anyone gets the settings of a public room with requiresAuth false', async () => {
    const roomId = await createRoom(s.t.app, s.users.owner, uniqueRoomId(), { ...settings, isPublic: true });
    for (const auth of [undefined, s.users.stranger.token]) {
      const i = await info(roomId, auth);
      assert.equal(i.roomId, roomId);
      assert.equal(i.requiresAuth, false);
      assert.deepEqual(pick(i, INFO_FIELDS), expected(true));
    }
  });

  test('a private room answers anonymous and non-members only {roomId, requiresAuth: true}', async () => {
    const roomId = await createRoom(s.t.app, s.users.owner, uniqueRoomId(), settings);
    for (const auth of [undefined, s.users.stranger.token]) {
      const i = await info(roomId, auth);
      assert.deepEqual(i, { roomId, requiresAuth: true });
    }
  });

  test('a private room with a public deck also tells anonymous and non-members presentationIsPublic: true', async () => {
    const roomId = await createRoom(s.t.app, s.users.owner, uniqueRoomId(), settings);
    assertOk(
      await call(s.t.app, 'PATCH', `/api/rooms/${roomId}/presentation/public`, {
        auth: s.users.owner.token,
        body: { isPublic: true },
      }),
    );
    for (const auth of [undefined, s.users.stranger.token]) {
      assert.deepEqual(await info(roomId, auth), { roomId, requiresAuth: true, presentationIsPublic: true });
    }
    // The room itself stays closed to them; members still get the settings.
    assertError(await call(s.t.app, 'GET', `/api/rooms/${roomId}`), 401, 'unauthorized');
    assert.deepEqual(pick(await info(roomId, s.users.owner.token), INFO_FIELDS), {
      ...expected(false),
      presentationIsPublic: true,
    });
    // Unpublished again: back to the bare answer.
    assertOk(
      await call(s.t.app, 'PATCH', `/api/rooms/${roomId}/presentation/public`, {
        auth: s.users.owner.token,
        body: { isPublic: false },
      }),
    );
    for (const auth of [undefined, s.users.stranger.token])
      assert.deepEqual(await info(roomId, auth), { roomId, requiresAuth: true });
  });

  test('a read token of the room gets the settings', async () => {
    const roomId = await createRoom(s.t.app, s.users.owner, uniqueRoomId(), settings);
    const { token } = await issueToken(s.t.app, s.users.owner, roomId, ['read']);
    const i = await info(roomId, token);
    assert.equal(i.requiresAuth, false);
    assert.deepEqual(pick(i, INFO_FIELDS), expected(false));
  });

  test('an unknown room is 404 not_found', async () => {
    const roomId = uniqueRoomId();
    assertError(await call(s.t.app, 'GET', `/api/rooms/${roomId}/info`), 404, 'not_found');
    assertError(
      await call(s.t.app, 'GET', `/api/rooms/${roomId}/info`, { auth: s.users.owner.token }),
      404,
      'not_found',
    );
  });
});

// ---------------------------------------------------------------------------------------
describe('PATCH /api/rooms/:roomId/public', () => {
  test('the owner makes the room public (readable anonymously) and private again (not readable)', async () => {
    const roomId = await roomWithMembers({ name: 'Toggle' });
    assertError(await call(s.t.app, 'GET', `/api/rooms/${roomId}`), 401, 'unauthorized');

    const on = assertOk(
      await call(s.t.app, 'PATCH', `/api/rooms/${roomId}/public`, {
        auth: s.users.owner.token,
        body: { isPublic: true },
      }),
    );
    assert.deepEqual(on, { success: true, isPublic: true });
    const meta = await metadata(roomId);
    assert.equal(meta.name, 'Toggle');
    assert.equal(meta.isPublic, true);
    const i = await info(roomId);
    assert.equal(i.requiresAuth, false);
    assert.equal(i.isPublic, true);
    assert.equal((await metadata(roomId, s.users.stranger.token)).roomId, roomId);

    const off = assertOk(
      await call(s.t.app, 'PATCH', `/api/rooms/${roomId}/public`, {
        auth: s.users.owner.token,
        body: { isPublic: false },
      }),
    );
    assert.deepEqual(off, { success: true, isPublic: false });
    assertError(await call(s.t.app, 'GET', `/api/rooms/${roomId}`), 401, 'unauthorized');
    assertError(await call(s.t.app, 'GET', `/api/rooms/${roomId}`, { auth: s.users.stranger.token }), 403, 'forbidden');
    assert.deepEqual(await info(roomId), { roomId, requiresAuth: true });
    assert.equal((await info(roomId, s.users.owner.token)).isPublic, false);
  });

  test('editor and viewer are 403 forbidden and nothing changes', async () => {
    const roomId = await roomWithMembers();
    for (const user of [s.users.editor, s.users.viewer]) {
      assertError(
        await call(s.t.app, 'PATCH', `/api/rooms/${roomId}/public`, { auth: user.token, body: { isPublic: true } }),
        403,
        'forbidden',
      );
    }
    assertError(
      await call(s.t.app, 'PATCH', `/api/rooms/${roomId}/public`, {
        auth: s.users.stranger.token,
        body: { isPublic: true },
      }),
      403,
      'forbidden',
    );
    assert.equal((await info(roomId, s.users.owner.token)).isPublic, false);
  });

  test('tokens of any permission are 403 api_token_not_allowed', async () => {
    const roomId = await createRoom(s.t.app, s.users.owner);
    for (const perms of [['read'], ['write'], ['upload'], ['read', 'write', 'upload']]) {
      const { token } = await issueToken(s.t.app, s.users.owner, roomId, perms);
      assertError(
        await call(s.t.app, 'PATCH', `/api/rooms/${roomId}/public`, { auth: token, body: { isPublic: true } }),
        403,
        'api_token_not_allowed',
      );
    }
    assert.equal((await info(roomId, s.users.owner.token)).isPublic, false);
  });

  test('anonymous is 401 unauthorized', async () => {
    const roomId = await createRoom(s.t.app, s.users.owner);
    assertError(
      await call(s.t.app, 'PATCH', `/api/rooms/${roomId}/public`, { body: { isPublic: true } }),
      401,
      'unauthorized',
    );
  });

  test('a missing or non-boolean isPublic is 400 validation_error', async () => {
    const roomId = await createRoom(s.t.app, s.users.owner);
    for (const body of [{}, { isPublic: 'true' }, { isPublic: 1 }, { isPublic: null }, { isPublic: true, extra: 1 }]) {
      assertError(
        await call(s.t.app, 'PATCH', `/api/rooms/${roomId}/public`, { auth: s.users.owner.token, body }),
        400,
        'validation_error',
      );
    }
    assertError(
      await call(s.t.app, 'PATCH', `/api/rooms/${roomId}/public`, { auth: s.users.owner.token }),
      400,
      'validation_error',
    );
    assert.equal((await info(roomId, s.users.owner.token)).isPublic, false);
  });
});

// ---------------------------------------------------------------------------------------
describe('PATCH /api/rooms/:roomId/presentation/public', () => {
  test('owner and editor toggle it; the value shows in /info; the room stays private', async () => {
    const roomId = await roomWithMembers();
    const a = assertOk(
      await call(s.t.app, 'PATCH', `/api/rooms/${roomId}/presentation/public`, {
        auth: s.users.editor.token,
        body: { isPublic: true },
      }),
    );
    assert.deepEqual(a, { success: true, presentationIsPublic: true });
    let i = await info(roomId, s.users.viewer.token);
    assert.equal(i.presentationIsPublic, true);
    assert.equal(i.isPublic, false);
    assertError(await call(s.t.app, 'GET', `/api/rooms/${roomId}`), 401, 'unauthorized');

    const b = assertOk(
      await call(s.t.app, 'PATCH', `/api/rooms/${roomId}/presentation/public`, {
        auth: s.users.owner.token,
        body: { isPublic: false },
      }),
    );
    assert.deepEqual(b, { success: true, presentationIsPublic: false });
    i = await info(roomId, s.users.owner.token);
    assert.equal(i.presentationIsPublic, false);

    const c = assertOk(
      await call(s.t.app, 'PATCH', `/api/rooms/${roomId}/presentation/public`, {
        auth: s.users.owner.token,
        body: { isPublic: true },
      }),
    );
    assert.deepEqual(c, { success: true, presentationIsPublic: true });
    assert.equal((await info(roomId, s.users.owner.token)).presentationIsPublic, true);
  });

  test('viewer and non-member are 403 forbidden', async () => {
    const roomId = await roomWithMembers();
    for (const user of [s.users.viewer, s.users.stranger]) {
      assertError(
        await call(s.t.app, 'PATCH', `/api/rooms/${roomId}/presentation/public`, {
          auth: user.token,
          body: { isPublic: true },
        }),
        403,
        'forbidden',
      );
    }
    assert.equal((await info(roomId, s.users.owner.token)).presentationIsPublic, false);
  });

  test('a token is 403 api_token_not_allowed', async () => {
    const roomId = await createRoom(s.t.app, s.users.owner);
    for (const perms of [['read'], ['write'], ['read', 'write', 'upload']]) {
      const { token } = await issueToken(s.t.app, s.users.owner, roomId, perms);
      assertError(
        await call(s.t.app, 'PATCH', `/api/rooms/${roomId}/presentation/public`, {
          auth: token,
          body: { isPublic: true },
        }),
        403,
        'api_token_not_allowed',
      );
    }
    assert.equal((await info(roomId, s.users.owner.token)).presentationIsPublic, false);
  });

  test('a non-boolean isPublic is 400 validation_error', async () => {
    const roomId = await createRoom(s.t.app, s.users.owner);
    for (const body of [{}, { isPublic: 'yes' }]) {
      assertError(
        await call(s.t.app, 'PATCH', `/api/rooms/${roomId}/presentation/public`, { auth: s.users.owner.token, body }),
        400,
        'validation_error',
      );
    }
  });
});
