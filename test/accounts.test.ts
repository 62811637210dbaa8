import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { decodeJwt, exportJWK, generateKeyPair, SignJWT, UnsecuredJWT, type JWK } from 'jose';
import {
  addMember,
  assertError,
  buildTestApp,
  call,
  createRoom,
  issueToken,
  signup,
  type TestApp,
  uniqueEmail,
  uniqueRoomId,
} from './helpers.js';

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

const PASSWORD = 'correct horse';

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
  assert.deepEqual(Object.keys(user).sort(), ['email', 'id', 'name']);
  assert.equal(typeof user.id, 'string');
  assert.ok(user.id.length > 0);
}

/** The secret the service generated and keeps in its data directory. */
function storedSecret(app: TestApp): Uint8Array {
  const text = readFileSync(path.join(app.config.dataDir, 'jwt-secret'), 'utf8').trim();
  return new TextEncoder().encode(text);
}

function localJwt(claims: Record<string, unknown>) {
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' });
}

// ---------------------------------------------------------------------------------------
// Signup

test('signup answers 201 {token, user: {id, email, name}} with the e-mail lowercased', async () => {
  const email = uniqueEmail('MixedCase').replace('@example.com', '@Example.COM');
  const res = await call(t.app, 'POST', '/api/auth/signup', { body: { email, password: PASSWORD, name: 'Ada Lovelace' } });
  assert.equal(res.statusCode, 201);
  const body = res.json();
  assert.deepEqual(Object.keys(body).sort(), ['token', 'user']);
  assert.equal(typeof body.token, 'string');
  assert.equal(body.token.split('.').length, 3, 'the token is a JWT');
  userShape(body.user);
  assert.equal(body.user.email, email.toLowerCase());
  assert.equal(body.user.name, 'Ada Lovelace');

  // The token is a session for that very user.
  const me = await call(t.app, 'GET', '/api/auth/me', { auth: body.token });
  assert.equal(me.statusCode, 200);
  assert.deepEqual(me.json(), { user: body.user });

  // Session lifetime defaults to 7 days.
  const claims = decodeJwt(body.token);
  assert.equal(claims.sub, body.user.id);
  assert.equal(typeof claims.exp, 'number');
  assert.equal(typeof claims.iat, 'number');
  assert.equal(claims.exp! - claims.iat!, 7 * 24 * 3600);
});

test('signup without a name gives name null', async () => {
  const email = uniqueEmail('noname');
  const res = await call(t.app, 'POST', '/api/auth/signup', { body: { email, password: PASSWORD } });
  assert.equal(res.statusCode, 201);
  assert.deepEqual(res.json().user, { id: res.json().user.id, email, name: null });
});

test('signup stores a slow salted hash, never the password, and never returns it', async () => {
  const email = uniqueEmail('hash');
  const password = 'plain text secret 123';
  const res = await call(t.app, 'POST', '/api/auth/signup', { body: { email, password } });
  assert.equal(res.statusCode, 201);
  const row = await t.database.db
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
  assert.equal((await call(t.app, 'POST', '/api/auth/signup', { body: { email: email2, password } })).statusCode, 201);
  const row2 = await t.database.db
    .selectFrom('users')
    .select(['password_hash'])
    .where('email', '=', email2)
    .executeTakeFirstOrThrow();
  assert.notEqual(row2.password_hash, row.password_hash);
});

test('signup refuses a password under 8 characters with 400 validation_error naming the field', async () => {
  const res = await call(t.app, 'POST', '/api/auth/signup', { body: { email: uniqueEmail('short'), password: '1234567' } });
  const body = assertError(res, 400, 'validation_error');
  assert.match(JSON.stringify(body.details ?? body.message), /password/);
});

