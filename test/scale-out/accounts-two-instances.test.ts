import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  addMember,
  assertError,
  assertOk,
  call,
  createRoom,
  issueToken,
  mailboxOf,
  PASSWORD,
  type Response,
  signup,
} from '../helpers.js';
import { LiveClient } from '../support/live-client.js';
import { REDIS_TEST_DB } from '../support/redis.js';
import { type TwoInstances, twoInstances } from '../support/two-instances.js';

/**
 * Account rules across instances (decisions: "Session rules"): what instance A changes about an
 * account or a room's owner holds on instance B at once, though B caches access for a minute
 * here: sessions because every request reads the account, tokens and rooms because A tells B
 * to forget them (Redis).
 */

let two: TwoInstances;
const clients: LiveClient[] = [];

before(async () => {
  // Scale-out files run one at a time (scripts/test-scale-out.sh): the sessions file's index.
  two = await twoInstances(REDIS_TEST_DB.sessions, { accessCacheTtlMs: 60_000 });
});
after(async () => {
  for (const client of clients) client.terminate();
  await two?.close();
});

/** Asks B until it refuses (within a second), and returns its answer. */
async function refusedOnBWithin1s(read: () => Promise<Response>): Promise<Response> {
  const started = Date.now();
  for (;;) {
    const res = await read();
    if (res.statusCode !== 200) return res;
    assert.ok(Date.now() - started < 1000, 'B still answers 200 a second after the change on A');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const meOnB = (auth: string) => call(two.b.app, 'GET', '/api/auth/me', { auth });

test('a password reset confirmed on A ends the sessions on B; one signed in after works', async () => {
  const user = await signup(two.a.app);
  const onB = assertOk(
    await call(two.b.app, 'POST', '/api/auth/login', { body: { email: user.email, password: PASSWORD } }),
  ).token;
  assertOk(await meOnB(onB));
  assertOk(await meOnB(user.token));
  assert.equal(
    (await call(two.a.app, 'POST', '/api/auth/password-reset', { body: { email: user.email } })).statusCode,
    202,
  );
  const mail = await mailboxOf(two.a.app).waitFor(user.email, /Reset your Maproom password/);
  const token = /reset-password\?token=([A-Za-z0-9_-]+)/.exec(mail.text)![1]!;
  const confirmed = await call(two.a.app, 'POST', '/api/auth/password-reset/confirm', {
    body: { token, password: 'after the reset' },
  });
  assert.equal(confirmed.statusCode, 204);
  assertError(await meOnB(onB), 401, 'unauthorized');
  assertError(await meOnB(user.token), 401, 'unauthorized');
  const fresh = assertOk(
    await call(two.b.app, 'POST', '/api/auth/login', { body: { email: user.email, password: 'after the reset' } }),
  ).token;
  assertOk(await meOnB(fresh));
});

test("a password change on A keeps its session on B and ends the others', their live sockets too", async () => {
  const user = await signup(two.a.app);
  const other = assertOk(
    await call(two.b.app, 'POST', '/api/auth/login', { body: { email: user.email, password: PASSWORD } }),
  ).token;
  const roomId = await createRoom(two.a.app, user);
  const socket = new LiveClient(`${two.wsB}/api/rooms/${roomId}/live?access_token=${other}`);
  clients.push(socket);
  await socket.at(0);
  const changed = await call(two.a.app, 'POST', '/api/auth/password', {
    auth: user.token,
    body: { currentPassword: PASSWORD, newPassword: 'changed on A' },
  });
  assert.equal(changed.statusCode, 204);
  assertOk(await meOnB(user.token));
  assertError(await meOnB(other), 401, 'unauthorized');
  const closed = await socket.closedWithin();
  assert.ok(closed.code >= 4000, `closed by the service: ${JSON.stringify(closed)}`);
});

test('a user disabled through A: their session and their room token are refused on B within a second', async () => {
  const user = await signup(two.a.app);
  const roomId = await createRoom(two.a.app, user);
  const { token } = await issueToken(two.a.app, user, roomId, ['read']);
  const readOnB = () => call(two.b.app, 'GET', `/api/rooms/${roomId}`, { auth: token });
  assertOk(await readOnB()); // B now holds the token's row for a minute
  await two.a.accounts.users.setDisabled(user.id, true);
  assertError(await refusedOnBWithin1s(readOnB), 401, 'unauthorized', 'Invalid or expired API token');
  assertError(await meOnB(user.token), 401, 'unauthorized');
  await two.a.accounts.users.setDisabled(user.id, false);
  const started = Date.now();
  while ((await readOnB()).statusCode !== 200) {
    assert.ok(Date.now() - started < 1000, 'the token works again on B within a second of enabling');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
});

test('an ownership transfer on A is heard live on B and holds there at once', async () => {
  const [owner, member] = [await signup(two.a.app), await signup(two.a.app)];
  const roomId = await createRoom(two.a.app, owner);
  await addMember(two.a.app, owner, roomId, member, 'editor');
  const client = new LiveClient(`${two.wsB}/api/rooms/${roomId}/live?access_token=${member.token}`);
  clients.push(client);
  await client.at(0);
  const rename = (auth: string, name: string) =>
    call(two.b.app, 'PATCH', `/api/rooms/${roomId}`, { auth, body: { name } });
  assertOk(await rename(owner.token, 'Before')); // B caches both roles for a minute
  assertError(await rename(member.token, 'Not yet'), 403, 'forbidden');

  assertOk(
    await call(two.a.app, 'PUT', `/api/rooms/${roomId}/owner`, { auth: owner.token, body: { userId: member.id } }),
  );
  const heard = await client.waitUntil(
    (m) => m.type === 'member.updated' && m.data?.userId === member.id,
    'the new owner on B',
  );
  assert.equal(heard.data.role, 'owner');
  assertError(await refusedOnBWithin1s(() => rename(owner.token, 'Still mine?')), 403, 'forbidden');
  assertOk(await rename(member.token, 'Handed on'));
});
