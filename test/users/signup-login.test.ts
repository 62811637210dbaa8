import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeJwt } from 'jose';
import {
  assertError,
  buildTestApp,
  call,
  createRoom,
  issueToken,
  PASSWORD,
  scaffoldSuite,
  signup,
  uniqueEmail,
} from '../helpers.js';

/**
 * Accounts: signup, login and /me, and the rate limit on login and signup.
 */

const s = scaffoldSuite({ users: [], rooms: [] });

/** No key anywhere in a response names a password or a hash. */
function assertNoSecretKeys(value: unknown, where = 'body') {
  if (Array.isArray(value)) return value.forEach((v, i) => assertNoSecretKeys(v, `${where}[${i}]`));
  if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      assert.ok(!/password|hash|secret/i.test(key), `${where}.${key} must not be returned`);
      assertNoSecretKeys(v, `${where}.${key}`);
    }
  }
}

function userShape(user: any) {
  assert.deepEqual(Object.keys(user).sort(), ['email', 'emailVerified', 'id', 'name']);
  assert.equal(typeof user.id, 'string');
  assert.ok(user.id.length > 0);
}

// ---------------------------------------------------------------------------------------
// Signup

test('signup answers 201 {token, user: {id, email, name}} with the e-mail lowercased', async () => {
  const email = uniqueEmail('MixedCase').replace('@example.com', '@Example.COM');
  const res = await call(s.t.app, 'POST', '/api/auth/signup', {
    body: { email, password: PASSWORD, name: 'Ada Lovelace' },
  });
  assert.equal(res.statusCode, 201);
  const body = res.json();
  assert.deepEqual(Object.keys(body).sort(), ['token', 'user']);
  assert.equal(typeof body.token, 'string');
  assert.equal(body.token.split('.').length, 3, 'the token is a JWT');
  userShape(body.user);
  assert.equal(body.user.email, email.toLowerCase());
  assert.equal(body.user.name, 'Ada Lovelace');

  // The token is a session for that very user.
  const me = await call(s.t.app, 'GET', '/api/auth/me', { auth: body.token });
  assert.equal(me.statusCode, 200);
  assert.deepEqual(me.json(), { user: { ...body.user, admin: false, locale: null } });
  // Not yet confirmed: that takes the e-mailed link (users/verification.test.ts).
  assert.equal(body.user.emailVerified, false);

  // Session lifetime defaults to 7 days.
  const claims = decodeJwt(body.token);
  assert.equal(claims.sub, body.user.id);
  assert.equal(typeof claims.exp, 'number');
  assert.equal(typeof claims.iat, 'number');
  assert.equal(claims.exp! - claims.iat!, 7 * 24 * 3600);
});

test('signup without a name gives name null', async () => {
  const email = uniqueEmail('noname');
  const res = await call(s.t.app, 'POST', '/api/auth/signup', { body: { email, password: PASSWORD } });
  assert.equal(res.statusCode, 201);
  assert.deepEqual(res.json().user, { id: res.json().user.id, email, name: null, emailVerified: false });
});

test('signup stores a slow salted hash, never the password, and never returns it', async () => {
  const email = uniqueEmail('hash');
  const password = 'plain text secret 123';
  const res = await call(s.t.app, 'POST', '/api/auth/signup', { body: { email, password } });
  assert.equal(res.statusCode, 201);
  const row = await s.t.database.db
    .selectFrom('users')
    .select(['password_hash'])
    .where('email', '=', email)
    .executeTakeFirstOrThrow();
  assert.ok(row.password_hash, 'a hash is stored');
  assert.notEqual(row.password_hash, password);
  assert.ok(row.password_hash.startsWith('scrypt$'), `stored as scrypt: ${row.password_hash.slice(0, 10)}`);
  assert.ok(!row.password_hash.includes(password));
  // Neither the password nor its hash reaches the response.
  assert.ok(!res.body.includes(password));
  assert.ok(!res.body.includes(row.password_hash));
  assertNoSecretKeys(res.json());
  assert.ok(!res.body.includes('scrypt$'));

  // Two accounts with the same password get different hashes (salted).
  const email2 = uniqueEmail('hash2');
  assert.equal(
    (await call(s.t.app, 'POST', '/api/auth/signup', { body: { email: email2, password } })).statusCode,
    201,
  );
  const row2 = await s.t.database.db
    .selectFrom('users')
    .select(['password_hash'])
    .where('email', '=', email2)
    .executeTakeFirstOrThrow();
  assert.notEqual(row2.password_hash, row.password_hash);
});