test('signup refuses a malformed or missing e-mail with 400 validation_error', async () => {
  for (const email of ['not-an-email', 'two@@example.com', '', 42, null]) {
    const res = await call(t.app, 'POST', '/api/auth/signup', { body: { email, password: PASSWORD } });
    const body = assertError(res, 400, 'validation_error');
    assert.match(JSON.stringify(body.details ?? body.message), /email/, JSON.stringify(email));
  }
  const missing = await call(t.app, 'POST', '/api/auth/signup', { body: { password: PASSWORD } });
  const body = assertError(missing, 400, 'validation_error');
  assert.match(JSON.stringify(body.details ?? body.message), /email/);
  const noPassword = await call(t.app, 'POST', '/api/auth/signup', { body: { email: uniqueEmail() } });
  assertError(noPassword, 400, 'validation_error');
});

test('signup with an e-mail already taken, in any case, is 409 email_taken', async () => {
  const email = uniqueEmail('dup');
  await signup(t.app, email);
  for (const variant of [email, email.toUpperCase()]) {
    const res = await call(t.app, 'POST', '/api/auth/signup', { body: { email: variant, password: 'another password' } });
    assertError(res, 409, 'email_taken');
  }
  // The first account is untouched: its password still works.
  const login = await call(t.app, 'POST', '/api/auth/login', { body: { email, password: PASSWORD } });
  assert.equal(login.statusCode, 200);
});

test('signup with an unknown field is 400 validation_error naming it', async () => {
  const email = uniqueEmail('unknown');
  const res = await call(t.app, 'POST', '/api/auth/signup', { body: { email, password: PASSWORD, role: 'admin' } });
  const body = assertError(res, 400, 'validation_error');
  assert.match(JSON.stringify(body.details ?? body.message), /role/);
  // Nothing was created: the address is still free.
  const row = await t.database.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst();
  assert.equal(row, undefined);
});

// ---------------------------------------------------------------------------------------
// Login and /me

test('login answers 200 {token, user} for the same user, whatever the e-mail case', async () => {
  const email = uniqueEmail('login');
  const created = await signup(t.app, email);
  const res = await call(t.app, 'POST', '/api/auth/login', { body: { email: email.toUpperCase(), password: PASSWORD } });
  assert.equal(res.statusCode, 200);
  const body = res.json();
  assert.deepEqual(Object.keys(body).sort(), ['token', 'user']);
  userShape(body.user);
  assert.deepEqual(body.user, { id: created.id, email, name: null });
  assertNoSecretKeys(res.json());
  assert.ok(!res.body.includes('scrypt$'));

  const me = await call(t.app, 'GET', '/api/auth/me', { auth: body.token });
  assert.equal(me.statusCode, 200);
  assert.deepEqual(me.json(), { user: { id: created.id, email, name: null } });
});

test('login with a wrong password or an unknown e-mail is 401 invalid_credentials, the same answer', async () => {
  const email = uniqueEmail('wrongpw');
  await signup(t.app, email);
  const wrong = await call(t.app, 'POST', '/api/auth/login', { body: { email, password: 'not the password' } });
  const a = assertError(wrong, 401, 'invalid_credentials');
  assert.ok(!('token' in wrong.json()));
  const unknown = await call(t.app, 'POST', '/api/auth/login', { body: { email: uniqueEmail('nobody'), password: PASSWORD } });
  const b = assertError(unknown, 401, 'invalid_credentials');
  assert.equal(a.message, b.message, 'the two failures are indistinguishable');
});

test('login with a malformed body is 400 validation_error', async () => {
  assertError(await call(t.app, 'POST', '/api/auth/login', { body: { email: uniqueEmail() } }), 400, 'validation_error');
  assertError(await call(t.app, 'POST', '/api/auth/login', { body: { email: 'nope', password: PASSWORD } }), 400, 'validation_error');
  assertError(
    await call(t.app, 'POST', '/api/auth/login', { body: { email: uniqueEmail(), password: PASSWORD, extra: 1 } }),
    400,
    'validation_error',
  );
});

