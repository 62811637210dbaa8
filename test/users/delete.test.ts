import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { SignJWT } from 'jose';
import {
  addMember,
  assertError,
  assertOk,
  call,
  createRoom,
  followVerificationLink,
  issueToken,
  mailboxOf,
  PASSWORD,
  roomHistory,
  scaffoldSuite,
  type TestUser,
  uniqueEmail,
} from '../helpers.js';
import { membersOf } from '../support/accounts.js';

/**
 * Deleting an account (DELETE /api/auth/me; decisions: "Account deletion"): confirmed by the
 * password, or by a fresh sign-in without one; refused while the person owns rooms; the row
 * stays as a tombstone that names its work "Ann (deleted account)"; sessions, the room tokens
 * the account created and its memberships end at once; the address is free again.
 */

const s = scaffoldSuite({ rooms: [] });

async function signupNamed(name?: string): Promise<TestUser> {
  const email = uniqueEmail((name ?? 'nameless').toLowerCase());
  const { token, user } = assertOk(
    await call(s.t.app, 'POST', '/api/auth/signup', { body: { email, password: PASSWORD, ...(name && { name }) } }),
    201,
  );
  await followVerificationLink(s.t.app, email);
  return { token, id: user.id, email };
}

const deleteMe = (auth: string, body: unknown = { password: PASSWORD }) =>
  call(s.t.app, 'DELETE', '/api/auth/me', { auth, body });

test('deletion needs the password, and is refused with the owned rooms listed until they are handed on', async () => {
  const ann = await signupNamed('Ann');
  const [first, second] = [await createRoom(s.t.app, ann), await createRoom(s.t.app, ann)];
  assertError(await deleteMe(ann.token, { password: 'not the password' }), 403, 'wrong_password');
  assertError(await deleteMe(ann.token, {}), 403, 'wrong_password');
  // The body is required (`{}` for an account without a password).
  assertError(await call(s.t.app, 'DELETE', '/api/auth/me', { auth: ann.token }), 400, 'validation_error');
  const { token } = await issueToken(s.t.app, ann, first, ['read']);
  assertError(await deleteMe(token), 403, 'api_token_not_allowed');

  const refused = assertError(await deleteMe(ann.token), 409, 'owns_rooms');
  assert.deepEqual(refused.details.rooms.sort(), [first, second].sort());
  // Handed to a member, and the other deleted: then the account may go.
  await addMember(s.t.app, ann, first, s.users.editor, 'editor');
  assertOk(
    await call(s.t.app, 'PUT', `/api/rooms/${first}/owner`, { auth: ann.token, body: { userId: s.users.editor.id } }),
  );
  assertOk(await call(s.t.app, 'DELETE', `/api/rooms/${second}`, { auth: ann.token }));
  assert.equal((await deleteMe(ann.token)).statusCode, 204);
});

test("a deleted account's sessions, tokens and memberships end; its address may sign up again", async () => {
  const ann = await signupNamed('Ann');
  const roomId = await createRoom(s.t.app, s.users.owner);
  await addMember(s.t.app, s.users.owner, roomId, ann, 'editor');
  const own = await createRoom(s.t.app, ann);
  const { token } = await issueToken(s.t.app, ann, own, ['read']);
  // Ann's token of her room, handed to the owner, keeps its creator: it must stop with her.
  assertOk(
    await call(s.t.app, 'POST', `/api/rooms/${own}/invite`, {
      auth: ann.token,
      body: { email: s.users.owner.email, role: 'editor' },
    }),
  );
  assertOk(
    await call(s.t.app, 'PUT', `/api/rooms/${own}/owner`, { auth: ann.token, body: { userId: s.users.owner.id } }),
  );
  assertOk(await call(s.t.app, 'GET', `/api/rooms/${own}`, { auth: token }));
  const other = assertOk(
    await call(s.t.app, 'POST', '/api/auth/login', { body: { email: ann.email, password: PASSWORD } }),
  ).token;

  assert.equal((await deleteMe(ann.token)).statusCode, 204);
  assertError(await call(s.t.app, 'GET', '/api/auth/me', { auth: ann.token }), 401, 'unauthorized');
  assertError(await call(s.t.app, 'GET', '/api/auth/me', { auth: other }), 401, 'unauthorized');
  assertError(await call(s.t.app, 'GET', `/api/rooms/${own}`, { auth: token }), 401, 'unauthorized');
  assertError(
    await call(s.t.app, 'POST', '/api/auth/login', { body: { email: ann.email, password: PASSWORD } }),
    401,
    'invalid_credentials',
  );
  const members = await membersOf(s.t.app, s.users.owner, roomId);
  assert.ok(!members.some((m) => m.userId === ann.id), 'the membership is gone');
  // Nothing is mailed to the deleted account, and its address is free for a new one.
  assert.equal(
    (await call(s.t.app, 'POST', '/api/auth/password-reset', { body: { email: ann.email } })).statusCode,
    202,
  );
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.ok(
    !mailboxOf(s.t.app)
      .to(ann.email)
      .some((m) => /Reset/.test(m.subject)),
    'no reset mail',
  );
  const again = assertOk(
    await call(s.t.app, 'POST', '/api/auth/signup', { body: { email: ann.email, password: PASSWORD } }),
    201,
  );
  assert.notEqual(again.user.id, ann.id);
});

