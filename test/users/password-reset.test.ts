import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  assertError,
  assertOk,
  buildTestApp,
  call,
  mailboxOf,
  PASSWORD,
  signup,
  type TestApp,
  uniqueEmail,
} from '../helpers.js';

/**
 * Password reset (decisions: "Password reset"): the same 202 `{}` for any address, a single-use
 * link valid 30 minutes mailed only to an account with a password, at most
 * PASSWORD_RESETS_PER_ADDRESS_PER_HOUR mails per address; confirming sets the password, spends
 * every link, verifies the address and ends every session, while one signed in right after works.
 */

let t: TestApp;
before(async () => {
  t = await buildTestApp({ passwordResetsPerAddressPerHour: 2 });
});
after(() => t.close());

const ask = (email: string) => call(t.app, 'POST', '/api/auth/password-reset', { body: { email } });
const confirm = (token: string, password: string) =>
  call(t.app, 'POST', '/api/auth/password-reset/confirm', { body: { token, password } });
const login = (email: string, password: string) =>
  call(t.app, 'POST', '/api/auth/login', { body: { email, password } });
const resetMails = (email: string) =>
  mailboxOf(t.app)
    .to(email)
    .filter((m) => /Reset your/.test(m.subject));

function resetToken(text: string): string {
  const match = /\/reset-password\?token=([A-Za-z0-9_-]+)/.exec(text);
  assert.ok(match, `no reset link in ${text}`);
  assert.ok(text.includes(`${t.config.publicUrl ?? ''}/reset-password?token=`));
  return match[1]!;
}

async function newestLink(email: string) {
  return resetToken((await mailboxOf(t.app).waitFor(email, /Reset your Maproom password/)).text);
}

test('a reset link sets the password once, verifies the address and ends every session', async () => {
  const user = await signup(t.app, uniqueEmail('forgetful'), PASSWORD, { verify: false });
  const other = assertOk(await login(user.email, PASSWORD)).token;
  const res = await ask(user.email.toUpperCase());
  assert.equal(res.statusCode, 202);
  assert.deepEqual(res.json(), {});
  const first = await newestLink(user.email);
  assertOk(await ask(user.email), 202);
  await mailboxOf(t.app).waitFor(user.email, /Reset your/);
  while (resetMails(user.email).length < 2) await new Promise((r) => setTimeout(r, 20));
  const second = resetToken(resetMails(user.email).at(-1)!.text);
  assert.notEqual(first, second);
  const [hashes] = [await t.database.db.selectFrom('password_resets').select('token_hash').execute()];
  assert.ok(!JSON.stringify(hashes).includes(second), 'the secret is kept only as a hash');

  assert.equal((await confirm(second, 'a new password')).statusCode, 204);
  // Every session from before ends; one signed in right after the reset works.
  for (const token of [user.token, other])
    assertError(await call(t.app, 'GET', '/api/auth/me', { auth: token }), 401, 'unauthorized');
  assertError(await login(user.email, PASSWORD), 401, 'invalid_credentials');
  const fresh = assertOk(await login(user.email, 'a new password'));
  const me = assertOk(await call(t.app, 'GET', '/api/auth/me', { auth: fresh.token }));
  assert.equal(me.user.emailVerified, true, 'the link proved the address');
  // Used, and the other link of the account spent with it.
  for (const token of [second, first]) {
    const refused = assertError(await confirm(token, 'another password'), 400, 'invalid_token');
    assert.match(refused.message, /ask for a new one/);
  }
  assertOk(await login(user.email, 'a new password'));
});

test('an expired or unknown link is 400 invalid_token; a short password is a validation error', async () => {
  const user = await signup(t.app, uniqueEmail('late'));
  assertOk(await ask(user.email), 202);
  const token = await newestLink(user.email);
  assertError(await confirm(token, 'short'), 400, 'validation_error');
  await t.database.db
    .updateTable('password_resets')
    .set({ expires_at: Date.now() - 1 })
    .execute();
  assertError(await confirm(token, 'a new password'), 400, 'invalid_token');
  assertError(await confirm('no-such-token', 'a new password'), 400, 'invalid_token');
  assertOk(await login(user.email, PASSWORD));
});