test('GET /api/auth/me without credentials is 401 unauthorized', async () => {
  assertError(await call(t.app, 'GET', '/api/auth/me'), 401, 'unauthorized');
  // A header that is not a bearer credential is refused too.
  assertError(await call(t.app, 'GET', '/api/auth/me', { headers: { authorization: 'Basic dXNlcjpwYXNz' } }), 401, 'unauthorized');
  assertError(await call(t.app, 'GET', '/api/auth/me', { auth: 'not-a-jwt' }), 401, 'unauthorized');
});

test('GET /api/auth/me with a room API token is 403 api_token_not_allowed', async () => {
  const owner = await signup(t.app);
  const roomId = await createRoom(t.app, owner);
  const { token } = await issueToken(t.app, owner, roomId, ['read', 'write', 'upload']);
  assert.ok(token.startsWith('mrt_'));
  assertError(await call(t.app, 'GET', '/api/auth/me', { auth: token }), 403, 'api_token_not_allowed');
  // The same holds for the caller's room list.
  assertError(await call(t.app, 'GET', '/api/rooms', { auth: token }), 403, 'api_token_not_allowed');
});

// ---------------------------------------------------------------------------------------
// Session JWTs

test('a tampered session token is 401', async () => {
  const alice = await signup(t.app);
  const bob = await signup(t.app);
  const [header, payload, signature] = alice.token.split('.');
  // Claim to be Bob while keeping Alice's signature.
  const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8'));
  claims.sub = bob.id;
  claims.email = bob.email;
  const forged = [header, Buffer.from(JSON.stringify(claims)).toString('base64url'), signature].join('.');
  assertError(await call(t.app, 'GET', '/api/auth/me', { auth: forged }), 401, 'unauthorized');

  // A signature altered in its middle.
  const sig = signature!;
  const mid = Math.floor(sig.length / 2);
  const flipped = sig.slice(0, mid) + (sig[mid] === 'A' ? 'B' : 'A') + sig.slice(mid + 1);
  assertError(await call(t.app, 'GET', '/api/auth/me', { auth: [header, payload, flipped].join('.') }), 401, 'unauthorized');

  // An unsigned token (alg none) with valid claims.
  const unsigned = new UnsecuredJWT({ email: alice.email })
    .setSubject(alice.id)
    .setIssuer('maproom')
    .setAudience('maproom')
    .setIssuedAt()
    .setExpirationTime('1h')
    .encode();
  assertError(await call(t.app, 'GET', '/api/auth/me', { auth: unsigned }), 401, 'unauthorized');

  // The untouched token still works.
  assert.equal((await call(t.app, 'GET', '/api/auth/me', { auth: alice.token })).statusCode, 200);
});

test('an expired session token is 401', async () => {
  const user = await signup(t.app);
  const now = Math.floor(Date.now() / 1000);
  const expired = await localJwt({ email: user.email })
    .setSubject(user.id)
    .setIssuer('maproom')
    .setAudience('maproom')
    .setIssuedAt(now - 7200)
    .setExpirationTime(now - 3600)
    .sign(storedSecret(t));
  assertError(await call(t.app, 'GET', '/api/auth/me', { auth: expired }), 401, 'unauthorized');
  assertError(await call(t.app, 'GET', '/api/rooms', { auth: expired }), 401, 'unauthorized');
});

