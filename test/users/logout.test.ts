import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { decodeJwt, SignJWT } from 'jose';
import { assertError, assertOk, call, createRoom, issueToken, PASSWORD, scaffoldSuite, signup } from '../helpers.js';

/**
 * Logging out (decisions: "Logout and revoked sessions"): POST /api/auth/logout ends the
 * session of the request's JWT; the JWT is refused from then on, other sessions are not.
 */

const s = scaffoldSuite({ users: [], rooms: [] });

const logout = (auth?: string) => call(s.t.app, 'POST', '/api/auth/logout', { auth });
const me = (auth: string) => call(s.t.app, 'GET', '/api/auth/me', { auth });

async function login(email: string) {
  return assertOk(await call(s.t.app, 'POST', '/api/auth/login', { body: { email, password: PASSWORD } }))
    .token as string;
}

test('logout answers 204 with no body; that JWT is then refused everywhere, another session of the user is not', async () => {
  const user = await signup(s.t.app);
  const other = await login(user.email);
  const roomId = await createRoom(s.t.app, user);
  assert.notEqual(decodeJwt(user.token).jti, decodeJwt(other).jti, 'each session has its own id');

  const res = await logout(user.token);
  assert.equal(res.statusCode, 204, res.body);
  assert.equal(res.body, '');

  const refused = 'Invalid or expired session token';
  assertError(await me(user.token), 401, 'unauthorized', refused);
  assertError(await call(s.t.app, 'GET', `/api/rooms/${roomId}`, { auth: user.token }), 401, 'unauthorized', refused);
  assertError(await logout(user.token), 401, 'unauthorized', refused);
  assert.equal((await me(other)).statusCode, 200, 'the other session stays');
  assertOk(await call(s.t.app, 'GET', `/api/rooms/${roomId}`, { auth: other }));
});

test('logout needs a session: none is 401, a room token is 403, a malformed header 401', async () => {
  const user = await signup(s.t.app);
  const roomId = await createRoom(s.t.app, user);
  const { token } = await issueToken(s.t.app, user, roomId, ['read']);
  assertError(await logout(), 401, 'unauthorized');
  assertError(await logout(token), 403, 'api_token_not_allowed');
  const garbage = await call(s.t.app, 'POST', '/api/auth/logout', { headers: { authorization: 'Bearer not.a.jwt' } });
  assertError(garbage, 401, 'unauthorized');
  assertError(
    await call(s.t.app, 'POST', '/api/auth/logout', { headers: { authorization: 'Basic abc' } }),
    401,
    'unauthorized',
  );
  assert.equal((await me(user.token)).statusCode, 200, 'nothing was revoked');
});

/** A session JWT as the service issued them before sessions had ids (no `jti`). */
async function jwtWithoutSessionId(user: { id: string; email: string }, lifetime = '1h') {
  const text = s.t.config.jwtSecret ?? readFileSync(path.join(s.t.config.dataDir, 'jwt-secret'), 'utf8').trim();
  return new SignJWT({ email: user.email })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(user.id)
    .setIssuer('maproom')
    .setAudience('maproom')
    .setIssuedAt()
    .setExpirationTime(lifetime)
    .sign(new TextEncoder().encode(text));
}

test('a JWT issued before sessions had ids still works, and logging out ends it (and only it)', async () => {
  const user = await signup(s.t.app);
  const [old, another] = [await jwtWithoutSessionId(user), await jwtWithoutSessionId(user, '2h')];
  assert.equal(decodeJwt(old).jti, undefined);
  assert.equal((await me(old)).statusCode, 200);
  assert.equal((await logout(old)).statusCode, 204);
  assertError(await me(old), 401, 'unauthorized');
  assert.equal((await me(another)).statusCode, 200, 'another JWT without an id is another session');
  assert.equal((await me(user.token)).statusCode, 200);
});

test('a logged-out JWT without an id stays refused when its signature is spelled another way', async () => {
  const user = await signup(s.t.app);
  const old = await jwtWithoutSessionId(user);
  assert.equal((await logout(old)).statusCode, 204);
  // The last base64url character of an HS256 signature carries 2 spare bits: other spellings
  // of the same bytes still verify.
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const last = alphabet.indexOf(old.at(-1)!);
  const respelled = [1, 2, 3].map((spare) => `${old.slice(0, -1)}${alphabet[(last & ~3) | ((last + spare) & 3)]}`);
  for (const token of respelled) assertError(await me(token), 401, 'unauthorized');
});

test("the hourly sweep removes the revocations of sessions that have expired since, and keeps the others'", async () => {
  const [a, b] = [await signup(s.t.app), await signup(s.t.app)];
  assert.equal((await logout(a.token)).statusCode, 204);
  assert.equal((await logout(b.token)).statusCode, 204);
  const { db } = s.t.database;
  const [idA, idB] = [decodeJwt(a.token).jti as string, decodeJwt(b.token).jti as string];
  const rows = await db.selectFrom('revoked_sessions').selectAll().where('session_id', 'in', [idA, idB]).execute();
  // Kept as long as any JWT of the session may live: a renewal (POST /api/auth/session) could
  // have made one valid until the logout plus a full lifetime, a little past this JWT's `exp`.
  const lifetimeMs = s.t.config.sessionTtlSeconds * 1000;
  for (const [id, token] of [
    [idA, a.token],
    [idB, b.token],
  ] as const) {
    const kept = Number(rows.find((row) => row.session_id === id)!.expires_at);
    assert.ok(kept >= decodeJwt(token).exp! * 1000, 'kept at least until the JWT expires');
    assert.ok(kept <= Date.now() + lifetimeMs, 'kept no longer than a renewal could have made it live');
  }
  await db
    .updateTable('revoked_sessions')
    .set({ expires_at: Date.now() - 1 })
    .where('session_id', '=', idA)
    .execute();

  await s.t.restart(); // sweeps run at start, then hourly
  const left = await s.t.database.db
    .selectFrom('revoked_sessions')
    .select('session_id')
    .where('session_id', 'in', [idA, idB])
    .execute();
  assert.deepEqual(
    left.map((row) => row.session_id),
    [idB],
  );
  assertError(await me(b.token), 401, 'unauthorized');
});