test('any address gets the same answer; only an account with a password gets mail, within the hourly limit', async () => {
  const unknown = uniqueEmail('nobody');
  const res = await ask(unknown);
  assert.equal(res.statusCode, 202);
  assert.deepEqual(res.json(), {});
  const user = await signup(t.app, uniqueEmail('limited'));
  for (let i = 0; i < 4; i++) {
    const again = await ask(user.email);
    assert.equal(again.statusCode, 202);
    assert.deepEqual(again.json(), {});
  }
  await mailboxOf(t.app).waitFor(user.email, /Reset your/);
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(resetMails(user.email).length, 2, 'two mails per address per hour (the setting), then none');
  assert.equal(mailboxOf(t.app).to(unknown).length, 0);
  // A request for an unknown address is written like any other (the same work), never as a link.
  const rows = await t.database.db.selectFrom('password_resets').selectAll().where('user_id', 'is', null).execute();
  assert.ok(rows.length >= 3, 'the unknown address and the requests beyond the limit');

  // An account without a password (identity provider) gets nothing either.
  const email = uniqueEmail('provider');
  await t.database.db
    .insertInto('users')
    .values({
      id: `user-provider-${Date.now()}`,
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
  assertOk(await ask(email), 202);
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(mailboxOf(t.app).to(email).length, 0);
});

test("an admin's sendTo mails a link beyond the limit; refuses accounts without a password", async () => {
  const user = await signup(t.app, uniqueEmail('helped'));
  const row = (await t.database.db.selectFrom('users').selectAll().where('id', '=', user.id).executeTakeFirst())!;
  await t.accounts.passwordReset.sendTo(row);
  const token = await newestLink(user.email);
  assert.equal((await confirm(token, 'chosen by me')).statusCode, 204);
  assertOk(await login(user.email, 'chosen by me'));
  await assert.rejects(t.accounts.passwordReset.sendTo({ ...row, password_hash: null }), /identity provider/);
});

test('requests are limited per client (429), and LOCAL_ACCOUNTS=off refuses sign-up, login and reset', async () => {
  const limited = await buildTestApp({ authRateLimitPerMinute: 2, localAccounts: 'off' });
  try {
    const refusals = [
      await call(limited.app, 'POST', '/api/auth/password-reset', { body: { email: uniqueEmail() } }),
      await call(limited.app, 'POST', '/api/auth/password-reset', { body: { email: uniqueEmail() } }),
      await call(limited.app, 'POST', '/api/auth/password-reset/confirm', { body: { token: 'x', password: PASSWORD } }),
    ];
    for (const res of refusals) assertError(res, 403, 'local_accounts_off');
    assertError(
      await call(limited.app, 'POST', '/api/auth/password-reset', { body: { email: uniqueEmail() } }),
      429,
      'too_many_requests',
    );
  } finally {
    await limited.close();
  }
  const off = await buildTestApp({ localAccounts: 'off' });
  try {
    const body = { email: uniqueEmail(), password: PASSWORD };
    assertError(await call(off.app, 'POST', '/api/auth/signup', { body }), 403, 'local_accounts_off');
    assertError(await call(off.app, 'POST', '/api/auth/login', { body }), 403, 'local_accounts_off');
  } finally {
    await off.close();
  }
});

test('the hourly sweep forgets reset rows older than an hour', async () => {
  const user = await signup(t.app, uniqueEmail('swept'));
  assertOk(await ask(user.email), 202);
  const token = await newestLink(user.email);
  const old = Date.now() - 3600 * 1000 - 1;
  await t.database.db.updateTable('password_resets').set({ created_at: old }).execute();
  await t.restart(); // sweeps run at start, then hourly
  const left = await t.database.db.selectFrom('password_resets').select('token_hash').execute();
  assert.equal(left.length, 0);
  assertError(await confirm(token, 'a new password'), 400, 'invalid_token');
});
