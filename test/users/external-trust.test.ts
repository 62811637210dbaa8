import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { newId } from '../../src/ids.js';
import { ACTIVE_ACCOUNT } from '../../src/modules/users/users.service.js';
import { assertError, buildTestApp, call, type TestApp, uniqueEmail, uniqueRoomId } from '../helpers.js';
import { type Idp, startIdp, trusting } from '../support/idp.js';

/**
 * What an external provider's JWTs (AUTH_JWKS_URL) may not do: act as an account this service
 * made (a password account, or one an identity provider made or claimed, which has no password),
 * and make an admin of an address the provider does not vouch for.
 */

let idp: Idp;
let t: TestApp;
const adminEmail = uniqueEmail('ext-admin');
before(async () => {
  idp = await startIdp();
  t = await buildTestApp({ ...trusting(idp), adminEmails: adminEmail });
});
after(async () => {
  await t?.close();
  await idp?.close();
});

const me = (auth: string) => call(t.app, 'GET', '/api/auth/me', { auth });

test('an external subject naming an account without a password (made by a provider sign-in) is refused, never merged', async () => {
  // The account an OpenID Connect sign-in makes: our id, no password, a verified address.
  const now = Date.now();
  const victim = { id: newId('user'), email: uniqueEmail('oidc-made') };
  await t.database.db
    .insertInto('users')
    .values({
      ...victim,
      name: 'Made by a provider',
      password_hash: null,
      created_at: now,
      email_verified_at: now,
      ...ACTIVE_ACCOUNT,
      provider_admin: 1,
    })
    .execute();
  const forged = await idp.sign({ sub: victim.id, email: 'mallory@evil.test', email_verified: true });
  assertError(await me(forged), 401, 'unauthorized');
  assertError(
    await call(t.app, 'POST', `/api/rooms/${uniqueRoomId()}`, { auth: forged, body: {} }),
    401,
    'unauthorized',
  );
  const row = await t.database.db.selectFrom('users').selectAll().where('id', '=', victim.id).executeTakeFirstOrThrow();
  assert.equal(row.email, victim.email, "the account's address is unchanged");

  // A subject of that form that no account has yet is refused too: it may be made later.
  const unborn = await idp.sign({ sub: newId('user'), email: uniqueEmail('unborn'), email_verified: true });
  assertError(await me(unborn), 401, 'unauthorized');
});

test('an address in ADMIN_EMAILS makes an external user an admin only when the provider says it is verified', async () => {
  const unsaid = await idp.sign({ sub: `idp|${uniqueRoomId()}`, email: adminEmail });
  const first = await me(unsaid);
  assert.equal(first.statusCode, 200, first.body);
  assert.equal(first.json().user.admin, false);
  assert.equal(first.json().user.emailVerified, false);
  assertError(await call(t.app, 'GET', '/api/admin/users', { auth: unsaid }), 403, 'forbidden');

  const vouched = await idp.sign({
    sub: `idp|${uniqueRoomId()}`,
    email: uniqueEmail('not-admin'),
    email_verified: true,
  });
  assert.equal((await me(vouched)).json().user.admin, false);
});

test('a vouched address in ADMIN_EMAILS is an admin', async () => {
  const email = uniqueEmail('ext-admin-2');
  const app = await buildTestApp({ ...trusting(idp), adminEmails: email });
  try {
    const token = await idp.sign({ sub: `idp|${uniqueRoomId()}`, email, email_verified: true });
    const answer = await call(app.app, 'GET', '/api/auth/me', { auth: token });
    assert.equal(answer.statusCode, 200, answer.body);
    assert.equal(answer.json().user.admin, true);
    assert.equal((await call(app.app, 'GET', '/api/admin/users', { auth: token })).statusCode, 200);
  } finally {
    await app.close();
  }
});
