import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  assertError,
  assertFieldError,
  assertOk,
  call,
  createRoom,
  createRoomWithMembers,
  issueToken,
  roomHistory,
  scaffoldSuite,
  uniqueRoomId,
} from '../helpers.js';
import { LiveClient } from '../support/live-client.js';

/**
 * Rooms: `PATCH /api/rooms/:roomId`, the owner's rename and description (docs/decisions.md,
 * Rooms). The interface has no such route; the web application's owner settings need one. It
 * is a settings change like the others: one `room.updated` history entry and live event.
 */

const s = scaffoldSuite({ rooms: [], listen: true });

const patch = (roomId: string, body: unknown, auth = s.users.owner.token) =>
  call(s.t.app, 'PATCH', `/api/rooms/${roomId}`, { auth, body });
const record = async (roomId: string, auth = s.users.owner.token) =>
  assertOk(await call(s.t.app, 'GET', `/api/rooms/${roomId}`, { auth }));

describe('PATCH /api/rooms/:roomId', () => {
  test("the owner renames the room: the answer, the room record, every member's room list and /info show it", async () => {
    const roomId = await createRoomWithMembers(s.t.app, s.users, {
      name: 'Field survey',
      description: 'Spring campaign',
    });
    assert.deepEqual(assertOk(await patch(roomId, { name: '  Field survey 2026  ' })), {
      success: true,
      room: { roomId, name: 'Field survey 2026', description: 'Spring campaign' },
    });
    const room = await record(roomId, s.users.viewer.token);
    assert.deepEqual([room.name, room.description], ['Field survey 2026', 'Spring campaign']);
    for (const user of [s.users.owner, s.users.editor, s.users.viewer]) {
      const { rooms } = assertOk(await call(s.t.app, 'GET', '/api/rooms', { auth: user.token }));
      assert.equal(rooms.find((r: { roomId: string }) => r.roomId === roomId)?.name, 'Field survey 2026', user.email);
    }
    assert.equal(
      assertOk(await call(s.t.app, 'GET', `/api/rooms/${roomId}/info`, { auth: s.users.viewer.token })).name,
      'Field survey 2026',
    );
  });

  test('the description alone changes, and null clears it; the name stays', async () => {
    const roomId = await createRoom(s.t.app, s.users.owner, uniqueRoomId(), { name: 'Harbour' });
    assert.deepEqual(assertOk(await patch(roomId, { description: 'Quay walls and cranes' })).room, {
      roomId,
      name: 'Harbour',
      description: 'Quay walls and cranes',
    });
    assert.equal((await record(roomId)).description, 'Quay walls and cranes');
    assert.deepEqual(assertOk(await patch(roomId, { description: null })).room, {
      roomId,
      name: 'Harbour',
      description: null,
    });
    const room = await record(roomId);
    assert.deepEqual([room.name, room.description], ['Harbour', null]);
    // A room created without a name gets one; the limits are inclusive.
    const unnamed = await createRoom(s.t.app, s.users.owner);
    assert.equal((await record(unnamed)).name, null);
    const body = { name: 'n'.repeat(100), description: 'd'.repeat(2000) };
    assert.deepEqual(assertOk(await patch(unnamed, body)).room, { roomId: unnamed, ...body });
  });

  test("one room.updated: in history with the owner as actor and what changed, and live with the room's settings", async () => {
    const roomId = await createRoomWithMembers(s.t.app, s.users, { name: 'Before' });
    const live = new LiveClient(`${s.wsBase}/api/rooms/${roomId}/live?access_token=${s.users.viewer.token}`);
    await live.opened;
    const hello = await live.at(0);
    assertOk(await patch(roomId, { name: 'After', description: 'Renamed' }));
    const [event] = (await live.waitFor(2)).slice(1);
    live.ws.close();
    assert.equal(event!.type, 'room.updated');
    assert.deepEqual([event!.objectType, event!.objectId, event!.version], ['room', roomId, hello.version + 1]);
    // The same `data` as every settings change: /info as a member reads it, with the description and timeline settings.
    const room = await record(roomId);
    const info = assertOk(await call(s.t.app, 'GET', `/api/rooms/${roomId}/info`, { auth: s.users.owner.token }));
    assert.deepEqual(event!.data, { ...info, description: 'Renamed', timelineSettings: room.timelineSettings });
    assert.equal(event!.data.name, 'After');

    const [entry] = (await roomHistory(s.t.app, roomId, s.users.owner.token)).filter((e) => e.type === 'room.updated');
    assert.deepEqual(
      {
        objectType: entry!.objectType,
        objectId: entry!.objectId,
        actor: entry!.actor,
        changes: entry!.changes,
        version: entry!.version,
      },
      {
        objectType: 'room',
        objectId: roomId,
        actor: { kind: 'user', id: s.users.owner.id, name: s.users.owner.email },
        changes: { name: 'After', description: 'Renamed' },
        version: hello.version + 1,
      },
    );
    // Only what was sent is in `changes`, the name as stored (trimmed).
    assertOk(await patch(roomId, { name: ' Again ' }));
    const [latest] = await roomHistory(s.t.app, roomId, s.users.owner.token, 'limit=1');
    assert.deepEqual([latest!.type, latest!.changes], ['room.updated', { name: 'Again' }]);
  });

  test('editors and viewers are 403 forbidden, strangers 403, anonymous 401, room tokens 403 api_token_not_allowed; nothing changes', async () => {
    const roomId = await createRoomWithMembers(s.t.app, s.users, { name: 'Kept' });
    for (const user of [s.users.editor, s.users.viewer, s.users.stranger])
      assertError(await patch(roomId, { name: 'Taken' }, user.token), 403, 'forbidden');
    assertError(await call(s.t.app, 'PATCH', `/api/rooms/${roomId}`, { body: { name: 'Taken' } }), 401, 'unauthorized');
    for (const permissions of [['read', 'write', 'upload'], ['read']]) {
      const { token } = await issueToken(s.t.app, s.users.owner, roomId, permissions);
      assertError(await patch(roomId, { name: 'Taken' }, token), 403, 'api_token_not_allowed');
    }
    assertError(await patch(uniqueRoomId(), { name: 'Nowhere' }), 404, 'not_found');
    assertError(await patch('bad', { name: 'Nowhere' }), 400, 'validation_error');
    assert.equal((await record(roomId)).name, 'Kept');
    assert.deepEqual(
      (await roomHistory(s.t.app, roomId, s.users.owner.token)).filter((e) => e.type === 'room.updated'),
      [],
    );
  });

  test('an empty body is 400 empty_update; bad and unknown fields are 400 validation_error naming them; nothing changes', async () => {
    const roomId = await createRoom(s.t.app, s.users.owner, uniqueRoomId(), {
      name: 'Stable',
      description: 'As it was',
    });
    assertError(await patch(roomId, {}), 400, 'empty_update');
    const bad: Array<[unknown, string]> = [
      [{ name: '' }, 'body.name'],
      [{ name: '   ' }, 'body.name'],
      [{ name: 'n'.repeat(101) }, 'body.name'],
      [{ name: null }, 'body.name'],
      [{ name: 42 }, 'body.name'],
      [{ description: 'd'.repeat(2001) }, 'body.description'],
      [{ description: 7 }, 'body.description'],
      [{ name: 'Fine', isPublic: true }, 'body.isPublic'],
      [{ roomId: 'other-room' }, 'body.roomId'],
    ];
    for (const [body, field] of bad) assertFieldError(await patch(roomId, body), field);
    const room = await record(roomId);
    assert.deepEqual([room.name, room.description], ['Stable', 'As it was']);
    assert.deepEqual(
      (await roomHistory(s.t.app, roomId, s.users.owner.token)).filter((e) => e.type === 'room.updated'),
      [],
    );
  });
});
