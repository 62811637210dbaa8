import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import {
  addMember,
  assertError,
  assertOk,
  assertValidation,
  call,
  createRoom,
  issueToken,
  roomHistory,
  scaffoldSuite,
} from '../helpers.js';
import { LiveClient } from '../support/live-client.js';

/**
 * Roles in place: `PATCH /api/rooms/:roomId/members/:userId {role}` (owner session)
 * changes an editor into a viewer and back, at once, recorded in history and sent live as
 * `member.updated`; the owner's role never changes (docs/decisions.md, "Members and invitations").
 */

const clients: LiveClient[] = [];

const s = scaffoldSuite({ rooms: [], listen: true });
afterEach(() => {
  for (const client of clients.splice(0)) client.terminate();
});

/** A fresh private room of the owner with the editor and the viewer as members. */
async function freshRoom() {
  const roomId = await createRoom(s.t.app, s.users.owner);
  await addMember(s.t.app, s.users.owner, roomId, s.users.editor, 'editor');
  await addMember(s.t.app, s.users.owner, roomId, s.users.viewer, 'viewer');
  return roomId;
}

const setRole = (roomId: string, userId: string, body: unknown, auth = s.users.owner.token) =>
  call(s.t.app, 'PATCH', `/api/rooms/${roomId}/members/${userId}`, { auth, body });

const addMarker = (roomId: string, auth: string) =>
  call(s.t.app, 'POST', `/api/rooms/${roomId}/markers`, { auth, body: { latitude: 1, longitude: 2 } });

test('an editor made viewer loses write at once, gets it back when made editor again; both are in history', async () => {
  const roomId = await freshRoom();
  // The editor's access is read (and cached) before the change.
  assertOk(await addMarker(roomId, s.users.editor.token), 201);

  const member = assertOk(await setRole(roomId, s.users.editor.id, { role: 'viewer' }));
  const listed = assertOk(await call(s.t.app, 'GET', `/api/rooms/${roomId}/members`, { auth: s.users.owner.token }));
  assert.deepEqual(
    member,
    listed.find((m: { userId: string }) => m.userId === s.users.editor.id),
    'answered as the list shows it',
  );
  assert.equal(member.role, 'viewer');
  assert.equal(member.email, s.users.editor.email);

  assertError(
    await addMarker(roomId, s.users.editor.token),
    403,
    'forbidden',
    'The viewer role does not allow this operation',
  );
  // A viewer still reads and comments.
  assertOk(await call(s.t.app, 'GET', `/api/rooms/${roomId}/markers`, { auth: s.users.editor.token }));
  const permissions = assertOk(
    await call(s.t.app, 'GET', `/api/rooms/${roomId}/permissions?action=edit`, { auth: s.users.editor.token }),
  );
  assert.deepEqual(permissions, { hasPermission: false, role: 'viewer' });

  assertOk(await setRole(roomId, s.users.editor.id, { role: 'editor' }));
  assertOk(await addMarker(roomId, s.users.editor.token), 201);

  const roleEntries = (await roomHistory(s.t.app, roomId, s.users.owner.token)).filter(
    (e) => e.type === 'member.updated',
  );
  assert.deepEqual(
    roleEntries.map((e) => [e.objectType, e.objectId, e.actor, e.changes]),
    [
      [
        'member',
        s.users.editor.id,
        { kind: 'user', id: s.users.owner.id, name: s.users.owner.email },
        { role: 'editor' },
      ],
      [
        'member',
        s.users.editor.id,
        { kind: 'user', id: s.users.owner.id, name: s.users.owner.email },
        { role: 'viewer' },
      ],
    ],
  );
});

test('a viewer made editor may write at once', async () => {
  const roomId = await freshRoom();
  assertError(await addMarker(roomId, s.users.viewer.token), 403, 'forbidden');
  assert.equal(assertOk(await setRole(roomId, s.users.viewer.id, { role: 'editor' })).role, 'editor');
  assertOk(await addMarker(roomId, s.users.viewer.token), 201);
});

test('the same role again answers the member and records nothing', async () => {
  const roomId = await freshRoom();
  const before = await roomHistory(s.t.app, roomId, s.users.owner.token);
  assert.equal(assertOk(await setRole(roomId, s.users.viewer.id, { role: 'viewer' })).role, 'viewer');
  assert.deepEqual(await roomHistory(s.t.app, roomId, s.users.owner.token), before);
});

test("the owner's role cannot change; an unknown member is 404; a bad body is 400", async () => {
  const roomId = await freshRoom();
  assertError(
    await setRole(roomId, s.users.owner.id, { role: 'viewer' }),
    403,
    'forbidden',
    "The room owner's role cannot change",
  );
  assertError(await setRole(roomId, s.users.stranger.id, { role: 'viewer' }), 404, 'not_found', 'Member not found');
  assertValidation(await setRole(roomId, s.users.editor.id, { role: 'owner' }), 'role');
  assertValidation(await setRole(roomId, s.users.editor.id, {}), 'role');
  assertValidation(await setRole(roomId, s.users.editor.id, { role: 'viewer', email: 'x@example.com' }), 'email');
  const listed = assertOk(await call(s.t.app, 'GET', `/api/rooms/${roomId}/members`, { auth: s.users.owner.token }));
  // Members added in the same millisecond list in any order: compare each member's role.
  assert.deepEqual(
    Object.fromEntries(listed.map((m: { userId: string; role: string }) => [m.userId, m.role])),
    { [s.users.owner.id]: 'owner', [s.users.editor.id]: 'editor', [s.users.viewer.id]: 'viewer' },
    'nothing changed',
  );
});

test('only the owner session may change roles', async () => {
  const roomId = await freshRoom();
  assertError(await setRole(roomId, s.users.viewer.id, { role: 'editor' }, s.users.editor.token), 403, 'forbidden');
  assertError(await setRole(roomId, s.users.editor.id, { role: 'viewer' }, s.users.stranger.token), 403, 'forbidden');
  const { token } = await issueToken(s.t.app, s.users.owner, roomId, ['read', 'write', 'upload']);
  assertError(await setRole(roomId, s.users.editor.id, { role: 'viewer' }, token), 403, 'api_token_not_allowed');
  assertError(await setRole(roomId, s.users.editor.id, { role: 'viewer' }, ''), 401, 'unauthorized');
});

test("the member's open live socket stays open after being made viewer, and every socket hears member.updated", async () => {
  const roomId = await freshRoom();
  const client = new LiveClient(`${s.wsBase}/api/rooms/${roomId}/live?access_token=${s.users.editor.token}`);
  clients.push(client);
  await client.at(0);
  assertOk(await setRole(roomId, s.users.editor.id, { role: 'viewer' }));
  const change = await client.waitUntil((m) => m.type === 'member.updated', 'member.updated');
  assert.equal(change.objectId, s.users.editor.id);
  assert.deepEqual(change.data, { userId: s.users.editor.id, role: 'viewer' }, 'no e-mail in the live change');
  // Still listening: the next change arrives.
  assertOk(await addMarker(roomId, s.users.owner.token), 201);
  await client.waitUntil((m) => m.type === 'marker.created', 'marker.created after the role change');
});
