import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  assertError,
  assertOk,
  call,
  createRoom,
  issueToken,
  scaffoldSuite,
  TOKEN_ERRORS,
  uniqueRoomId,
} from '../helpers.js';
import { roomCalls, ZERO_CONTENT } from '../support/rooms.js';

/**
 * Rooms: clearing a room and deleting it.
 * Contract: docs/http-interface.md (Room, States, Rooms endpoints, Authentication) and
 * docs/contract-decisions.md (Errors, Rooms, Room API tokens).
 */

const s = scaffoldSuite({ rooms: [] });
const { roomWithMembers, info, metadata } = roomCalls(() => s);

// ---------------------------------------------------------------------------------------
describe('POST /api/rooms/:roomId/clear', () => {
  test('the owner clears content; room, members and settings survive', async () => {
    const roomId = await roomWithMembers({
      name: 'Keep me',
      description: 'Still here',
      isPublic: true,
      defaultView: { lat: 12, lng: 34, zoom: 5 },
      defaultTheme: 'dark',
      defaultBaseLayer: 'satellite',
    });
    assertOk(
      await call(s.t.app, 'PATCH', `/api/rooms/${roomId}/timeline-settings`, {
        auth: s.users.owner.token,
        body: { groupingMode: 'year', sliderMode: 'past' },
      }),
    );
    assertOk(
      await call(s.t.app, 'PATCH', `/api/rooms/${roomId}/presentation/public`, {
        auth: s.users.owner.token,
        body: { isPublic: true },
      }),
    );
    const { token } = await issueToken(s.t.app, s.users.owner, roomId, ['read']);
    const beforeMeta = await metadata(roomId, s.users.owner.token);
    const beforeInfo = await info(roomId, s.users.owner.token);

    const res = await call(s.t.app, 'POST', `/api/rooms/${roomId}/clear`, { auth: s.users.owner.token });
    const body = assertOk(res);
    assert.equal(body.success, true);
    assert.deepEqual(Object.keys(body.removed).sort(), [
      'comments',
      'drawings',
      'layers',
      'markers',
      'rasterLayers',
      'slides',
    ]);
    for (const n of Object.values(body.removed)) assert.equal(typeof n, 'number');
    assert.deepEqual(body.removed, ZERO_CONTENT);

    const afterMeta = await metadata(roomId, s.users.owner.token);
    assert.equal(afterMeta.name, 'Keep me');
    assert.equal(afterMeta.description, 'Still here');
    assert.equal(afterMeta.createdBy, s.users.owner.id);
    assert.equal(afterMeta.createdAt, beforeMeta.createdAt);
    assert.deepEqual(afterMeta.timelineSettings, beforeMeta.timelineSettings);
    assert.equal(afterMeta.timelineSettings.groupingMode, 'year');
    assert.deepEqual(afterMeta.counts, { ...ZERO_CONTENT, members: 3 });
    assert.deepEqual(await info(roomId, s.users.owner.token), beforeInfo);
    assert.equal((await metadata(roomId, s.users.editor.token)).userRole, 'editor');
    assert.equal((await metadata(roomId, s.users.viewer.token)).userRole, 'viewer');
    // Tokens are not content: they keep working.
    assert.equal((await metadata(roomId, token)).roomId, roomId);
  });

  test('the owner may clear with an empty JSON body too', async () => {
    const roomId = await createRoom(s.t.app, s.users.owner);
    const body = assertOk(
      await call(s.t.app, 'POST', `/api/rooms/${roomId}/clear`, { auth: s.users.owner.token, body: {} }),
    );
    assert.deepEqual(body, { success: true, removed: ZERO_CONTENT });
  });

  test('editor and viewer are 403 forbidden; tokens are 403 api_token_not_allowed; anonymous 401', async () => {
    const roomId = await roomWithMembers({ isPublic: true });
    for (const user of [s.users.editor, s.users.viewer, s.users.stranger]) {
      assertError(await call(s.t.app, 'POST', `/api/rooms/${roomId}/clear`, { auth: user.token }), 403, 'forbidden');
    }
    for (const perms of [['read'], ['write'], ['read', 'write', 'upload']]) {
      const { token } = await issueToken(s.t.app, s.users.owner, roomId, perms);
      assertError(
        await call(s.t.app, 'POST', `/api/rooms/${roomId}/clear`, { auth: token }),
        403,
        'api_token_not_allowed',
      );
    }
    assertError(await call(s.t.app, 'POST', `/api/rooms/${roomId}/clear`), 401, 'unauthorized');
  });
});

