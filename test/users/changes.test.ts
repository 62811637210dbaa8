import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { decodeJwt } from 'jose';
import {
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
  uniqueEmail,
} from '../helpers.js';
import { verificationToken } from '../support/mailbox.js';

/**
 * A signed-in person changes their password (the other sessions end, this one stays) and
 * address (moved when the new address follows its link; the old one is told), and renews
 * their session while they use it (decisions: "Account changes", "Sessions that renew").
 */

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

const login = (email: string, password: string) =>
  call(t.app, 'POST', '/api/auth/login', { body: { email, password } });
const me = (auth: string) => call(t.app, 'GET', '/api/auth/me', { auth });

test('a password change needs the current password (403, not 401), ends the other sessions and keeps this one', async () => {
  const user = await signup(t.app, uniqueEmail('changer'));
  const other = assertOk(await login(user.email, PASSWORD)).token;
  const change = (auth: string, currentPassword: string) =>
    call(t.app, 'POST', '/api/auth/password', { auth, body: { currentPassword, newPassword: 'brand new words' } });
  const wrong = assertError(await change(user.token, 'not it'), 403, 'wrong_password');
  assert.match(wrong.message, /current password/);
  const roomId = await createRoom(t.app, user);
  const { token } = await issueToken(t.app, user, roomId, ['read', 'write']);
  assertError(await change(token, PASSWORD), 403, 'api_token_not_allowed');
  assertError(await change('', PASSWORD), 401, 'unauthorized');

  assert.equal((await change(user.token, PASSWORD)).statusCode, 204);
  assertOk(await me(user.token));
  assertError(await me(other), 401, 'unauthorized');
  assertOk(await call(t.app, 'GET', `/api/rooms/${roomId}`, { auth: token }), 200);
  assertError(await login(user.email, PASSWORD), 401, 'invalid_credentials');
  const fresh = assertOk(await login(user.email, 'brand new words')).token;
  assertOk(await me(fresh));
  // The kept session renews, and its renewal is kept too.
  const renewed = assertOk(await call(t.app, 'POST', '/api/auth/session', { auth: user.token })).token;
  assertOk(await me(renewed));
});

test('an address change is confirmed by a link to the new address; the old one is told', async () => {
  const user = await signup(t.app, uniqueEmail('mover'));
  const next = uniqueEmail('moved');
  const ask = (email: string, password: string) =>
    call(t.app, 'POST', '/api/auth/email', { auth: user.token, body: { email, password } });
  assertError(await ask(next, 'not it'), 403, 'wrong_password');
  assertError(await ask(user.email, PASSWORD), 400, 'validation_error');
  const res = await ask(next.toUpperCase(), PASSWORD);
  assert.equal(res.statusCode, 202);
  assert.deepEqual(res.json(), {});
  await mailboxOf(t.app).waitFor(user.email, /change of your Maproom e-mail address was asked/);
  assert.equal(assertOk(await me(user.token)).user.email, user.email, 'nothing changes before the link is followed');

  const token = verificationToken(await mailboxOf(t.app).waitFor(next, /Confirm your new e-mail address/));
  const moved = assertOk(await call(t.app, 'POST', '/api/auth/verify-email', { body: { token } }));
  assert.deepEqual([moved.user.email, moved.user.emailVerified], [next, true]);
  await mailboxOf(t.app).waitFor(user.email, /e-mail address was changed/);
  assert.deepEqual(
    [assertOk(await me(user.token)).user.email, assertOk(await me(user.token)).user.emailVerified],
    [next, true],
  );
  assertOk(await login(next, PASSWORD));
  assertError(await login(user.email, PASSWORD), 401, 'invalid_credentials');
  assertError(await call(t.app, 'POST', '/api/auth/verify-email', { body: { token } }), 400, 'invalid_token');
});

test('an address taken meanwhile is 409 email_taken when the link is followed', async () => {
  const user = await signup(t.app, uniqueEmail('slow'));
  const wanted = uniqueEmail('wanted');
  assert.equal(
    (await call(t.app, 'POST', '/api/auth/email', { auth: user.token, body: { email: wanted, password: PASSWORD } }))
      .statusCode,
    202,
  );
  const token = verificationToken(await mailboxOf(t.app).waitFor(wanted, /Confirm your new e-mail address/));
  await signup(t.app, wanted, PASSWORD, { verify: false });
  assertError(await call(t.app, 'POST', '/api/auth/verify-email', { body: { token } }), 409, 'email_taken');
  assert.equal(assertOk(await me(user.token)).user.email, user.email);
});

test('a renewal is the same session with a full lifetime; logging out with it ends both JWTs', async () => {
  const user = await signup(t.app, uniqueEmail('renewer'));
  await new Promise((r) => setTimeout(r, 1100)); // `exp` is in whole seconds
  const renewed = assertOk(await call(t.app, 'POST', '/api/auth/session', { auth: user.token }));
  assert.equal(renewed.user.id, user.id);
  const [before, after] = [decodeJwt(user.token), decodeJwt(renewed.token)];
  assert.equal(after.jti, before.jti);
  assert.ok(after.exp! > before.exp!, 'a later expiry');
  assert.equal(after.exp! - after.iat!, t.config.sessionTtlSeconds);
  const roomId = await createRoom(t.app, user);
  const { token } = await issueToken(t.app, user, roomId, ['read']);
  assertError(await call(t.app, 'POST', '/api/auth/session', { auth: token }), 403, 'api_token_not_allowed');
  assert.equal((await call(t.app, 'POST', '/api/auth/logout', { auth: renewed.token })).statusCode, 204);
  for (const jwt of [user.token, renewed.token]) {
    assertError(await me(jwt), 401, 'unauthorized');
    assertError(await call(t.app, 'POST', '/api/auth/session', { auth: jwt }), 401, 'unauthorized');
  }
});

test('a session lifetime of a few seconds is accepted (for tests) and such a session expires', async () => {
  const short = await buildTestApp({ sessionTtlSeconds: 5 });
  try {
    const user = await signup(short.app, uniqueEmail('brief'));
    const { exp, iat } = decodeJwt(user.token);
    assert.equal(exp! - iat!, 5);
    const renew = (auth: string) => call(short.app, 'POST', '/api/auth/session', { auth });
    const renewed = assertOk(await renew(user.token)).token;
    // Left idle, both expire: a renewal then is refused like any request.
    while (Date.now() < decodeJwt(renewed).exp! * 1000 + 50) await new Promise((r) => setTimeout(r, 250));
    assertError(await renew(renewed), 401, 'unauthorized');
    assertError(await call(short.app, 'GET', '/api/auth/me', { auth: user.token }), 401, 'unauthorized');
  } finally {
    await short.close();
  }
});

test('the current password is guessed at a budget per account, not per client', async () => {
  const limited = await buildTestApp({ authRateLimitPerMinute: 2 });
  try {
    const user = await signup(limited.app, uniqueEmail('guessed'));
    const other = await signup(limited.app, uniqueEmail('unguessed'));
    const guess = (auth: string) =>
      call(limited.app, 'POST', '/api/auth/password', {
        auth,
        body: { currentPassword: 'guess', newPassword: 'brand new words' },
      });
    for (let i = 0; i < 2; i++) assertError(await guess(user.token), 403, 'wrong_password');
    assert.equal((await guess(user.token)).statusCode, 429);
    // The same client, another account: its own budget (the guesses above were not its own).
    assertError(await guess(other.token), 403, 'wrong_password');
  } finally {
    await limited.close();
  }
});
