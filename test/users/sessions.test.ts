import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { decodeJwt, SignJWT, UnsecuredJWT } from 'jose';
import {
  assertError,
  buildTestApp,
  call,
  PASSWORD,
  scaffoldSuite,
  signup,
  type TestApp,
  uniqueEmail,
} from '../helpers.js';

/**
 * Accounts: session JWTs (tampered, expired, signed with the stored secret) and their lifetime.
 */

const s = scaffoldSuite({ users: [], rooms: [] });

/** The signing secret: configured (required with PostgreSQL), or generated and kept in the data directory. */
function storedSecret(app: TestApp): Uint8Array {
  const text = app.config.jwtSecret ?? readFileSync(path.join(app.config.dataDir, 'jwt-secret'), 'utf8').trim();
  return new TextEncoder().encode(text);
}

function localJwt(claims: Record<string, unknown>) {
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' });
}

// ---------------------------------------------------------------------------------------
// Session JWTs

test('a tampered session token is 401', async () => {
  const alice = await signup(s.t.app);
  const bob = await signup(s.t.app);
  const [header, payload, signature] = alice.token.split('.');
  // Claim to be Bob while keeping Alice's signature.
  const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8'));
  claims.sub = bob.id;
  claims.email = bob.email;
  const forged = [header, Buffer.from(JSON.stringify(claims)).toString('base64url'), signature].join('.');
  assertError(await call(s.t.app, 'GET', '/api/auth/me', { auth: forged }), 401, 'unauthorized');

  // A signature altered in its middle.
  const sig = signature!;
  const mid = Math.floor(sig.length / 2);
  const flipped = sig.slice(0, mid) + (sig[mid] === 'A' ? 'B' : 'A') + sig.slice(mid + 1);
  assertError(
    await call(s.t.app, 'GET', '/api/auth/me', { auth: [header, payload, flipped].join('.') }),
    401,
    'unauthorized',
  );

  // An unsigned token (alg none) with valid claims.
  const unsigned = new UnsecuredJWT({ email: alice.email })
    .setSubject(alice.id)
    .setIssuer('maproom')
    .setAudience('maproom')
    .setIssuedAt()
    .setExpirationTime('1h')
    .encode();
  assertError(await call(s.t.app, 'GET', '/api/auth/me', { auth: unsigned }), 401, 'unauthorized');

  // The untouched token still works.
  assert.equal((await call(s.t.app, 'GET', '/api/auth/me', { auth: alice.token })).statusCode, 200);
});

test('an expired session token is 401', async () => {
  const user = await signup(s.t.app);
  const now = Math.floor(Date.now() / 1000);
  const expired = await localJwt({ email: user.email })
    .setSubject(user.id)
    .setIssuer('maproom')
    .setAudience('maproom')
    .setIssuedAt(now - 7200)
    .setExpirationTime(now - 3600)
    .sign(storedSecret(s.t));
  assertError(await call(s.t.app, 'GET', '/api/auth/me', { auth: expired }), 401, 'unauthorized');
  assertError(await call(s.t.app, 'GET', '/api/rooms', { auth: expired }), 401, 'unauthorized');
});

test('a session token signed with the secret kept in the data directory is accepted', async () => {
  const user = await signup(s.t.app);
  const secret = storedSecret(s.t);
  const token = await localJwt({ email: user.email })
    .setSubject(user.id)
    .setIssuer('maproom')
    .setAudience('maproom')
    .setIssuedAt()
    .setExpirationTime('10m')
    .sign(secret);
  const me = await call(s.t.app, 'GET', '/api/auth/me', { auth: token });
  assert.equal(me.statusCode, 200);
  assert.deepEqual(me.json(), {
    user: { id: user.id, email: user.email, name: null, emailVerified: true, admin: false, locale: null },
  });

  // The same claims with another issuer or audience, or another secret, are refused.
  const wrongIssuer = await localJwt({ email: user.email })
    .setSubject(user.id)
    .setIssuer('someone-else')
    .setAudience('maproom')
    .setExpirationTime('10m')
    .sign(secret);
  assertError(await call(s.t.app, 'GET', '/api/auth/me', { auth: wrongIssuer }), 401, 'unauthorized');
  const wrongAudience = await localJwt({ email: user.email })
    .setSubject(user.id)
    .setIssuer('maproom')
    .setAudience('another-service')
    .setExpirationTime('10m')
    .sign(secret);
  assertError(await call(s.t.app, 'GET', '/api/auth/me', { auth: wrongAudience }), 401, 'unauthorized');
  const otherSecret = await localJwt({ email: user.email })
    .setSubject(user.id)
    .setIssuer('maproom')
    .setAudience('maproom')
    .setExpirationTime('10m')
    .sign(new TextEncoder().encode('x'.repeat(64)));
  assertError(await call(s.t.app, 'GET', '/api/auth/me', { auth: otherSecret }), 401, 'unauthorized');
});

test('the session lifetime is configurable', async () => {
  const app = await buildTestApp({ sessionTtlSeconds: 3600 });
  try {
    const res = await call(app.app, 'POST', '/api/auth/signup', {
      body: { email: uniqueEmail('ttl'), password: PASSWORD },
    });
    assert.equal(res.statusCode, 201);
    const claims = decodeJwt(res.json().token);
    assert.equal(claims.exp! - claims.iat!, 3600);
  } finally {
    await app.close();
  }
});
