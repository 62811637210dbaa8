import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import {
  addMember,
  assertError,
  assertOk,
  call,
  createRoom,
  createRoomWithMembers,
  issueToken,
  postMultipart,
  roomHistory,
  scaffold,
  scaffoldSuite,
} from '../helpers.js';
import { membersOf } from '../support/accounts.js';
import { LiveClient } from '../support/live-client.js';

/**
 * Handing a room to a member (PUT /api/rooms/:roomId/owner; decisions: "Ownership transfer"):
 * the member becomes owner and the owner an editor in one write, in history and live; the new
 * roles hold from the next request; the target must be a member; oneself changes nothing.
 */

const clients: LiveClient[] = [];

after(async () => {
  for (const client of clients) client.terminate();
});
const s = scaffoldSuite({ rooms: [], listen: true, config: { accessCacheTtlMs: 60_000 } });

const transfer = (roomId: string, userId: string, auth = s.users.owner.token) =>
  call(s.t.app, 'PUT', `/api/rooms/${roomId}/owner`, { auth, body: { userId } });

test('the member becomes owner, the owner editor: in the answer, history, live, and access at once', async () => {
  const roomId = await createRoomWithMembers(s.t.app, s.users);
  const client = new LiveClient(`${s.wsBase}/api/rooms/${roomId}/live?access_token=${s.users.viewer.token}`);
  clients.push(client);
  await client.at(0);
  // Cached for a minute here: only forgetting the room makes the new roles hold at once.
  assertOk(await call(s.t.app, 'GET', `/api/rooms/${roomId}`, { auth: s.users.editor.token }));

  const room = assertOk(await transfer(roomId, s.users.editor.id));
  assert.equal(room.roomId ?? room.id, roomId);
  assert.equal(room.userRole, 'editor');
  assert.equal(room.counts.members, 3);
  const roles = Object.fromEntries((await membersOf(s.t.app, s.users.editor, roomId)).map((m) => [m.userId, m.role]));
  assert.deepEqual(roles, {
    [s.users.owner.id]: 'editor',
    [s.users.editor.id]: 'owner',
    [s.users.viewer.id]: 'viewer',
  });

  const changes = (await roomHistory(s.t.app, roomId, s.users.viewer.token))
    .filter((e) => e.type === 'member.updated')
    .map((e) => [e.objectId, e.changes?.role, e.actor.id]);
  assert.deepEqual(
    changes.sort(),
    [
      [s.users.editor.id, 'owner', s.users.owner.id],
      [s.users.owner.id, 'editor', s.users.owner.id],
    ].sort(),
  );
  const heard = await client.waitUntil(
    (m) => m.type === 'member.updated' && m.data?.role === 'editor',
    'the old owner made editor',
  );
  assert.deepEqual(heard.data, { userId: s.users.owner.id, role: 'editor' });
  assert.ok(
    client.messages.some(
      (m) => m.type === 'member.updated' && m.data?.userId === s.users.editor.id && m.data.role === 'owner',
    ),
  );

  const rename = (auth: string) =>
    call(s.t.app, 'PATCH', `/api/rooms/${roomId}`, { auth, body: { name: 'Handed on' } });
  assertOk(await rename(s.users.editor.token));
  assertError(await rename(s.users.owner.token), 403, 'forbidden');
  assertError(await transfer(roomId, s.users.owner.id), 403, 'forbidden');
  assertOk(await transfer(roomId, s.users.owner.id, s.users.editor.token));
});