test('a session token signed with the secret kept in the data directory is accepted', async () => {
  const user = await signup(t.app);
  const secret = storedSecret(t);
  const token = await localJwt({ email: user.email })
    .setSubject(user.id)
    .setIssuer('maproom')
    .setAudience('maproom')
    .setIssuedAt()
    .setExpirationTime('10m')
    .sign(secret);
  const me = await call(t.app, 'GET', '/api/auth/me', { auth: token });
  assert.equal(me.statusCode, 200);
  assert.deepEqual(me.json(), { user: { id: user.id, email: user.email, name: null } });

  // The same claims with another issuer or audience, or another secret, are refused.
  const wrongIssuer = await localJwt({ email: user.email })
    .setSubject(user.id)
    .setIssuer('someone-else')
    .setAudience('maproom')
    .setExpirationTime('10m')
    .sign(secret);
  assertError(await call(t.app, 'GET', '/api/auth/me', { auth: wrongIssuer }), 401, 'unauthorized');
  const wrongAudience = await localJwt({ email: user.email })
    .setSubject(user.id)
    .setIssuer('maproom')
    .setAudience('another-service')
    .setExpirationTime('10m')
    .sign(secret);
  assertError(await call(t.app, 'GET', '/api/auth/me', { auth: wrongAudience }), 401, 'unauthorized');
  const otherSecret = await localJwt({ email: user.email })
    .setSubject(user.id)
    .setIssuer('maproom')
    .setAudience('maproom')
    .setExpirationTime('10m')
    .sign(new TextEncoder().encode('x'.repeat(64)));
  assertError(await call(t.app, 'GET', '/api/auth/me', { auth: otherSecret }), 401, 'unauthorized');
});

test('the session lifetime is configurable', async () => {
  const app = await buildTestApp({ sessionTtlSeconds: 3600 });
  try {
    const res = await call(app.app, 'POST', '/api/auth/signup', { body: { email: uniqueEmail('ttl'), password: PASSWORD } });
    assert.equal(res.statusCode, 201);
    const claims = decodeJwt(res.json().token);
    assert.equal(claims.exp! - claims.iat!, 3600);
  } finally {
    await app.close();
  }
});

// ---------------------------------------------------------------------------------------
// External identity provider

interface Idp {
  url: string;
  sign(claims: Record<string, unknown>, options?: { audience?: string; issuer?: string; foreign?: boolean }): Promise<string>;
  close(): Promise<void>;
}

const IDP_ISSUER = 'https://idp.test';
const IDP_AUDIENCE = 'maproom-test';

