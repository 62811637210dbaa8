import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  addMember,
  assertError,
  call,
  createRoom,
  PASSWORD,
  scaffoldSuite,
  signup,
  uniqueEmail,
  uniqueRoomId,
} from '../helpers.js';
import { membersOf, roomsOf } from '../support/accounts.js';

/**
 * Accounts: pending invitations become memberships when the invitee signs in, and the rooms
 * a signed-in person sees.
 */

const s = scaffoldSuite({ users: [], rooms: [] });

// ---------------------------------------------------------------------------------------
// Pending invitations become memberships when the invitee signs in

test('an invitation to an e-mail without an account is pending until that person signs up', async () => {
  const owner = await signup(s.t.app);
  const roomId = await createRoom(s.t.app, owner, uniqueRoomId(), { name: 'Invited room' });
  const email = uniqueEmail('invitee');

  const invite = await call(s.t.app, 'POST', `/api/rooms/${roomId}/invite`, {
    auth: owner.token,
    body: { email: email.toUpperCase(), role: 'editor' },
  });
  assert.equal(invite.statusCode, 200, invite.body);
  assert.equal(invite.json().success, true);
  assert.equal(invite.json().status, 'pending');

  const pending = await call(s.t.app, 'GET', `/api/rooms/${roomId}/pending-invitations`, { auth: owner.token });
  assert.equal(pending.statusCode, 200);
  assert.deepEqual(
    pending.json().invitations.map((i: any) => [i.email, i.role]),
    [[email, 'editor']],
  );
  assert.equal((await membersOf(s.t.app, owner, roomId)).length, 1);

  const invitee = await signup(s.t.app, email);
  const rooms = await roomsOf(s.t.app, invitee);
  assert.deepEqual(
    rooms.map((r) => [r.roomId, r.role, r.name]),
    [[roomId, 'editor', 'Invited room']],
  );
  const members = await membersOf(s.t.app, invitee, roomId);
  const entry = members.find((m) => m.userId === invitee.id);
  assert.ok(entry, 'the invitee is a member');
  assert.equal(entry.email, email);
  assert.equal(entry.role, 'editor');
  assert.equal(entry.addedBy, owner.id);
  assert.equal(members.find((m) => m.userId === owner.id)?.role, 'owner');

  // The invitation is consumed, and the new member's role is in force.
  const after = await call(s.t.app, 'GET', `/api/rooms/${roomId}/pending-invitations`, { auth: owner.token });
  assert.deepEqual(after.json().invitations, []);
  const meta = await call(s.t.app, 'GET', `/api/rooms/${roomId}`, { auth: invitee.token });
  assert.equal(meta.statusCode, 200);
  assert.equal(meta.json().userRole, 'editor');
  assert.equal(meta.json().hasAccess, true);
});

test('inviting an existing account adds it at once (status added)', async () => {
  const owner = await signup(s.t.app);
  const roomId = await createRoom(s.t.app, owner);
  const existing = await signup(s.t.app);
  const invite = await call(s.t.app, 'POST', `/api/rooms/${roomId}/invite`, {
    auth: owner.token,
    body: { email: existing.email.toUpperCase(), role: 'viewer' },
  });
  assert.equal(invite.statusCode, 200, invite.body);
  assert.equal(invite.json().success, true);
  assert.equal(invite.json().status, 'added');
  assert.equal(invite.json().member.userId, existing.id);
  assert.equal(invite.json().member.role, 'viewer');

  // Member at once, without signing in again.
  assert.deepEqual(
    (await roomsOf(s.t.app, existing)).map((r) => [r.roomId, r.role]),
    [[roomId, 'viewer']],
  );
  assert.equal((await membersOf(s.t.app, owner, roomId)).find((m) => m.userId === existing.id)?.role, 'viewer');
  const pending = await call(s.t.app, 'GET', `/api/rooms/${roomId}/pending-invitations`, { auth: owner.token });
  assert.deepEqual(pending.json().invitations, []);
});

