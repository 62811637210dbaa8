import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  addMember,
  assertOk,
  call,
  createRoom,
  issueToken,
  type Response,
  signup,
  type TestUser,
  uniqueRoomId,
} from '../helpers.js';
import { LiveClient } from '../support/live-client.js';
import { killRedisClients, REDIS_TEST_DB, redisClientIds } from '../support/redis.js';
import { type TwoInstances, twoInstances } from '../support/two-instances.js';

/**
 * Access changes across instances (decisions: "Access changes across instances"): a change of
 * who may read, made through instance A, is refused on instance B within a second, and B
 * closes its sockets that may no longer read. B caches access for a minute here, so only the
 * message through Redis can make it forget in time.
 */

let two: TwoInstances;
let owner: TestUser;
let viewer: TestUser;
const clients: LiveClient[] = [];

before(async () => {
  two = await twoInstances(REDIS_TEST_DB.access, { accessCacheTtlMs: 60_000 });
  [owner, viewer] = [await signup(two.a.app), await signup(two.a.app)];
});

after(async () => {
  for (const client of clients) client.terminate();
  await two?.close();
});

/** A socket on B, opened and past its hello. */
async function socketOnB(roomId: string, credential?: string) {
  const query = credential ? `?access_token=${credential}` : '';
  const client = new LiveClient(`${two.wsB}/api/rooms/${roomId}/live${query}`);
  clients.push(client);
  assert.equal((await client.at(0)).type, 'hello');
  return client;
}

const readOnB = (roomId: string, auth?: string) => call(two.b.app, 'GET', `/api/rooms/${roomId}`, { auth });

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

/** Reads on B once, as the change on A happens after B has cached that it may. */
async function cachedOnB(roomId: string, auth?: string) {
  assertOk(await readOnB(roomId, auth));
}

describe('access changes made on A are refused on B within a second, and B closes its sockets', () => {
  test('a revoked room token', async () => {
    const roomId = await createRoom(two.a.app, owner);
    const { token, id } = await issueToken(two.a.app, owner, roomId, ['read']);
    await cachedOnB(roomId, token);
    const socket = await socketOnB(roomId, token);
    assertOk(await call(two.a.app, 'DELETE', `/api/rooms/${roomId}/api-tokens/${id}`, { auth: owner.token }));
    const res = await refusedOnBWithin1s(() => readOnB(roomId, token));
    assert.equal(res.statusCode, 401, res.body);
    assert.equal((await socket.closedWithin()).code, 4401);
  });

  test('a removed member', async () => {
    const roomId = await createRoom(two.a.app, owner);
    await addMember(two.a.app, owner, roomId, viewer, 'viewer');
    await cachedOnB(roomId, viewer.token);
    const socket = await socketOnB(roomId, viewer.token);
    assertOk(await call(two.a.app, 'DELETE', `/api/rooms/${roomId}/members/${viewer.id}`, { auth: owner.token }));
    const res = await refusedOnBWithin1s(() => readOnB(roomId, viewer.token));
    assert.equal(res.statusCode, 403, res.body);
    assert.equal((await socket.closedWithin()).code, 4403);
  });

  test('a room made private', async () => {
    const roomId = await createRoom(two.a.app, owner, uniqueRoomId(), { isPublic: true });
    await cachedOnB(roomId);
    const socket = await socketOnB(roomId);
    const body = { isPublic: false };
    assertOk(await call(two.a.app, 'PATCH', `/api/rooms/${roomId}/public`, { auth: owner.token, body }));
    const res = await refusedOnBWithin1s(() => readOnB(roomId));
    assert.equal(res.statusCode, 401, res.body);
    assert.equal((await socket.closedWithin()).code, 4401);
  });

  test('a deleted room', async () => {
    const roomId = await createRoom(two.a.app, owner);
    await addMember(two.a.app, owner, roomId, viewer, 'viewer');
    await cachedOnB(roomId, viewer.token);
    const socket = await socketOnB(roomId, viewer.token);
    assertOk(await call(two.a.app, 'DELETE', `/api/rooms/${roomId}`, { auth: owner.token }));
    const res = await refusedOnBWithin1s(() => readOnB(roomId, viewer.token));
    assert.equal(res.statusCode, 404, res.body);
    assert.equal((await socket.closedWithin()).code, 4404);
  });
});

test('when B loses its Redis subscription, it forgets what it cached: a change it did not hear is refused within a second', async () => {
  for (const client of clients) client.terminate(); // B then subscribes only to access changes and presence news
  await new Promise((resolve) => setTimeout(resolve, 100));
  const roomId = await createRoom(two.a.app, owner);
  const { token, id } = await issueToken(two.a.app, owner, roomId, ['read']);
  await cachedOnB(roomId, token);
  // B's subscribing connections: access changes, and presence news (which connects again too).
  const subscribers = [...(await redisClientIds(two.redisUrl)).subscribers].filter((c) => two.redisClientsOfB.has(c));
  assert.ok(subscribers.length >= 1 && subscribers.length <= 2, `B's subscriptions: ${subscribers.length}`);
  await killRedisClients(two.redisUrl, subscribers);
  // Sent while B is away (it reconnects after 50 ms): B never hears of it.
  assertOk(await call(two.a.app, 'DELETE', `/api/rooms/${roomId}/api-tokens/${id}`, { auth: owner.token }));
  const res = await refusedOnBWithin1s(() => readOnB(roomId, token));
  assert.equal(res.statusCode, 401, res.body);
});
