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
import { ACTIONS, matrix, roomCalls } from '../support/rooms.js';

/**
 * Rooms: the permission checks, and the room-token authentication rules on room routes.
 * Contract: docs/http-interface.md (Room, States, Rooms endpoints, Authentication) and
 * docs/contract-decisions.md (Errors, Rooms, Room API tokens).
 */

const s = scaffoldSuite({ rooms: [] });
const { roomWithMembers, metadata, permissions } = roomCalls(() => s);

// ---------------------------------------------------------------------------------------
describe('GET /api/rooms/:roomId/permissions', () => {
  test('owner, editor and viewer of a private room', async () => {
    const roomId = await roomWithMembers();
    assert.deepEqual(await permissions(roomId, s.users.owner.token), matrix('owner', [...ACTIONS]));
    assert.deepEqual(await permissions(roomId, s.users.editor.token), matrix('editor', ['view', 'edit', 'delete']));
    assert.deepEqual(await permissions(roomId, s.users.viewer.token), matrix('viewer', ['view']));
  });

  test('roles are the same on a public room', async () => {
    const roomId = await roomWithMembers({ isPublic: true });
    assert.deepEqual(await permissions(roomId, s.users.owner.token), matrix('owner', [...ACTIONS]));
    assert.deepEqual(await permissions(roomId, s.users.editor.token), matrix('editor', ['view', 'edit', 'delete']));
    assert.deepEqual(await permissions(roomId, s.users.viewer.token), matrix('viewer', ['view']));
  });

  test('a non-member user may view a public room only', async () => {
    const pub = await createRoom(s.t.app, s.users.owner, uniqueRoomId(), { isPublic: true });
    assert.deepEqual(await permissions(pub, s.users.stranger.token), matrix('none', ['view']));
    const priv = await createRoom(s.t.app, s.users.owner);
    assert.deepEqual(await permissions(priv, s.users.stranger.token), matrix('none', []));
  });

  test('tokens answer by their permissions with role none', async () => {
    const roomId = await createRoom(s.t.app, s.users.owner);
    const read = await issueToken(s.t.app, s.users.owner, roomId, ['read']);
    const write = await issueToken(s.t.app, s.users.owner, roomId, ['write']);
    const upload = await issueToken(s.t.app, s.users.owner, roomId, ['upload']);
    const all = await issueToken(s.t.app, s.users.owner, roomId, ['read', 'write', 'upload']);
    assert.deepEqual(await permissions(roomId, read.token), matrix('none', ['view']));
    assert.deepEqual(await permissions(roomId, write.token), matrix('none', ['edit', 'delete']));
    assert.deepEqual(await permissions(roomId, upload.token), matrix('none', []));
    assert.deepEqual(await permissions(roomId, all.token), matrix('none', ['view', 'edit', 'delete']));
  });

  test('a missing or unknown action is 400 validation_error', async () => {
    const roomId = await createRoom(s.t.app, s.users.owner);
    for (const query of ['', '?action=', '?action=admin', '?action=VIEW', '?other=view']) {
      assertError(
        await call(s.t.app, 'GET', `/api/rooms/${roomId}/permissions${query}`, { auth: s.users.owner.token }),
        400,
        'validation_error',
      );
    }
  });

  test('anonymous is 401 unauthorized, on private and public rooms', async () => {
    const priv = await createRoom(s.t.app, s.users.owner);
    const pub = await createRoom(s.t.app, s.users.owner, uniqueRoomId(), { isPublic: true });
    for (const roomId of [priv, pub]) {
      assertError(await call(s.t.app, 'GET', `/api/rooms/${roomId}/permissions?action=view`), 401, 'unauthorized');
    }
  });

  test('an unknown room is 404 not_found', async () => {
    assertError(
      await call(s.t.app, 'GET', `/api/rooms/${uniqueRoomId()}/permissions?action=view`, { auth: s.users.owner.token }),
      404,
      'not_found',
    );
  });
});

// ---------------------------------------------------------------------------------------
describe('room token authentication on room routes', () => {
  test("a token of room A on room B is 403 'API token is not scoped to this room'", async () => {
    const roomA = await createRoom(s.t.app, s.users.owner);
    const roomB = await createRoom(s.t.app, s.users.owner, uniqueRoomId(), { isPublic: true });
    const { token } = await issueToken(s.t.app, s.users.owner, roomA, ['read', 'write', 'upload']);
    for (const url of [
      `/api/rooms/${roomB}`,
      `/api/rooms/${roomB}/info`,
      `/api/rooms/${roomB}/permissions?action=view`,
    ]) {
      assertError(await call(s.t.app, 'GET', url, { auth: token }), 403, 'forbidden', TOKEN_ERRORS.wrongRoom);
    }
    // The same token still works on its own room.
    assert.equal((await metadata(roomA, token)).roomId, roomA);
  });

  test('a write-only token on metadata is 403 "API token lacks \'read\' permission"', async () => {
    const roomId = await createRoom(s.t.app, s.users.owner);
    for (const perms of [['write'], ['upload'], ['write', 'upload']]) {
      const { token } = await issueToken(s.t.app, s.users.owner, roomId, perms);
      assertError(
        await call(s.t.app, 'GET', `/api/rooms/${roomId}`, { auth: token }),
        403,
        'forbidden',
        TOKEN_ERRORS.lacksRead,
      );
    }
  });

  test("a revoked token is 401 'Invalid or expired API token'", async () => {
    const roomId = await createRoom(s.t.app, s.users.owner);
    const { token, id } = await issueToken(s.t.app, s.users.owner, roomId, ['read']);
    const other = await issueToken(s.t.app, s.users.owner, roomId, ['read']);
    assert.equal((await metadata(roomId, token)).roomId, roomId);

    assertOk(await call(s.t.app, 'DELETE', `/api/rooms/${roomId}/api-tokens/${id}`, { auth: s.users.owner.token }));
    assertError(
      await call(s.t.app, 'GET', `/api/rooms/${roomId}`, { auth: token }),
      401,
      'unauthorized',
      TOKEN_ERRORS.invalid,
    );
    assertError(
      await call(s.t.app, 'GET', `/api/rooms/${roomId}/permissions?action=view`, { auth: token }),
      401,
      'unauthorized',
      TOKEN_ERRORS.invalid,
    );
    // Revocation is per token.
    assert.equal((await metadata(roomId, other.token)).roomId, roomId);
  });

  test("an unknown token is 401 'Invalid or expired API token'", async () => {
    const roomId = await createRoom(s.t.app, s.users.owner, uniqueRoomId(), { isPublic: true });
    const bogus = `mrt_${'A'.repeat(43)}`;
    assertError(
      await call(s.t.app, 'GET', `/api/rooms/${roomId}`, { auth: bogus }),
      401,
      'unauthorized',
      TOKEN_ERRORS.invalid,
    );
  });
});