test('a pending invitation for an existing account is accepted when it logs in', async () => {
  // No route leaves an invitation pending for an existing account; arrange it in the database.
  const owner = await signup(s.t.app);
  const roomId = await createRoom(s.t.app, owner);
  const user = await signup(s.t.app);
  await s.t.database.db
    .insertInto('pending_invitations')
    .values({ room_id: roomId, email: user.email, role: 'editor', invited_at: Date.now(), invited_by: owner.id })
    .execute();
  assert.deepEqual(await roomsOf(s.t.app, user), []);

  const login = await call(s.t.app, 'POST', '/api/auth/login', { body: { email: user.email, password: PASSWORD } });
  assert.equal(login.statusCode, 200);
  assert.deepEqual(
    (await roomsOf(s.t.app, { token: login.json().token })).map((r) => [r.roomId, r.role]),
    [[roomId, 'editor']],
  );
});

// ---------------------------------------------------------------------------------------
// The caller's rooms

test("GET /api/rooms lists only the caller's rooms with {roomId, role, name, createdAt, isPublic}", async () => {
  const alice = await signup(s.t.app);
  const bob = await signup(s.t.app);
  const publicRoom = uniqueRoomId();
  const created = await call(s.t.app, 'POST', `/api/rooms/${publicRoom}`, {
    auth: alice.token,
    body: { name: 'Alpha', isPublic: true },
  });
  assert.equal(created.statusCode, 200);
  const privateRoom = await createRoom(s.t.app, alice);
  const bobsRoom = await createRoom(s.t.app, bob, uniqueRoomId(), { name: 'Bravo' });

  const aliceRooms = await roomsOf(s.t.app, alice);
  assert.equal(aliceRooms.length, 2);
  for (const room of aliceRooms) {
    assert.deepEqual(Object.keys(room).sort(), ['createdAt', 'isPublic', 'name', 'role', 'roomId']);
    assert.equal(typeof room.createdAt, 'number');
    assert.ok(Number.isInteger(room.createdAt));
  }
  const byId = new Map(aliceRooms.map((r) => [r.roomId, r]));
  assert.deepEqual(byId.get(publicRoom), {
    roomId: publicRoom,
    role: 'owner',
    name: 'Alpha',
    createdAt: created.json().room.createdAt,
    isPublic: true,
  });
  const priv = byId.get(privateRoom);
  assert.ok(priv);
  assert.equal(priv.role, 'owner');
  assert.equal(priv.isPublic, false);
  assert.ok(!priv.name, 'an unnamed room has no name');
  assert.ok(!byId.has(bobsRoom), "another user's room is not listed");

  assert.deepEqual(
    (await roomsOf(s.t.app, bob)).map((r) => [r.roomId, r.role, r.name, r.isPublic]),
    [[bobsRoom, 'owner', 'Bravo', false]],
  );
  // Anonymous callers have no list.
  assertError(await call(s.t.app, 'GET', '/api/rooms'), 401, 'unauthorized');
});

test('a removed member no longer sees the room', async () => {
  const owner = await signup(s.t.app);
  const member = await signup(s.t.app);
  const roomId = await createRoom(s.t.app, owner, uniqueRoomId(), { name: 'Shared' });
  const ownRoom = await createRoom(s.t.app, member);
  await addMember(s.t.app, owner, roomId, member, 'editor');
  assert.deepEqual(
    (await roomsOf(s.t.app, member)).map((r) => [r.roomId, r.role]).sort(),
    [
      [ownRoom, 'owner'],
      [roomId, 'editor'],
    ].sort(),
  );

  const removed = await call(s.t.app, 'DELETE', `/api/rooms/${roomId}/members/${member.id}`, { auth: owner.token });
  assert.equal(removed.statusCode, 200, removed.body);
  assert.equal(removed.json().success, true);

  assert.deepEqual(
    (await roomsOf(s.t.app, member)).map((r) => r.roomId),
    [ownRoom],
  );
  assert.ok(!(await membersOf(s.t.app, owner, roomId)).some((m) => m.userId === member.id));
  assertError(await call(s.t.app, 'GET', `/api/rooms/${roomId}`, { auth: member.token }), 403, 'forbidden');
  assertError(await call(s.t.app, 'GET', `/api/rooms/${roomId}/members`, { auth: member.token }), 403, 'forbidden');

  // The owner can never be removed.
  assertError(
    await call(s.t.app, 'DELETE', `/api/rooms/${roomId}/members/${owner.id}`, { auth: owner.token }),
    403,
    'forbidden',
  );
  assert.deepEqual(
    (await roomsOf(s.t.app, owner)).map((r) => [r.roomId, r.role]),
    [[roomId, 'owner']],
  );
});
