import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertError, assertOk, call, createRoom, issueToken, signup, type TestUser } from '../helpers.js';
import { REDIS_TEST_DB } from '../support/redis.js';
import { type TwoInstances, twoInstances } from '../support/two-instances.js';

/**
 * The admin's actions across instances: a user disabled through instance A has their session
 * and the room tokens they created refused on instance B within a second (B had just accepted
 * both, and caches access reads for a minute here), and a room handed over on A has its new
 * owner on B.
 */

const ADMIN = 'two-admin@example.org';
let two: TwoInstances;
let admin: TestUser;
before(async () => {
  two = await twoInstances(REDIS_TEST_DB.jobQueue, { accessCacheTtlMs: 60_000, adminEmails: ADMIN });
  admin = await signup(two.a.app, ADMIN);
});
after(() => two?.close());

/** Polls `refused` on B until it holds; fails after a second. */
async function withinASecond(what: string, refused: () => Promise<boolean>) {
  const started = Date.now();
  while (!(await refused())) {
    assert.ok(Date.now() - started < 1000, `${what}: B still accepts it a second after the admin acted on A`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

test('disabled on A: the session and the tokens of the user are refused on B within a second', async () => {
  const user = await signup(two.a.app);
  const room = await createRoom(two.a.app, user);
  const { token } = await issueToken(two.a.app, user, room, ['read']);
  assertOk(await call(two.b.app, 'GET', '/api/auth/me', { auth: user.token }));
  assertOk(await call(two.b.app, 'GET', `/api/rooms/${room}/markers`, { auth: token }));

  assertOk(await call(two.a.app, 'POST', `/api/admin/users/${user.id}/disable`, { auth: admin.token }));
  await withinASecond(
    'the session',
    async () => (await call(two.b.app, 'GET', '/api/auth/me', { auth: user.token })).statusCode === 401,
  );
  await withinASecond(
    'the token',
    async () => (await call(two.b.app, 'GET', `/api/rooms/${room}/markers`, { auth: token })).statusCode === 401,
  );
  // The admin page on B says the same.
  const listed = assertOk(await call(two.b.app, 'GET', `/api/admin/users?q=${user.email}`, { auth: admin.token }));
  assert.equal(listed.users[0].disabled, true);
});

test('a room handed over on A has its new owner on B at once', async () => {
  const [owner, member] = [await signup(two.a.app), await signup(two.a.app)];
  const room = await createRoom(two.a.app, owner);
  const invite = await call(two.a.app, 'POST', `/api/rooms/${room}/invite`, {
    auth: owner.token,
    body: { email: member.email, role: 'editor' },
  });
  assertOk(invite);
  // B reads (and caches) the room with the old owner.
  assertError(
    await call(two.b.app, 'PATCH', `/api/rooms/${room}`, { auth: member.token, body: { name: 'x' } }),
    403,
    'forbidden',
  );
  assertOk(
    await call(two.a.app, 'PUT', `/api/admin/rooms/${room}/owner`, { auth: admin.token, body: { userId: member.id } }),
  );
  await withinASecond(
    'the old role',
    async () =>
      (await call(two.b.app, 'PATCH', `/api/rooms/${room}`, { auth: member.token, body: { name: 'Handed over' } }))
        .statusCode === 200,
  );
});
