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
  type TestUser,
  uniqueEmail,
} from '../helpers.js';
import { verificationToken } from '../support/mailbox.js';

/**
 * What a password reset, a password change and a disable end besides sessions (decisions:
 * "Ending what past holders kept"): the pending address-change and reset links of the account,
 * so that someone who once had the password or a session cannot move the account afterwards;
 * and a disabled account's links do nothing.
 */

const ADMIN = 'holders-admin@example.org';
let t: TestApp;
let admin: TestUser;
before(async () => {
  t = await buildTestApp({ adminEmails: ADMIN });
  admin = await signup(t.app, ADMIN);
});
after(() => t.close());

const NEW_PASSWORD = 'a password of the owner';
const follow = (token: string) => call(t.app, 'POST', '/api/auth/verify-email', { body: { token } });
const confirmReset = (token: string, password: string) =>
  call(t.app, 'POST', '/api/auth/password-reset/confirm', { body: { token, password } });
const me = (auth: string) => call(t.app, 'GET', '/api/auth/me', { auth });

/** Someone with the session and password asks to move the account; answers the link's secret. */
async function pendingChange(user: TestUser) {
  const to = uniqueEmail('taker');
  const asked = await call(t.app, 'POST', '/api/auth/email', {
    auth: user.token,
    body: { email: to, password: PASSWORD },
  });
  assert.equal(asked.statusCode, 202, asked.body);
  return verificationToken(await mailboxOf(t.app).waitFor(to, /Confirm your new e-mail address/));
}

async function resetLink(email: string) {
  assert.equal((await call(t.app, 'POST', '/api/auth/password-reset', { body: { email } })).statusCode, 202);
  const mail = await mailboxOf(t.app).waitFor(email, /Reset your/);
  return /\/reset-password\?token=([A-Za-z0-9_-]+)/.exec(mail.text)![1]!;
}

test('a password reset spends the pending address change', async () => {
  const user = await signup(t.app, uniqueEmail('reset-owner'));
  const change = await pendingChange(user);
  assert.equal((await confirmReset(await resetLink(user.email), NEW_PASSWORD)).statusCode, 204);
  assertError(await follow(change), 400, 'invalid_token');
  const login = await call(t.app, 'POST', '/api/auth/login', { body: { email: user.email, password: NEW_PASSWORD } });
  assert.equal(assertOk(login).user.email, user.email, 'the account stays at its address');
});

test('a password change spends the pending address change and reset links', async () => {
  const user = await signup(t.app, uniqueEmail('change-owner'));
  const change = await pendingChange(user);
  const reset = await resetLink(user.email);
  const changed = await call(t.app, 'POST', '/api/auth/password', {
    auth: user.token,
    body: { currentPassword: PASSWORD, newPassword: NEW_PASSWORD },
  });
  assert.equal(changed.statusCode, 204, changed.body);
  assertError(await follow(change), 400, 'invalid_token');
  assertError(await confirmReset(reset, 'the taker would set this'), 400, 'invalid_token');
  assert.equal(assertOk(await me(user.token)).user.email, user.email);
});

test('disabling an account spends its pending links', async () => {
  const user = await signup(t.app, uniqueEmail('disabled-owner'));
  const change = await pendingChange(user);
  const reset = await resetLink(user.email);
  const disable = (action: string) =>
    call(t.app, 'POST', `/api/admin/users/${user.id}/${action}`, { auth: admin.token });
  assert.equal((await disable('disable')).statusCode, 200);
  assertError(await follow(change), 400, 'invalid_token');
  assertError(await confirmReset(reset, NEW_PASSWORD), 400, 'invalid_token');
});

test('spending reset links keeps them counted by the per-address limit', async () => {
  const user = await signup(t.app, uniqueEmail('counted'));
  const limit = t.config.passwordResetsPerAddressPerHour;
  let link = '';
  for (let i = 0; i < limit; i++) link = await resetLink(user.email);
  assert.equal((await confirmReset(link, NEW_PASSWORD)).statusCode, 204);
  const mails = () =>
    mailboxOf(t.app)
      .to(user.email)
      .filter((m) => /Reset your/.test(m.subject)).length;
  assert.equal(mails(), limit);
  assert.equal(
    (await call(t.app, 'POST', '/api/auth/password-reset', { body: { email: user.email } })).statusCode,
    202,
  );
  assert.equal(mails(), limit, 'no mail past the limit, links spent or not');
});