test('signup refuses a password under 8 characters with 400 validation_error naming the field', async () => {
  const res = await call(s.t.app, 'POST', '/api/auth/signup', {
    body: { email: uniqueEmail('short'), password: '1234567' },
  });
  const body = assertError(res, 400, 'validation_error');
  assert.match(JSON.stringify(body.details ?? body.message), /password/);
});

test('signup refuses a malformed or missing e-mail with 400 validation_error', async () => {
  for (const email of ['not-an-email', 'two@@example.com', '', 42, null]) {
    const res = await call(s.t.app, 'POST', '/api/auth/signup', { body: { email, password: PASSWORD } });
    const body = assertError(res, 400, 'validation_error');
    assert.match(JSON.stringify(body.details ?? body.message), /email/, JSON.stringify(email));
  }
  const missing = await call(s.t.app, 'POST', '/api/auth/signup', { body: { password: PASSWORD } });
  const body = assertError(missing, 400, 'validation_error');
  assert.match(JSON.stringify(body.details ?? body.message), /email/);
  const noPassword = await call(s.t.app, 'POST', '/api/auth/signup', { body: { email: uniqueEmail() } });
  assertError(noPassword, 400, 'validation_error');
});

test('signup with an e-mail already taken, in any case, is 409 email_taken', async () => {
  const email = uniqueEmail('dup');
  await signup(s.t.app, email);
  for (const variant of [email, email.toUpperCase()]) {
    const res = await call(s.t.app, 'POST', '/api/auth/signup', {
      body: { email: variant, password: 'another password' },
    });
    assertError(res, 409, 'email_taken');
  }
  // The first account is untouched: its password still works.
  const login = await call(s.t.app, 'POST', '/api/auth/login', { body: { email, password: PASSWORD } });
  assert.equal(login.statusCode, 200);
});

test('signup with an unknown field is 400 validation_error naming it', async () => {
  const email = uniqueEmail('unknown');
  const res = await call(s.t.app, 'POST', '/api/auth/signup', { body: { email, password: PASSWORD, role: 'admin' } });
  const body = assertError(res, 400, 'validation_error');
  assert.match(JSON.stringify(body.details ?? body.message), /role/);
  // Nothing was created: the address is still free.
  const row = await s.t.database.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst();
  assert.equal(row, undefined);
});

// ---------------------------------------------------------------------------------------
// Login and /me

test('login answers 200 {token, user} for the same user, whatever the e-mail case', async () => {
  const email = uniqueEmail('login');
  const created = await signup(s.t.app, email);
  const res = await call(s.t.app, 'POST', '/api/auth/login', {
    body: { email: email.toUpperCase(), password: PASSWORD },
  });
  assert.equal(res.statusCode, 200);
  const body = res.json();
  assert.deepEqual(Object.keys(body).sort(), ['token', 'user']);
  userShape(body.user);
  assert.deepEqual(body.user, { id: created.id, email, name: null, emailVerified: true });
  assertNoSecretKeys(res.json());
  assert.ok(!res.body.includes('scrypt$'));

  const me = await call(s.t.app, 'GET', '/api/auth/me', { auth: body.token });
  assert.equal(me.statusCode, 200);
  assert.deepEqual(me.json(), {
    user: { id: created.id, email, name: null, emailVerified: true, admin: false, locale: null },
  });
});

