import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  assertError,
  assertOk,
  call,
  createRoom,
  issueToken,
  scaffold,
  type TestApp,
  type TestUser,
  TOKEN_ERRORS,
  uniqueRoomId,
} from '../helpers.js';
import { roomCalls, ZERO_CONTENT } from '../support/rooms.js';

/**
 * Rooms: clearing a room and deleting it.
 * Contract: docs/http-interface.md (Room, States, Rooms endpoints, Authentication) and
 * docs/contract-decisions.md (Errors, Rooms, Room API tokens).
 */

let t: TestApp;
let owner: TestUser;
let editor: TestUser;
let viewer: TestUser;
let stranger: TestUser;
const { roomWithMembers, info, metadata } = roomCalls(() => ({ t, users: { owner, editor, viewer } }));

before(async () => {
  ({
    t,
    users: { owner, editor, viewer, stranger },
  } = await scaffold({ rooms: [] }));
});
after(() => t?.close());

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
      await call(t.app, 'PATCH', `/api/rooms/${roomId}/timeline-settings`, {
        auth: owner.token,
        body: { groupingMode: 'year', sliderMode: 'past' },
      }),
    );
    assertOk(
      await call(t.app, 'PATCH', `/api/rooms/${roomId}/presentation/public`, {
        auth: owner.token,
        body: { isPublic: true },
      }),
    );
    const { token } = await issueToken(t.app, owner, roomId, ['read']);
    const beforeMeta = await metadata(roomId, owner.token);
    const beforeInfo = await info(roomId, owner.token);

    const res = await call(t.app, 'POST', `/api/rooms/${roomId}/clear`, { auth: owner.token });
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

    const afterMeta = await metadata(roomId, owner.token);
    assert.equal(afterMeta.name, 'Keep me');
    assert.equal(afterMeta.description, 'Still here');
    assert.equal(afterMeta.createdBy, owner.id);
    assert.equal(afterMeta.createdAt, beforeMeta.createdAt);
    assert.deepEqual(afterMeta.timelineSettings, beforeMeta.timelineSettings);
    assert.equal(afterMeta.timelineSettings.groupingMode, 'year');
    assert.deepEqual(afterMeta.counts, { ...ZERO_CONTENT, members: 3 });
    assert.deepEqual(await info(roomId, owner.token), beforeInfo);
    assert.equal((await metadata(roomId, editor.token)).userRole, 'editor');
    assert.equal((await metadata(roomId, viewer.token)).userRole, 'viewer');
    // Tokens are not content: they keep working.
    assert.equal((await metadata(roomId, token)).roomId, roomId);
  });

  test('the owner may clear with an empty JSON body too', async () => {
    const roomId = await createRoom(t.app, owner);
    const body = assertOk(await call(t.app, 'POST', `/api/rooms/${roomId}/clear`, { auth: owner.token, body: {} }));
    assert.deepEqual(body, { success: true, removed: ZERO_CONTENT });
  });

  test('editor and viewer are 403 forbidden; tokens are 403 api_token_not_allowed; anonymous 401', async () => {
    const roomId = await roomWithMembers({ isPublic: true });
    for (const user of [editor, viewer, stranger]) {
      assertError(await call(t.app, 'POST', `/api/rooms/${roomId}/clear`, { auth: user.token }), 403, 'forbidden');
    }
    for (const perms of [['read'], ['write'], ['read', 'write', 'upload']]) {
      const { token } = await issueToken(t.app, owner, roomId, perms);
      assertError(
        await call(t.app, 'POST', `/api/rooms/${roomId}/clear`, { auth: token }),
        403,
        'api_token_not_allowed',
      );
    }
    assertError(await call(t.app, 'POST', `/api/rooms/${roomId}/clear`), 401, 'unauthorized');
  });
});

// ---------------------------------------------------------------------------------------
describe('DELETE /api/rooms/:roomId', () => {
  test('the owner deletes the room: 404 afterwards, tokens stop working, members lose it', async () => {
    const roomId = await roomWithMembers({ isPublic: true });
    const { token } = await issueToken(t.app, owner, roomId, ['read', 'write']);
    assert.equal((await metadata(roomId, token)).roomId, roomId);
    for (const user of [owner, editor, viewer]) {
      const list = assertOk(await call(t.app, 'GET', '/api/rooms', { auth: user.token }));
      assert.ok(list.rooms.some((r: { roomId: string }) => r.roomId === roomId));
    }

    const res = await call(t.app, 'DELETE', `/api/rooms/${roomId}`, { auth: owner.token });
    assert.deepEqual(assertOk(res), { success: true });

    assertError(await call(t.app, 'GET', `/api/rooms/${roomId}`, { auth: owner.token }), 404, 'not_found');
    assertError(await call(t.app, 'GET', `/api/rooms/${roomId}`), 404, 'not_found');
    assertError(await call(t.app, 'GET', `/api/rooms/${roomId}/info`), 404, 'not_found');
    assertError(
      await call(t.app, 'GET', `/api/rooms/${roomId}`, { auth: token }),
      401,
      'unauthorized',
      TOKEN_ERRORS.invalid,
    );
    assertError(
      await call(t.app, 'GET', `/api/rooms/${roomId}/info`, { auth: token }),
      401,
      'unauthorized',
      TOKEN_ERRORS.invalid,
    );
    for (const user of [owner, editor, viewer]) {
      const list = assertOk(await call(t.app, 'GET', '/api/rooms', { auth: user.token }));
      assert.equal(
        list.rooms.some((r: { roomId: string }) => r.roomId === roomId),
        false,
      );
    }
    assertError(await call(t.app, 'DELETE', `/api/rooms/${roomId}`, { auth: owner.token }), 404, 'not_found');
  });

  test('the id can be taken again after deletion, by a new owner', async () => {
    const roomId = await createRoom(t.app, owner, uniqueRoomId(), { name: 'Old' });
    assertOk(await call(t.app, 'DELETE', `/api/rooms/${roomId}`, { auth: owner.token }));
    const body = assertOk(await call(t.app, 'POST', `/api/rooms/${roomId}`, { auth: stranger.token, body: {} }));
    assert.equal(body.isNewRoom, true);
    assert.equal(body.room.createdBy, stranger.id);
    assertError(await call(t.app, 'GET', `/api/rooms/${roomId}`, { auth: owner.token }), 403, 'forbidden');
    assert.equal((await metadata(roomId, stranger.token)).name, null);
  });

  test('editor and viewer are 403 forbidden; tokens 403 api_token_not_allowed; the room survives', async () => {
    const roomId = await roomWithMembers();
    for (const user of [editor, viewer, stranger]) {
      assertError(await call(t.app, 'DELETE', `/api/rooms/${roomId}`, { auth: user.token }), 403, 'forbidden');
    }
    for (const perms of [['read'], ['write'], ['read', 'write', 'upload']]) {
      const { token } = await issueToken(t.app, owner, roomId, perms);
      assertError(await call(t.app, 'DELETE', `/api/rooms/${roomId}`, { auth: token }), 403, 'api_token_not_allowed');
    }
    assertError(await call(t.app, 'DELETE', `/api/rooms/${roomId}`), 401, 'unauthorized');
    assert.equal((await metadata(roomId, owner.token)).roomId, roomId);
  });
});