test('history and comments keep the name, marked as a deleted account ("Deleted account" without a name)', async () => {
  const [ann, nameless] = [await signupNamed('Ann'), await signupNamed()];
  const roomId = await createRoom(s.t.app, s.users.owner);
  await addMember(s.t.app, s.users.owner, roomId, ann, 'editor');
  await addMember(s.t.app, s.users.owner, roomId, nameless, 'editor');
  for (const [who, title] of [
    [ann, 'Well'],
    [nameless, 'Tree'],
  ] as const)
    assertOk(
      await call(s.t.app, 'POST', `/api/rooms/${roomId}/markers`, {
        auth: who.token,
        body: { latitude: 1, longitude: 2, title },
      }),
      201,
    );
  assertOk(
    await call(s.t.app, 'POST', `/api/rooms/${roomId}/comments`, {
      auth: ann.token,
      body: { objectId: 'marker-x', objectType: 'marker', body: 'Look here' },
    }),
    201,
  );
  assert.equal((await deleteMe(ann.token)).statusCode, 204);
  assert.equal((await deleteMe(nameless.token)).statusCode, 204);

  const names = (await roomHistory(s.t.app, roomId, s.users.owner.token))
    .filter((e) => e.type === 'marker.created')
    .map((e) => [e.objectName, e.actor.name])
    .sort();
  assert.deepEqual(names, [
    ['Tree', 'Deleted account'],
    ['Well', 'Ann (deleted account)'],
  ]);
  const [comment] = assertOk(
    await call(s.t.app, 'GET', `/api/rooms/${roomId}/comments`, { auth: s.users.owner.token }),
  ).comments;
  assert.deepEqual(comment.author, { kind: 'user', id: ann.id, name: 'Ann (deleted account)' });
  assert.ok(!JSON.stringify(comment).includes('invalid'), 'the placeholder address is never shown');
});

/** A session JWT signed as the service signs its own, issued `ageMs` ago (an account without a password). */
async function sessionIssued(user: { id: string; email: string }, ageMs: number) {
  const secret = s.t.config.jwtSecret ?? readFileSync(path.join(s.t.config.dataDir, 'jwt-secret'), 'utf8').trim();
  const issuedAt = Date.now() - ageMs;
  return new SignJWT({ email: user.email, iat_ms: issuedAt })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(user.id)
    .setIssuer('maproom')
    .setAudience('maproom')
    .setIssuedAt(Math.floor(issuedAt / 1000))
    .setExpirationTime('1h')
    .setJti(`session-${Math.random().toString(36).slice(2)}`)
    .sign(new TextEncoder().encode(secret));
}

test('an account without a password confirms by a fresh sign-in (reauthentication_required otherwise)', async () => {
  const id = `user-nopassword-${Date.now()}`;
  const email = uniqueEmail('provider');
  await s.t.database.db
    .insertInto('users')
    .values({
      id,
      email,
      name: 'Provider Person',
      password_hash: null,
      created_at: Date.now(),
      email_verified_at: Date.now(),
      disabled_at: null,
      deleted_at: null,
      sessions_not_before: null,
      provider_admin: 0,
      last_seen_at: null,
      sessions_kept: null,
    })
    .execute();
  const stale = await sessionIssued({ id, email }, (s.t.config.freshSignInSeconds + 60) * 1000);
  assertOk(await call(s.t.app, 'GET', '/api/auth/me', { auth: stale }));
  // Its provider owns its password and address: changing them here is refused, saying so.
  const password = assertError(
    await call(s.t.app, 'POST', '/api/auth/password', {
      auth: stale,
      body: { currentPassword: 'anything', newPassword: 'a new password' },
    }),
    403,
    'forbidden',
  );
  assert.match(password.message, /identity provider/);
  const address = assertError(
    await call(s.t.app, 'POST', '/api/auth/email', {
      auth: stale,
      body: { email: uniqueEmail('elsewhere'), password: 'anything' },
    }),
    403,
    'forbidden',
  );
  assert.match(address.message, /identity provider/);
  assertError(await deleteMe(stale, {}), 403, 'reauthentication_required');
  const fresh = await sessionIssued({ id, email }, 1000);
  assert.equal((await deleteMe(fresh, {})).statusCode, 204);
  assertError(await call(s.t.app, 'GET', '/api/auth/me', { auth: fresh }), 401, 'unauthorized');
});

test("the admin's deleteAccount: 409 owns_rooms under 'refuse', the rooms deleted under 'delete', 404 after", async () => {
  const ann = await signupNamed('Ann');
  const roomId = await createRoom(s.t.app, ann);
  await assert.rejects(s.t.accounts.users.deleteAccount(ann.id, { ownedRooms: 'refuse' }), (error: Error) => {
    assert.equal((error as { code?: string }).code, 'owns_rooms');
    return true;
  });
  await s.t.accounts.users.deleteAccount(ann.id, { ownedRooms: 'delete' });
  assertError(await call(s.t.app, 'GET', `/api/rooms/${roomId}`, { auth: s.users.owner.token }), 404, 'not_found');
  await assert.rejects(s.t.accounts.users.deleteAccount(ann.id, { ownedRooms: 'delete' }), /User not found/);
  await assert.rejects(s.t.accounts.users.setDisabled(ann.id, true), /User not found/);
});