test('login with a wrong password or an unknown e-mail is 401 invalid_credentials, the same answer', async () => {
  const email = uniqueEmail('wrongpw');
  await signup(s.t.app, email);
  const wrong = await call(s.t.app, 'POST', '/api/auth/login', { body: { email, password: 'not the password' } });
  const a = assertError(wrong, 401, 'invalid_credentials');
  assert.ok(!('token' in wrong.json()));
  const unknown = await call(s.t.app, 'POST', '/api/auth/login', {
    body: { email: uniqueEmail('nobody'), password: PASSWORD },
  });
  const b = assertError(unknown, 401, 'invalid_credentials');
  assert.equal(a.message, b.message, 'the two failures are indistinguishable');
});

test('login with a malformed body is 400 validation_error', async () => {
  assertError(
    await call(s.t.app, 'POST', '/api/auth/login', { body: { email: uniqueEmail() } }),
    400,
    'validation_error',
  );
  assertError(
    await call(s.t.app, 'POST', '/api/auth/login', { body: { email: 'nope', password: PASSWORD } }),
    400,
    'validation_error',
  );
  assertError(
    await call(s.t.app, 'POST', '/api/auth/login', { body: { email: uniqueEmail(), password: PASSWORD, extra: 1 } }),
    400,
    'validation_error',
  );
});

test('GET /api/auth/me without credentials is 401 unauthorized', async () => {
  assertError(await call(s.t.app, 'GET', '/api/auth/me'), 401, 'unauthorized');
  // A header that is not a bearer credential is refused too.
  assertError(
    await call(s.t.app, 'GET', '/api/auth/me', { headers: { authorization: 'Basic dXNlcjpwYXNz' } }),
    401,
    'unauthorized',
  );
  assertError(await call(s.t.app, 'GET', '/api/auth/me', { auth: 'not-a-jwt' }), 401, 'unauthorized');
});

test('GET /api/auth/me with a room API token is 403 api_token_not_allowed', async () => {
  const owner = await signup(s.t.app);
  const roomId = await createRoom(s.t.app, owner);
  const { token } = await issueToken(s.t.app, owner, roomId, ['read', 'write', 'upload']);
  assert.ok(token.startsWith('mrt_'));
  assertError(await call(s.t.app, 'GET', '/api/auth/me', { auth: token }), 403, 'api_token_not_allowed');
  // The same holds for the caller's room list.
  assertError(await call(s.t.app, 'GET', '/api/rooms', { auth: token }), 403, 'api_token_not_allowed');
});

// ---------------------------------------------------------------------------------------
// Rate limit

test('login and signup are rate limited per client: 429 too_many_requests with Retry-After', async () => {
  const limited = await buildTestApp({ authRateLimitPerMinute: 2 });
  try {
    const email = uniqueEmail('limited');
    const first = await call(limited.app, 'POST', '/api/auth/signup', { body: { email, password: PASSWORD } });
    assert.equal(first.statusCode, 201);

    const login = () => call(limited.app, 'POST', '/api/auth/login', { body: { email, password: PASSWORD } });
    assert.equal((await login()).statusCode, 200);
    assert.equal((await login()).statusCode, 200);
    const third = await login();
    assertError(third, 429, 'too_many_requests');
    const retryAfter = third.headers['retry-after'];
    assert.ok(retryAfter !== undefined, 'Retry-After is set');
    assert.match(String(retryAfter), /^\d+$/);
    assert.ok(Number(retryAfter) >= 1 && Number(retryAfter) <= 60, `Retry-After ${retryAfter}`);
    assert.ok(!('token' in third.json()));

    // Signup is limited as well.
    const second = await call(limited.app, 'POST', '/api/auth/signup', {
      body: { email: uniqueEmail('limited2'), password: PASSWORD },
    });
    assert.equal(second.statusCode, 201);
    const thirdSignup = await call(limited.app, 'POST', '/api/auth/signup', {
      body: { email: uniqueEmail('limited3'), password: PASSWORD },
    });
    assertError(thirdSignup, 429, 'too_many_requests');
    assert.ok(thirdSignup.headers['retry-after'] !== undefined);

    // Another client (address) is not affected.
    const other = await limited.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      remoteAddress: '10.1.2.3',
      payload: { email, password: PASSWORD },
    });
    assert.equal(other.statusCode, 200);
  } finally {
    await limited.close();
  }
});