// ---------------------------------------------------------------------------------------
describe('DELETE /api/rooms/:roomId', () => {
  test('the owner deletes the room: 404 afterwards, tokens stop working, members lose it', async () => {
    const roomId = await roomWithMembers({ isPublic: true });
    const { token } = await issueToken(s.t.app, s.users.owner, roomId, ['read', 'write']);
    assert.equal((await metadata(roomId, token)).roomId, roomId);
    for (const user of [s.users.owner, s.users.editor, s.users.viewer]) {
      const list = assertOk(await call(s.t.app, 'GET', '/api/rooms', { auth: user.token }));
      assert.ok(list.rooms.some((r: { roomId: string }) => r.roomId === roomId));
    }

    const res = await call(s.t.app, 'DELETE', `/api/rooms/${roomId}`, { auth: s.users.owner.token });
    assert.deepEqual(assertOk(res), { success: true });

    assertError(await call(s.t.app, 'GET', `/api/rooms/${roomId}`, { auth: s.users.owner.token }), 404, 'not_found');
    assertError(await call(s.t.app, 'GET', `/api/rooms/${roomId}`), 404, 'not_found');
    assertError(await call(s.t.app, 'GET', `/api/rooms/${roomId}/info`), 404, 'not_found');
    assertError(
      await call(s.t.app, 'GET', `/api/rooms/${roomId}`, { auth: token }),
      401,
      'unauthorized',
      TOKEN_ERRORS.invalid,
    );
    assertError(
      await call(s.t.app, 'GET', `/api/rooms/${roomId}/info`, { auth: token }),
      401,
      'unauthorized',
      TOKEN_ERRORS.invalid,
    );
    for (const user of [s.users.owner, s.users.editor, s.users.viewer]) {
      const list = assertOk(await call(s.t.app, 'GET', '/api/rooms', { auth: user.token }));
      assert.equal(
        list.rooms.some((r: { roomId: string }) => r.roomId === roomId),
        false,
      );
    }
    assertError(await call(s.t.app, 'DELETE', `/api/rooms/${roomId}`, { auth: s.users.owner.token }), 404, 'not_found');
  });

  test('the id can be taken again after deletion, by a new owner', async () => {
    const roomId = await createRoom(s.t.app, s.users.owner, uniqueRoomId(), { name: 'Old' });
    assertOk(await call(s.t.app, 'DELETE', `/api/rooms/${roomId}`, { auth: s.users.owner.token }));
    const body = assertOk(
      await call(s.t.app, 'POST', `/api/rooms/${roomId}`, { auth: s.users.stranger.token, body: {} }),
    );
    assert.equal(body.isNewRoom, true);
    assert.equal(body.room.createdBy, s.users.stranger.id);
    assertError(await call(s.t.app, 'GET', `/api/rooms/${roomId}`, { auth: s.users.owner.token }), 403, 'forbidden');
    assert.equal((await metadata(roomId, s.users.stranger.token)).name, null);
  });

  test('editor and viewer are 403 forbidden; tokens 403 api_token_not_allowed; the room survives', async () => {
    const roomId = await roomWithMembers();
    for (const user of [s.users.editor, s.users.viewer, s.users.stranger]) {
      assertError(await call(s.t.app, 'DELETE', `/api/rooms/${roomId}`, { auth: user.token }), 403, 'forbidden');
    }
    for (const perms of [['read'], ['write'], ['read', 'write', 'upload']]) {
      const { token } = await issueToken(s.t.app, s.users.owner, roomId, perms);
      assertError(await call(s.t.app, 'DELETE', `/api/rooms/${roomId}`, { auth: token }), 403, 'api_token_not_allowed');
    }
    assertError(await call(s.t.app, 'DELETE', `/api/rooms/${roomId}`), 401, 'unauthorized');
    assert.equal((await metadata(roomId, s.users.owner.token)).roomId, roomId);
  });
});
