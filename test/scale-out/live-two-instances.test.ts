import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { RedisLiveHub } from '../../src/infra/redis-live-hub.js';
import { assertOk, call, createRoom, signup, type TestUser } from '../helpers.js';
import { LiveClient } from '../support/live-client.js';
import { OvertakingHub } from '../support/overtaking-hub.js';
import { freshRedisUrl, killRedisClients, REDIS_TEST_DB, redisClientIds } from '../support/redis.js';
import { type TwoInstances, twoInstances } from '../support/two-instances.js';

/**
 * Live changes across instances (decisions: "Live across instances"): a change written through
 * instance A reaches the sockets open on instance B in version order, with no gap and no
 * duplicate, also when changes overtake each other and when B's Redis subscription is lost.
 */

const silent = { warn() {} };

let two: TwoInstances;
let hubA: OvertakingHub;
let subscriberOfB: () => Promise<string[]>;
let owner: TestUser;
let room: string;
const clients: LiveClient[] = [];

before(async () => {
  const url = await freshRedisUrl(REDIS_TEST_DB.liveHub);
  hubA = new OvertakingHub(await RedisLiveHub.open(url, silent));
  const known = await redisClientIds(url);
  const hubB = await RedisLiveHub.open(url, silent);
  const now = await redisClientIds(url);
  const ownOfB = new Set(
    [...now.subscribers, ...now.others].filter((id) => !known.subscribers.has(id) && !known.others.has(id)),
  );
  subscriberOfB = async () => [...(await redisClientIds(url)).subscribers].filter((id) => ownOfB.has(id));
  two = await twoInstances(REDIS_TEST_DB.liveHub, {}, { a: { liveHub: hubA }, b: { liveHub: hubB } });
  owner = await signup(two.a.app);
  room = await createRoom(two.a.app, owner);
});

after(async () => {
  for (const client of clients) client.terminate();
  await two?.close();
});

function connectToB(roomId: string, since?: number) {
  const query = `access_token=${owner.token}${since === undefined ? '' : `&since=${since}`}`;
  const client = new LiveClient(`${two.wsB}/api/rooms/${roomId}/live?${query}`);
  clients.push(client);
  return client;
}

const createMarker = async (title: string) =>
  assertOk(
    await call(two.a.app, 'POST', `/api/rooms/${room}/markers`, {
      auth: owner.token,
      body: { latitude: 46.5, longitude: 6.6, title },
    }),
    201,
  ).marker;

const patchOnA = (markerId: string, title: string) =>
  call(two.a.app, 'PATCH', `/api/rooms/${room}/markers/${markerId}`, { auth: owner.token, body: { title } });

/** The changes after hello, as [version, title] pairs. */
const changes = (client: LiveClient) =>
  client.messages.slice(1).map((m) => [m.version, m.data?.title ?? m.type] as [number, string]);

describe('live across instances', () => {
  test("changes through A reach B's socket at once, in version order, each once", async () => {
    const client = connectToB(room);
    const { version } = await client.at(0);
    const marker = await createMarker('first');
    for (let i = 1; i <= 20; i++) assertOk(await patchOnA(marker.id, `title ${i}`));
    await client.waitFor(22);
    await client.settled();
    assert.deepEqual(changes(client), [
      [version + 1, 'first'],
      ...Array.from({ length: 20 }, (_, i) => [version + 2 + i, `title ${i + 1}`]),
    ]);
  });

  test('a change that overtakes an earlier one is held until history fills the gap; the late one is not sent twice', async () => {
    const marker = await createMarker('overtaken');
    const client = connectToB(room);
    const { version } = await client.at(0);
    hubA.hold();
    const first = patchOnA(marker.id, 'written first, published last');
    await hubA.heldOne; // the first change is saved, its publish waits
    assertOk(await patchOnA(marker.id, 'written second, published first'));
    assertOk(await first);
    await client.waitFor(3);
    await new Promise((resolve) => setTimeout(resolve, 200)); // a duplicate would come now
    await client.settled();
    assert.deepEqual(changes(client), [
      [version + 1, 'written first, published last'],
      [version + 2, 'written second, published first'],
    ]);
  });

  test("after B's subscribing connection to Redis is lost, its sockets catch up on what was published meanwhile", async () => {
    const marker = await createMarker('before the loss');
    const client = connectToB(room);
    const { version } = await client.at(0);
    const [subscriber, ...more] = await subscriberOfB();
    assert.ok(subscriber && more.length === 0, 'one subscribing connection of B');
    await killRedisClients(two.redisUrl, [subscriber]);
    // Published while B is away (it reconnects after 50 ms): pub/sub keeps nothing for B.
    assertOk(await patchOnA(marker.id, 'while B was away'));
    await client.waitFor(2);
    await client.settled();
    assert.deepEqual(changes(client), [[version + 1, 'while B was away']]);
  });

  test('a client that moves from A to B catches up with ?since=', async () => {
    const marker = await createMarker('moving');
    const onA = new LiveClient(`${two.wsA}/api/rooms/${room}/live?access_token=${owner.token}`);
    clients.push(onA);
    const { version } = await onA.at(0);
    onA.terminate();
    assertOk(await patchOnA(marker.id, 'while moving'));
    const onB = connectToB(room, version);
    await onB.waitFor(2);
    assert.deepEqual(changes(onB), [[version + 1, 'while moving']]);
  });
});
