import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  assertError,
  assertOk,
  buildTestApp,
  call,
  createRoom,
  issueToken,
  PASSWORD,
  signup,
  type TestApp,
  uniqueEmail,
} from '../helpers.js';
import { PasswordHasher } from '../../src/auth/passwords.js';
import { ACTIVE_ACCOUNT } from '../../src/modules/users/users.service.js';

/**
 * Account states and the sign-up policy (decisions: "Session rules", "Sign-up policy"): a
 * disabled account's sessions and the room tokens it created are refused (401), its sign-in
 * is 403 account_disabled only after the password checked out; enabled again, its tokens work
 * but its old sessions stay ended. `last_seen_at` is written at most once a minute.
 */

let t: TestApp;
before(async () => {
  t = await buildTestApp({ accessCacheTtlMs: 60_000 });
});
after(() => t.close());

const login = (app: TestApp['app'], email: string, password = PASSWORD) =>
  call(app, 'POST', '/api/auth/login', { body: { email, password } });

test('disabled: sessions and created tokens 401 at once, sign-in 403 after the password; enabled: tokens again', async () => {
  const user = await signup(t.app, uniqueEmail('disabled'));
  const roomId = await createRoom(t.app, user);
  const { token } = await issueToken(t.app, user, roomId, ['read']);
  assertOk(await call(t.app, 'GET', `/api/rooms/${roomId}`, { auth: token })); // now cached for a minute

  const row = await t.accounts.users.setDisabled(user.id, true);
  assert.ok(row.disabled_at !== null);
  assertError(await call(t.app, 'GET', '/api/auth/me', { auth: user.token }), 401, 'unauthorized');
  assertError(await call(t.app, 'GET', `/api/rooms/${roomId}`, { auth: token }), 401, 'unauthorized');
  assertError(await login(t.app, user.email, 'wrong password'), 401, 'invalid_credentials');
  assertError(await login(t.app, user.email), 403, 'account_disabled');
  assertError(await call(t.app, 'POST', '/api/auth/session', { auth: user.token }), 401, 'unauthorized');

  await t.accounts.users.setDisabled(user.id, false);
  assertOk(await call(t.app, 'GET', `/api/rooms/${roomId}`, { auth: token }));
  assertError(await call(t.app, 'GET', '/api/auth/me', { auth: user.token }), 401, 'unauthorized');
  const again = assertOk(await login(t.app, user.email)).token;
  assertOk(await call(t.app, 'GET', '/api/auth/me', { auth: again }));
  await assert.rejects(t.accounts.users.setDisabled('user-nobody', true), /User not found/);
});

test("a session's use records last_seen_at, at most once a minute", async () => {
  const user = await signup(t.app, uniqueEmail('seen'));
  const seen = async () =>
    (await t.database.db.selectFrom('users').select('last_seen_at').where('id', '=', user.id).executeTakeFirst())!
      .last_seen_at;
  const start = Date.now();
  assertOk(await call(t.app, 'GET', '/api/auth/me', { auth: user.token }));
  const first = Number(await seen());
  assert.ok(first >= start - 60_000 && first <= Date.now(), `seen just now: ${first}`);
  await new Promise((r) => setTimeout(r, 20));
  assertOk(await call(t.app, 'GET', '/api/auth/me', { auth: user.token }));
  assert.equal(Number(await seen()), first, 'not written again within the minute');
  const earlier = Date.now() - 61_000;
  await t.database.db.updateTable('users').set({ last_seen_at: earlier }).where('id', '=', user.id).execute();
  assertOk(await call(t.app, 'GET', '/api/auth/me', { auth: user.token }));
  assert.ok(Number(await seen()) > earlier + 60_000, 'written again after a minute');
});

test('sign-up policy: invite lets only invited addresses in; closed nobody; SIGNUP_DOMAINS only those domains', async () => {
  const signupOn = (app: TestApp['app'], email: string) =>
    call(app, 'POST', '/api/auth/signup', { body: { email, password: PASSWORD } });
  assert.equal((await signupOn(t.app, uniqueEmail('open'))).statusCode, 201, 'open by default');

  // An invitation is waiting in the invite-only instance's database for this address.
  const invite = await buildTestApp({ signup: 'invite' });
  try {
    assertError(await signupOn(invite.app, uniqueEmail('first')), 403, 'signup_closed');
    // Nobody may sign up yet: the first owner is made as an admin would, then invites.
    const hosting = { id: `user-host-${Date.now()}`, email: uniqueEmail('host') };
    await invite.database.db
      .insertInto('users')
      .values({
        ...hosting,
        name: null,
        password_hash: await new PasswordHasher(12).hash(PASSWORD),
        created_at: Date.now(),
        email_verified_at: Date.now(),
        ...ACTIVE_ACCOUNT,
      })
      .execute();
    const host = { ...hosting, token: assertOk(await login(invite.app, hosting.email)).token };
    const roomId = await createRoom(invite.app, host);
    const invited = uniqueEmail('invited');
    assertOk(
      await call(invite.app, 'POST', `/api/rooms/${roomId}/invite`, {
        auth: host.token,
        body: { email: invited, role: 'editor' },
      }),
    );
    assert.equal((await signupOn(invite.app, invited)).statusCode, 201);
    const refused = assertError(await signupOn(invite.app, uniqueEmail('uninvited')), 403, 'signup_closed');
    assert.match(refused.message, /invitation/);
  } finally {
    await invite.close();
  }

  const closed = await buildTestApp({ signup: 'closed', signupDomains: 'example.org, @example.com' });
  try {
    assert.match(assertError(await signupOn(closed.app, uniqueEmail()), 403, 'signup_closed').message, /closed/);
  } finally {
    await closed.close();
  }
  const domains = await buildTestApp({ signupDomains: 'example.org,@example.com' });
  try {
    assert.equal((await signupOn(domains.app, uniqueEmail('inside'))).statusCode, 201);
    assert.equal((await signupOn(domains.app, `x${Date.now()}@EXAMPLE.org`)).statusCode, 201);
    const outside = assertError(await signupOn(domains.app, `x${Date.now()}@elsewhere.net`), 403, 'signup_closed');
    assert.match(outside.message, /example\.org, example\.com/);
  } finally {
    await domains.close();
  }
});