test('only the owner may; the target must be a member; oneself changes nothing', async () => {
  const roomId = await createRoomWithMembers(s.t.app, s.users);
  assertError(await transfer(roomId, s.users.editor.id, s.users.editor.token), 403, 'forbidden');
  assertError(await transfer(roomId, s.users.editor.id, s.users.stranger.token), 403, 'forbidden');
  const { token } = await issueToken(s.t.app, s.users.owner, roomId, ['read', 'write']);
  assertError(await transfer(roomId, s.users.editor.id, token), 403, 'api_token_not_allowed');
  assertError(await transfer(roomId, s.users.editor.id, ''), 401, 'unauthorized');
  const notMember = assertError(await transfer(roomId, s.users.stranger.id), 404, 'not_found');
  assert.match(notMember.message, /must be a member/);
  assertError(await transfer(roomId, 'user-nobody'), 404, 'not_found');
  assertError(
    await call(s.t.app, 'PUT', `/api/rooms/${roomId}/owner`, { auth: s.users.owner.token, body: {} }),
    400,
    'validation_error',
  );

  const before = (await roomHistory(s.t.app, roomId, s.users.owner.token)).length;
  const same = assertOk(await transfer(roomId, s.users.owner.id));
  assert.equal(same.userRole, 'owner');
  assert.equal((await roomHistory(s.t.app, roomId, s.users.owner.token)).length, before, 'nothing recorded');
  await addMember(s.t.app, s.users.owner, roomId, s.users.stranger, 'viewer');
  assert.equal(assertOk(await transfer(roomId, s.users.stranger.id)).userRole, 'editor');
});

test("a handed room counts against its new owner's storage quota, no longer the old owner's", async () => {
  const icon = {
    data: Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><circle cx="12" cy="12" r="10" fill="#c00"/>${' '.repeat(300)}</svg>`,
    ),
    filename: 'icon.svg',
    type: 'image/svg+xml',
  };
  // Room for one icon per owner, not two.
  const quota = Math.floor(icon.data.length * 1.5);
  const { t: small, users: people } = await scaffold({
    config: { storageQuotaBytes: quota },
    users: ['owner', 'editor'],
    rooms: [],
  });
  try {
    const addIcon = (roomId: string, auth: string) =>
      postMultipart(small.app, `/api/rooms/${roomId}/marker-icons`, { icon, name: 'Pin', size: '24' }, auth);
    const handed = await createRoom(small.app, people.owner);
    assertOk(await addIcon(handed, people.owner.token), 201);
    await addMember(small.app, people.owner, handed, people.editor, 'editor');
    const theirs = await createRoom(small.app, people.editor);
    assertOk(
      await call(small.app, 'PUT', `/api/rooms/${handed}/owner`, {
        auth: people.owner.token,
        body: { userId: people.editor.id },
      }),
    );
    assertError(await addIcon(theirs, people.editor.token), 413, 'quota_exceeded');
    const mine = await createRoom(small.app, people.owner);
    assertOk(await addIcon(mine, people.owner.token), 201);
  } finally {
    await small.close();
  }
});

test('a room is handed only to a member it fits: MAX_ROOMS_PER_USER and the storage quota', async () => {
  const icon = {
    data: Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24">${' '.repeat(300)}</svg>`),
    filename: 'icon.svg',
    type: 'image/svg+xml',
  };
  const { t: small, users: people } = await scaffold({
    config: { maxRoomsPerUser: 2, storageQuotaBytes: Math.floor(icon.data.length * 1.5) },
    users: ['owner', 'editor'],
    rooms: [],
  });
  try {
    const addIcon = (roomId: string, auth: string) =>
      postMultipart(small.app, `/api/rooms/${roomId}/marker-icons`, { icon, name: 'Pin', size: '24' }, auth);
    const hand = async (roomId: string) => {
      await addMember(small.app, people.owner, roomId, people.editor, 'editor');
      return call(small.app, 'PUT', `/api/rooms/${roomId}/owner`, {
        auth: people.owner.token,
        body: { userId: people.editor.id },
      });
    };
    const role = async (roomId: string) =>
      assertOk(await call(small.app, 'GET', `/api/rooms/${roomId}`, { auth: people.owner.token })).userRole;
    assertOk(await addIcon(await createRoom(small.app, people.editor), people.editor.token), 201);
    const full = await createRoom(small.app, people.owner);
    assertOk(await addIcon(full, people.owner.token), 201);
    assertError(await hand(full), 413, 'quota_exceeded');
    assert.equal(await role(full), 'owner', 'nothing changed');
    const empty = await createRoom(small.app, people.owner);
    assertOk(await hand(empty));
    const third = await createRoom(small.app, people.owner);
    assertError(await hand(third), 403, 'room_limit_reached');
    assert.equal(await role(third), 'owner', 'nothing changed');
  } finally {
    await small.close();
  }
});
