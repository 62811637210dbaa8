import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertError, assertOk, buildTestApp, call, type TestApp, uniqueEmail, uniqueRoomId } from '../helpers.js';
import { type Idp, startIdp, trusting } from '../support/idp.js';

/**
 * Users of an external provider's JWTs (AUTH_JWKS_URL) under the account rules (decisions:
 * "Session rules"): a first sign-in makes an account, so the sign-up policy decides; a disabled
 * or deleted account's provider tokens are refused like our own sessions; they are not renewed here.
 */

let idp: Idp;
let t: TestApp;
before(async () => {
  idp = await startIdp();
  t = await buildTestApp({ ...trusting(idp), signupDomains: 'example.com' });
});
after(async () => {
  await t?.close();
  await idp?.close();
});

const me = (auth: string) => call(t.app, 'GET', '/api/auth/me', { auth });

test("a provider's new user is subject to the sign-up policy", async () => {
  const outside = await idp.sign({ sub: `idp|${uniqueRoomId()}`, email: `someone-${Date.now()}@elsewhere.net` });
  const refused = assertError(await me(outside), 403, 'signup_closed');
  assert.match(refused.message, /example\.com/);
  const inside = await idp.sign({ sub: `idp|${uniqueRoomId()}`, email: uniqueEmail('inside') });
  assertOk(await me(inside));
});

test("a disabled or deleted provider user's tokens are refused; renewal is the provider's", async () => {
  const sub = `idp|${uniqueRoomId()}`;
  const token = await idp.sign({ sub, email: uniqueEmail('provided') });
  assertOk(await me(token));
  assertError(await call(t.app, 'POST', '/api/auth/session', { auth: token }), 403, 'forbidden');
  await t.accounts.users.setDisabled(sub, true);
  assertError(await me(token), 401, 'unauthorized');
  await t.accounts.users.setDisabled(sub, false);
  // Disabling ended the sessions issued before it; a provider's `iat` is in whole seconds, so
  // only a token of a later second is surely newer.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const later = await idp.sign({ sub, email: uniqueEmail('provided') });
  assertOk(await me(later));
  await t.accounts.users.deleteAccount(sub, { ownedRooms: 'refuse' });
  assertError(await me(later), 401, 'unauthorized');
  const afterwards = await idp.sign({ sub, email: uniqueEmail('provided') });
  assertError(await me(afterwards), 401, 'unauthorized');
});
