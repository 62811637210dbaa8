import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertError, assertOk, call, signup } from '../helpers.js';
import { REDIS_TEST_DB } from '../support/redis.js';
import { type TwoInstances, twoInstances } from '../support/two-instances.js';

/**
 * Logging out across instances (decisions: "Logout and revoked sessions"): a session ended on
 * instance A is refused on instance B within a second, though B had just accepted it (and
 * caches access reads for a minute here: only the message through Redis can make it forget).
 */

let two: TwoInstances;
before(async () => {
  two = await twoInstances(REDIS_TEST_DB.sessions, { accessCacheTtlMs: 60_000 });
});
after(() => two?.close());

test("logout on A refuses the JWT on B within a second; the user's other session still works on B", async () => {
  const user = await signup(two.a.app);
  const other = assertOk(
    await call(two.b.app, 'POST', '/api/auth/login', { body: { email: user.email, password: 'correct horse' } }),
  ).token as string;
  const meOnB = (auth: string) => call(two.b.app, 'GET', '/api/auth/me', { auth });
  assertOk(await meOnB(user.token));

  assert.equal((await call(two.a.app, 'POST', '/api/auth/logout', { auth: user.token })).statusCode, 204);
  const started = Date.now();
  while ((await meOnB(user.token)).statusCode === 200) {
    assert.ok(Date.now() - started < 1000, 'B still accepts the session a second after the logout on A');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  assertError(await meOnB(user.token), 401, 'unauthorized', 'Invalid or expired session token');
  assertOk(await meOnB(other));
});
