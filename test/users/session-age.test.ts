import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { decodeJwt, SignJWT } from 'jose';
import { assertError, assertOk, buildTestApp, call, PASSWORD, signup, type TestApp, uniqueEmail } from '../helpers.js';

/**
 * A renewal keeps the time of the sign-in (`auth_ms`) (decisions: "Sessions that renew"): it
 * never makes a sign-in fresh, never lifts a session past an account's cut-off, and stops
 * once the sign-in is SESSION_MAX_AGE_SECONDS old.
 */

const MAX_AGE_SECONDS = 3600;
let t: TestApp;
before(async () => {
  t = await buildTestApp({ sessionMaxAgeSeconds: MAX_AGE_SECONDS });
});
after(() => t.close());

const renew = (auth: string) => call(t.app, 'POST', '/api/auth/session', { auth });
const me = (auth: string) => call(t.app, 'GET', '/api/auth/me', { auth });

/** A session JWT signed as the service signs its own: signed in at `authMs`, issued at `iatMs`. */
async function sessionJwt(user: { id: string; email: string }, times: { authMs: number; iatMs: number }, jti?: string) {
  const secret = t.config.jwtSecret ?? readFileSync(path.join(t.config.dataDir, 'jwt-secret'), 'utf8').trim();
  return new SignJWT({ email: user.email, iat_ms: times.iatMs, auth_ms: times.authMs })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(user.id)
    .setIssuer('maproom')
    .setAudience('maproom')
    .setIssuedAt(Math.floor(times.iatMs / 1000))
    .setExpirationTime('1h')
    .setJti(jti ?? `session-${Math.random().toString(36).slice(2)}`)
    .sign(new TextEncoder().encode(secret));
}

async function accountWithoutPassword() {
  const id = `user-provider-${Date.now()}-${Math.random().toString(36).slice(2, 6)}`;
  const email = uniqueEmail('provider');
  await t.database.db
    .insertInto('users')
    .values({
      id,
      email,
      name: null,
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
  return { id, email };
}

test('a renewal keeps the sign-in time: a renewed old session is no fresh sign-in', async () => {
  const user = await accountWithoutPassword();
  const now = Date.now();
  const old = await sessionJwt(user, { authMs: now - (t.config.freshSignInSeconds + 60) * 1000, iatMs: now });
  const renewed = assertOk(await renew(old)).token;
  assert.equal(decodeJwt(renewed).auth_ms, decodeJwt(old).auth_ms);
  assertError(
    await call(t.app, 'DELETE', '/api/auth/me', { auth: renewed, body: {} }),
    403,
    'reauthentication_required',
  );
  assertOk(await me(renewed));
});

test("a session signed in before the account's cut-off is refused, however recently it was renewed", async () => {
  const user = await signup(t.app, uniqueEmail('cut'));
  const signedIn = Date.now() - 60_000;
  // The password changes (from another session): every session signed in before now ends.
  const other = assertOk(
    await call(t.app, 'POST', '/api/auth/login', { body: { email: user.email, password: PASSWORD } }),
  );
  const changed = await call(t.app, 'POST', '/api/auth/password', {
    auth: other.token,
    body: { currentPassword: PASSWORD, newPassword: 'a whole new password' },
  });
  assert.equal(changed.statusCode, 204);
  // What a renewal that passed just before the change, but was signed after it, would carry.
  const renewedLate = await sessionJwt(user, { authMs: signedIn, iatMs: Date.now() + 1000 });
  assertError(await me(renewedLate), 401, 'unauthorized');
  assertError(await renew(renewedLate), 401, 'unauthorized');
  assertOk(await me(other.token));
});

test('a session signed in more than SESSION_MAX_AGE_SECONDS ago still works but no longer renews', async () => {
  const user = await signup(t.app, uniqueEmail('aged'));
  const now = Date.now();
  const aged = await sessionJwt(user, { authMs: now - (MAX_AGE_SECONDS + 5) * 1000, iatMs: now });
  assertOk(await me(aged));
  const refused = assertError(await renew(aged), 403, 'session_max_age');
  assert.match(refused.message, /sign in again/);
  const young = await sessionJwt(user, { authMs: now - (MAX_AGE_SECONDS - 60) * 1000, iatMs: now });
  const renewed = assertOk(await renew(young)).token;
  assert.equal(decodeJwt(renewed).auth_ms, decodeJwt(young).auth_ms, 'the renewal is just as old a sign-in');
  // A fresh sign-in's session renews, and its renewal says when it signed in.
  const fresh = assertOk(await renew(user.token)).token;
  assert.equal(decodeJwt(fresh).auth_ms, decodeJwt(user.token).auth_ms);
});
