import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { redisNamespace } from '../../src/infra/redis.js';
import { RedisPresence } from '../../src/infra/redis-presence.js';
import { addMember, assertOk, call, createRoom, signup, type TestUser } from '../helpers.js';
import { LiveClient } from '../support/live-client.js';
import { REDIS_TEST_DB } from '../support/redis.js';
import { type TwoInstances, twoInstances } from '../support/two-instances.js';

/**
 * Presence across instances (docs/decisions.md, "Presence"): who has a room open on instance B
 * is listed by instance A, B's sockets' joins, leaves and pointers reach A's sockets, and an
 * entry its instance stops renewing leaves the list.
 */

const silent = { warn() {} };
let two: TwoInstances;
let owner: TestUser;
let member: TestUser;
let room: string;
const clients: LiveClient[] = [];

before(async () => {
  two = await twoInstances(REDIS_TEST_DB.presence);
  [owner, member] = [await signup(two.a.app), await signup(two.a.app)];
  room = await createRoom(two.a.app, owner);
  await addMember(two.a.app, owner, room, member, 'editor');
});

after(async () => {
  for (const client of clients) client.terminate();
  await two?.close();
});

async function open(ws: string, user: TestUser) {
  const client = new LiveClient(`${ws}/api/rooms/${room}/live?access_token=${user.token}&presence=true`);
  clients.push(client);
  await client.at(0);
  return client;
}

const presentOn = async (app: TwoInstances['a']['app']) =>
  (assertOk(await call(app, 'GET', `/api/rooms/${room}/presence`, { auth: owner.token })).present as { id: string }[])
    .map((p) => p.id)
    .sort();

async function waitUntilListed(app: TwoInstances['a']['app'], ids: string[]) {
  // A guard against hangs on a loaded machine, not a timing assertion.
  const started = Date.now();
  while (Date.now() - started < 20_000 && JSON.stringify(await presentOn(app)) !== JSON.stringify([...ids].sort()))
    await sleep(10);
  assert.deepEqual(await presentOn(app), [...ids].sort());
}

test("both instances list who is on either; B's joins, pointers and leaves reach A's sockets", async () => {
  const onA = await open(two.wsA, owner);
  await waitUntilListed(two.b.app, [owner.id]);
  const onB = await open(two.wsB, member);
  await waitUntilListed(two.a.app, [owner.id, member.id]);
  await waitUntilListed(two.b.app, [owner.id, member.id]);
  const joined = await onA.waitUntil((m) => m.type === 'presence.joined' && m.id === member.id, 'joined from B');
  assert.equal(joined.name, member.email);

  onB.send({ type: 'pointer', lng: 8.54, lat: 47.37 });
  const pointer = await onA.waitUntil((m) => m.type === 'pointer', 'the pointer from B');
  assert.deepEqual(pointer.from, { kind: 'user', id: member.id, name: member.email });
  onA.send({ type: 'view', lng: 8.5, lat: 47.4, zoom: 11 });
  assert.equal((await onB.waitUntil((m) => m.type === 'view', 'the view from A')).from.id, owner.id);

  onB.ws.close();
  await onA.waitUntil((m) => m.type === 'presence.left' && m.id === member.id, 'left on B');
  await waitUntilListed(two.a.app, [owner.id]);
});

test('an entry its instance no longer renews leaves the list; one that is renewed stays', async () => {
  const roomId = 'presence01';
  const ttlMs = 300;
  const renewing = await RedisPresence.open(two.redisUrl, silent, ttlMs);
  const raw = new Redis(two.redisUrl);
  try {
    await renewing.join(roomId, 'socket-renewed', { kind: 'user', id: 'user-renewed', name: 'Renewed', since: 1 });
    // A socket of an instance that stopped: its entry expired and nobody renews it.
    const key = `${redisNamespace(two.redisUrl)}presence:${roomId}`;
    const stale = { kind: 'user', id: 'user-stale', name: 'Stale', since: 0, expiresAt: Date.now() - 1 };
    await raw.hset(key, 'socket-stale', JSON.stringify(stale));
    await raw.hset(key, 'socket-garbage', 'not an entry');

    await sleep(ttlMs * 3); // several renewals
    assert.deepEqual(
      (await renewing.list(roomId)).map((p) => p.id),
      ['user-renewed'],
    );
    assert.deepEqual(await raw.hkeys(key), ['socket-renewed'], 'expired and foreign fields are removed');
    assert.ok((await raw.pttl(key)) > 0, 'the room key expires with its last entry');
  } finally {
    raw.disconnect();
    await renewing.close();
  }
});
