/**
 * What the admin does to accounts and rooms over HTTP: disable (sessions, the room tokens the
 * user created and sign-in refused) and enable, delete (owns_rooms unless ?rooms=delete),
 * send a reset link, hand a room over; each in the audit list. The session and token rules
 * themselves (every instance at once) are the accounts' own tests.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  addMember,
  assertError,
  assertOk,
  buildTestApp,
  call,
  createRoom,
  issueToken,
  mailboxOf,
  PASSWORD,
  signup,
  type TestApp,
  type TestUser,
} from '../helpers.js';

const ADMIN = 'accounts-admin@example.org';
const OTHER_ADMIN = 'accounts-admin-two@example.org';
let t: TestApp;
let admin: TestUser;

before(async () => {
  t = await buildTestApp({ adminEmails: `${ADMIN},${OTHER_ADMIN}` });
  admin = await signup(t.app, ADMIN);
});
after(async () => {
  await t?.close();
});

const asAdmin = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown) =>
  call(t.app, method, url, { auth: admin.token, ...(body !== undefined && { body }) });
const lastAudit = async () => assertOk(await asAdmin('GET', '/api/admin/audit?limit=1')).entries[0];

test('disable refuses the sessions, tokens and sign-in of the user; enable lets them sign in again', async () => {
  const user = await signup(t.app);
  const room = await createRoom(t.app, user);
  const { token } = await issueToken(t.app, user, room, ['read']);
  const disabled = assertOk(await asAdmin('POST', `/api/admin/users/${user.id}/disable`));
  assert.equal(disabled.id, user.id);
  assert.equal(disabled.disabled, true);
  assert.equal(disabled.roomsOwned, 1);
  assertError(await call(t.app, 'GET', '/api/auth/me', { auth: user.token }), 401, 'unauthorized');
  assertError(await call(t.app, 'GET', `/api/rooms/${room}`, { auth: token }), 401, 'unauthorized');
  const login = await call(t.app, 'POST', '/api/auth/login', { body: { email: user.email, password: PASSWORD } });
  assertError(login, 403, 'account_disabled');
  const entry = await lastAudit();
  assert.deepEqual([entry.action, entry.target], ['user.disable', user.id]);
  const listed = assertOk(await asAdmin('GET', `/api/admin/users?q=${encodeURIComponent(user.email)}`)).users;
  assert.equal(listed[0].disabled, true);

  const enabled = assertOk(await asAdmin('POST', `/api/admin/users/${user.id}/enable`));
  assert.equal(enabled.disabled, false);
  assertOk(await call(t.app, 'POST', '/api/auth/login', { body: { email: user.email, password: PASSWORD } }));
  assert.equal((await lastAudit()).action, 'user.enable');
  assertError(await asAdmin('POST', '/api/admin/users/user-nobody/disable'), 404, 'not_found');
  assertError(await asAdmin('POST', `/api/admin/users/${admin.id}/disable`), 409, 'own_account');
});

test('another admin is neither disabled nor deleted (409 admin_account), and nothing is audited', async () => {
  const other = await signup(t.app, OTHER_ADMIN);
  const before = await lastAudit();
  const disable = assertError(await asAdmin('POST', `/api/admin/users/${other.id}/disable`), 409, 'admin_account');
  assert.match(disable.message, /ADMIN_EMAILS/);
  assertError(await asAdmin('DELETE', `/api/admin/users/${other.id}?rooms=delete`), 409, 'admin_account');
  assertOk(await call(t.app, 'GET', '/api/auth/me', { auth: other.token }));
  assert.deepEqual(await lastAudit(), before);
});

test('delete: 409 owns_rooms naming the rooms, then with ?rooms=delete the account and its rooms go', async () => {
  const user = await signup(t.app);
  const rooms = [await createRoom(t.app, user), await createRoom(t.app, user)];
  const refused = await asAdmin('DELETE', `/api/admin/users/${user.id}`);
  assertError(refused, 409, 'owns_rooms');
  assert.deepEqual([...refused.json().details.rooms].sort(), [...rooms].sort());
  assertOk(await call(t.app, 'GET', '/api/auth/me', { auth: user.token }));

  const res = await asAdmin('DELETE', `/api/admin/users/${user.id}?rooms=delete`);
  assert.equal(res.statusCode, 204, res.body);
  for (const room of rooms) assert.deepEqual(assertOk(await asAdmin('GET', `/api/admin/rooms?q=${room}`)).rooms, []);
  assertError(await call(t.app, 'GET', '/api/auth/me', { auth: user.token }), 401, 'unauthorized');
  const users = assertOk(await asAdmin('GET', '/api/admin/users?limit=100')).users;
  assert.ok(!users.some((u: { id: string }) => u.id === user.id), 'a deleted account is not listed');
  const entry = await lastAudit();
  assert.equal(entry.action, 'user.delete');
  assert.equal(entry.target, user.id);
  assertError(await asAdmin('DELETE', `/api/admin/users/${user.id}`), 404, 'not_found');
  assertError(await asAdmin('DELETE', `/api/admin/users/${user.id}?rooms=keep`), 400, 'validation_error');
});

test('password-reset mails the user a link: 202, and the audit list has it', async () => {
  const user = await signup(t.app);
  const res = await asAdmin('POST', `/api/admin/users/${user.id}/password-reset`);
  assert.equal(res.statusCode, 202, res.body);
  assert.deepEqual(res.json(), {});
  const mail = await mailboxOf(t.app).waitFor(user.email, /password/i);
  assert.match(mail.text, /reset/i);
  assert.equal((await lastAudit()).action, 'user.password-reset');
  assertError(await asAdmin('POST', '/api/admin/users/user-nobody/password-reset'), 404, 'not_found');
});

test('transfer hands the room to a member (old owner editor); a non-member is 404', async () => {
  const [owner, member, stranger] = [await signup(t.app), await signup(t.app), await signup(t.app)];
  const room = await createRoom(t.app, owner);
  await addMember(t.app, owner, room, member, 'viewer');
  assertError(await asAdmin('PUT', `/api/admin/rooms/${room}/owner`, { userId: stranger.id }), 404, 'not_found');
  const moved = assertOk(await asAdmin('PUT', `/api/admin/rooms/${room}/owner`, { userId: member.id }));
  assert.equal(moved.ownerId, member.id);
  assert.equal(moved.id, room);
  const permissions = assertOk(await call(t.app, 'GET', `/api/rooms/${room}`, { auth: owner.token }));
  assert.equal(permissions.userRole, 'editor');
  const entry = await lastAudit();
  assert.deepEqual([entry.action, entry.target, entry.adminId], ['room.transfer', room, admin.id]);
  assertError(
    await asAdmin('PUT', `/api/admin/rooms/${room}/owner`, { userId: member.id, extra: 1 }),
    400,
    'validation_error',
  );
  assertError(
    await call(t.app, 'PUT', `/api/admin/rooms/${room}/owner`, { auth: member.token, body: { userId: owner.id } }),
    403,
    'forbidden',
  );
});