/** A real JWKS endpoint on 127.0.0.1 and a signer for its key (and for a key it does not publish). */
async function startIdp(): Promise<Idp> {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const foreign = await generateKeyPair('RS256');
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'idp-key-1', alg: 'RS256', use: 'sig' };
  const server: Server = createServer((req, res) => {
    if (req.url === '/.well-known/jwks.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys: [jwk] }));
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/.well-known/jwks.json`,
    async sign(claims, options = {}) {
      // The foreign key claims the published kid, so only the signature check can refuse it.
      return new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: 'idp-key-1', typ: 'JWT' })
        .setIssuer(options.issuer ?? IDP_ISSUER)
        .setAudience(options.audience ?? IDP_AUDIENCE)
        .setIssuedAt()
        .setExpirationTime('10m')
        .sign(options.foreign ? foreign.privateKey : privateKey);
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

test('an external identity provider is trusted: sub becomes the user id and email the e-mail', async () => {
  const idp = await startIdp();
  const ext = await buildTestApp({ authJwksUrl: idp.url, authIssuer: IDP_ISSUER, authAudience: IDP_AUDIENCE });
  try {
    const sub = `idp|${uniqueRoomId()}`;
    const email = uniqueEmail('external');
    const token = await idp.sign({ sub, email });

    const me = await call(ext.app, 'GET', '/api/auth/me', { auth: token });
    assert.equal(me.statusCode, 200, me.body);
    assert.equal(me.json().user.id, sub);
    assert.equal(me.json().user.email, email);

    const roomId = uniqueRoomId();
    const created = await call(ext.app, 'POST', `/api/rooms/${roomId}`, { auth: token, body: { name: 'IdP room' } });
    assert.equal(created.statusCode, 200, created.body);
    assert.equal(created.json().success, true);
    assert.equal(created.json().isNewRoom, true);
    assert.equal(created.json().room.roomId, roomId);
    assert.equal(created.json().room.createdBy, sub);

    const meta = await call(ext.app, 'GET', `/api/rooms/${roomId}`, { auth: token });
    assert.equal(meta.statusCode, 200);
    assert.equal(meta.json().createdBy, sub);
    assert.equal(meta.json().userRole, 'owner');
    const mine = await call(ext.app, 'GET', '/api/rooms', { auth: token });
    assert.deepEqual(
      mine.json().rooms.map((r: any) => [r.roomId, r.role]),
      [[roomId, 'owner']],
    );

    // Wrong audience, another key, wrong issuer: 401.
    const wrongAudience = await idp.sign({ sub, email }, { audience: 'someone-else' });
    assertError(await call(ext.app, 'GET', '/api/auth/me', { auth: wrongAudience }), 401, 'unauthorized');
    const foreignKey = await idp.sign({ sub, email }, { foreign: true });
    assertError(await call(ext.app, 'GET', '/api/auth/me', { auth: foreignKey }), 401, 'unauthorized');
    assertError(
      await call(ext.app, 'POST', `/api/rooms/${uniqueRoomId()}`, { auth: foreignKey, body: {} }),
      401,
      'unauthorized',
    );
    const wrongIssuer = await idp.sign({ sub, email }, { issuer: 'https://evil.test' });
    assertError(await call(ext.app, 'GET', '/api/auth/me', { auth: wrongIssuer }), 401, 'unauthorized');

    // Built-in accounts keep working beside the external provider.
    const local = await signup(ext.app);
    const localMe = await call(ext.app, 'GET', '/api/auth/me', { auth: local.token });
    assert.equal(localMe.statusCode, 200);
    assert.equal(localMe.json().user.id, local.id);
  } finally {
    await ext.close();
    await idp.close();
  }
});

// ---------------------------------------------------------------------------------------
// Pending invitations become memberships when the invitee signs in

async function roomsOf(app: TestApp['app'], user: { token: string }) {
  const res = await call(app, 'GET', '/api/rooms', { auth: user.token });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().rooms as Array<{ roomId: string; role: string; name: string | null; createdAt: number; isPublic: boolean }>;
}

async function membersOf(app: TestApp['app'], user: { token: string }, roomId: string) {
  const res = await call(app, 'GET', `/api/rooms/${roomId}/members`, { auth: user.token });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as Array<{ userId: string; email: string; role: string; addedAt?: number; addedBy?: string }>;
}

test('an invitation to an e-mail without an account is pending until that person signs up', async () => {
  const owner = await signup(t.app);
  const roomId = await createRoom(t.app, owner, uniqueRoomId(), { name: 'Invited room' });
  const email = uniqueEmail('invitee');

  const invite = await call(t.app, 'POST', `/api/rooms/${roomId}/invite`, {
    auth: owner.token,
    body: { email: email.toUpperCase(), role: 'editor' },
  });
  assert.equal(invite.statusCode, 200, invite.body);
  assert.equal(invite.json().success, true);
  assert.equal(invite.json().status, 'pending');

  const pending = await call(t.app, 'GET', `/api/rooms/${roomId}/pending-invitations`, { auth: owner.token });
  assert.equal(pending.statusCode, 200);
  assert.deepEqual(
    pending.json().invitations.map((i: any) => [i.email, i.role]),
    [[email, 'editor']],
  );
  assert.equal((await membersOf(t.app, owner, roomId)).length, 1);

  const invitee = await signup(t.app, email);
  const rooms = await roomsOf(t.app, invitee);
  assert.deepEqual(
    rooms.map((r) => [r.roomId, r.role, r.name]),
    [[roomId, 'editor', 'Invited room']],
  );
  const members = await membersOf(t.app, invitee, roomId);
  const entry = members.find((m) => m.userId === invitee.id);
  assert.ok(entry, 'the invitee is a member');
  assert.equal(entry.email, email);
  assert.equal(entry.role, 'editor');
  assert.equal(entry.addedBy, owner.id);
  assert.equal(members.find((m) => m.userId === owner.id)?.role, 'owner');

  // The invitation is consumed, and the new member's role is in force.
  const after = await call(t.app, 'GET', `/api/rooms/${roomId}/pending-invitations`, { auth: owner.token });
  assert.deepEqual(after.json().invitations, []);
  const meta = await call(t.app, 'GET', `/api/rooms/${roomId}`, { auth: invitee.token });
  assert.equal(meta.statusCode, 200);
  assert.equal(meta.json().userRole, 'editor');
  assert.equal(meta.json().hasAccess, true);
});

test('a pending invitation becomes a membership on the first request of an external identity', async () => {
  const idp = await startIdp();
  const ext = await buildTestApp({ authJwksUrl: idp.url, authIssuer: IDP_ISSUER, authAudience: IDP_AUDIENCE });
  try {
    const ownerToken = await idp.sign({ sub: `owner-${uniqueRoomId()}`, email: uniqueEmail('extowner') });
    const roomId = uniqueRoomId();
    assert.equal((await call(ext.app, 'POST', `/api/rooms/${roomId}`, { auth: ownerToken, body: {} })).statusCode, 200);

    const email = uniqueEmail('extinvitee');
    const invite = await call(ext.app, 'POST', `/api/rooms/${roomId}/invite`, {
      auth: ownerToken,
      body: { email, role: 'viewer' },
    });
    assert.equal(invite.statusCode, 200, invite.body);
    assert.equal(invite.json().status, 'pending');

    const sub = `invitee-${uniqueRoomId()}`;
    const invitee = { token: await idp.sign({ sub, email: email.toUpperCase() }) };
    const rooms = await roomsOf(ext.app, invitee);
    assert.deepEqual(
      rooms.map((r) => [r.roomId, r.role]),
      [[roomId, 'viewer']],
    );
    const members = await membersOf(ext.app, invitee, roomId);
    const entry = members.find((m) => m.userId === sub);
    assert.ok(entry, 'the external user is a member under its sub');
    assert.equal(entry.email, email);
    assert.equal(entry.role, 'viewer');
  } finally {
    await ext.close();
    await idp.close();
  }
});

test('inviting an existing account adds it at once (status added)', async () => {
  const owner = await signup(t.app);
  const roomId = await createRoom(t.app, owner);
  const existing = await signup(t.app);
  const invite = await call(t.app, 'POST', `/api/rooms/${roomId}/invite`, {
    auth: owner.token,
    body: { email: existing.email.toUpperCase(), role: 'viewer' },
  });
  assert.equal(invite.statusCode, 200, invite.body);
  assert.equal(invite.json().success, true);
  assert.equal(invite.json().status, 'added');
  assert.equal(invite.json().member.userId, existing.id);
  assert.equal(invite.json().member.role, 'viewer');

  // Member at once, without signing in again.
  assert.deepEqual(
    (await roomsOf(t.app, existing)).map((r) => [r.roomId, r.role]),
    [[roomId, 'viewer']],
  );
  assert.equal((await membersOf(t.app, owner, roomId)).find((m) => m.userId === existing.id)?.role, 'viewer');
  const pending = await call(t.app, 'GET', `/api/rooms/${roomId}/pending-invitations`, { auth: owner.token });
  assert.deepEqual(pending.json().invitations, []);
});

test('a pending invitation for an existing account is accepted when it logs in', async () => {
  // No route leaves an invitation pending for an existing account; arrange it in the database.
  const owner = await signup(t.app);
  const roomId = await createRoom(t.app, owner);
  const user = await signup(t.app);
  await t.database.db
    .insertInto('pending_invitations')
    .values({ room_id: roomId, email: user.email, role: 'editor', invited_at: Date.now(), invited_by: owner.id })
    .execute();
  assert.deepEqual(await roomsOf(t.app, user), []);

  const login = await call(t.app, 'POST', '/api/auth/login', { body: { email: user.email, password: PASSWORD } });
  assert.equal(login.statusCode, 200);
  assert.deepEqual(
    (await roomsOf(t.app, { token: login.json().token })).map((r) => [r.roomId, r.role]),
    [[roomId, 'editor']],
  );
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
    const second = await call(limited.app, 'POST', '/api/auth/signup', { body: { email: uniqueEmail('limited2'), password: PASSWORD } });
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

// ---------------------------------------------------------------------------------------
// The caller's rooms

test("GET /api/rooms lists only the caller's rooms with {roomId, role, name, createdAt, isPublic}", async () => {
  const alice = await signup(t.app);
  const bob = await signup(t.app);
  const publicRoom = uniqueRoomId();
  const created = await call(t.app, 'POST', `/api/rooms/${publicRoom}`, {
    auth: alice.token,
    body: { name: 'Alpha', isPublic: true },
  });
  assert.equal(created.statusCode, 200);
  const privateRoom = await createRoom(t.app, alice);
  const bobsRoom = await createRoom(t.app, bob, uniqueRoomId(), { name: 'Bravo' });

  const aliceRooms = await roomsOf(t.app, alice);
  assert.equal(aliceRooms.length, 2);
  for (const room of aliceRooms) {
    assert.deepEqual(Object.keys(room).sort(), ['createdAt', 'isPublic', 'name', 'role', 'roomId']);
    assert.equal(typeof room.createdAt, 'number');
    assert.ok(Number.isInteger(room.createdAt));
  }
  const byId = new Map(aliceRooms.map((r) => [r.roomId, r]));
  assert.deepEqual(byId.get(publicRoom), {
    roomId: publicRoom,
    role: 'owner',
    name: 'Alpha',
    createdAt: created.json().room.createdAt,
    isPublic: true,
  });
  const priv = byId.get(privateRoom);
  assert.ok(priv);
  assert.equal(priv.role, 'owner');
  assert.equal(priv.isPublic, false);
  assert.ok(!priv.name, 'an unnamed room has no name');
  assert.ok(!byId.has(bobsRoom), "another user's room is not listed");

  assert.deepEqual(
    (await roomsOf(t.app, bob)).map((r) => [r.roomId, r.role, r.name, r.isPublic]),
    [[bobsRoom, 'owner', 'Bravo', false]],
  );
  // Anonymous callers have no list.
  assertError(await call(t.app, 'GET', '/api/rooms'), 401, 'unauthorized');
});

test('a removed member no longer sees the room', async () => {
  const owner = await signup(t.app);
  const member = await signup(t.app);
  const roomId = await createRoom(t.app, owner, uniqueRoomId(), { name: 'Shared' });
  const ownRoom = await createRoom(t.app, member);
  await addMember(t.app, owner, roomId, member, 'editor');
  assert.deepEqual(
    (await roomsOf(t.app, member)).map((r) => [r.roomId, r.role]).sort(),
    [
      [ownRoom, 'owner'],
      [roomId, 'editor'],
    ].sort(),
  );

  const removed = await call(t.app, 'DELETE', `/api/rooms/${roomId}/members/${member.id}`, { auth: owner.token });
  assert.equal(removed.statusCode, 200, removed.body);
  assert.equal(removed.json().success, true);

  assert.deepEqual(
    (await roomsOf(t.app, member)).map((r) => r.roomId),
    [ownRoom],
  );
  assert.ok(!(await membersOf(t.app, owner, roomId)).some((m) => m.userId === member.id));
  assertError(await call(t.app, 'GET', `/api/rooms/${roomId}`, { auth: member.token }), 403, 'forbidden');
  assertError(await call(t.app, 'GET', `/api/rooms/${roomId}/members`, { auth: member.token }), 403, 'forbidden');

  // The owner can never be removed.
  assertError(
    await call(t.app, 'DELETE', `/api/rooms/${roomId}/members/${owner.id}`, { auth: owner.token }),
    403,
    'forbidden',
  );
  assert.deepEqual(
    (await roomsOf(t.app, owner)).map((r) => [r.roomId, r.role]),
    [[roomId, 'owner']],
  );
});
