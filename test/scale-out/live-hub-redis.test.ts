import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { redisNamespace } from '../../src/infra/redis.js';
import { RedisLiveHub } from '../../src/infra/redis-live-hub.js';
import { uniqueRoomId } from '../helpers.js';
import { change, Heard, liveHubContract } from '../support/live-hub-contract.js';
import { freshRedisUrl, killRedisClients, REDIS_TEST_DB, redisClientIds } from '../support/redis.js';

/** The Redis live hub against the contract every hub keeps, and what a lost connection does to it. */

const silent = { warn() {} };

liveHubContract('Redis', async () => {
  const url = await freshRedisUrl(REDIS_TEST_DB.liveHub);
  const [first, second] = await Promise.all([RedisLiveHub.open(url, silent), RedisLiveHub.open(url, silent)]);
  return { first, second, close: async () => void (await Promise.all([first.close(), second.close()])) };
});

/** Opens a hub and tells which Redis connections are its own. */
async function openHub(url: string) {
  const before = await redisClientIds(url);
  const hub = await RedisLiveHub.open(url, silent);
  const known = new Set([...before.subscribers, ...before.others]);
  const own = async () => {
    const now = await redisClientIds(url);
    return {
      subscriber: [...now.subscribers].filter((id) => !known.has(id)),
      publisher: [...now.others].filter((id) => !known.has(id)),
    };
  };
  return { hub, own };
}

const waitUntil = async (done: () => boolean, what: string, ms = 5000) => {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`${what} within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

describe('Redis live hub: lost connections', () => {
  let url: string;
  let other: RedisLiveHub;
  before(async () => {
    url = await freshRedisUrl(REDIS_TEST_DB.liveHub);
    other = await RedisLiveHub.open(url, silent);
  });
  after(() => other.close());

  test('a publish while the publishing connection is down rejects at once (the write path answers 502), and works again after it reconnects', async () => {
    const { hub, own } = await openHub(url);
    try {
      const room = uniqueRoomId();
      const heard = new Heard();
      const sub = other.subscribe(room, heard.listener);
      const ownRoom = hub.subscribe(uniqueRoomId(), () => {}); // tells the hub's subscriber from its publisher
      await Promise.all([sub.ready, ownRoom.ready]);
      const { publisher } = await own();
      assert.equal(publisher.length, 1, 'one publishing connection');
      await killRedisClients(url, publisher);
      // A publish written before the client sees the close is sent again once it is back (ioredis
      // resends unanswered commands); Redis down is the time after it saw it, before reconnecting (50 ms).
      await new Promise((resolve) => setTimeout(resolve, 15));
      const started = Date.now();
      await assert.rejects(hub.publish(change(room, 1)));
      assert.ok(Date.now() - started < 1000, 'refused without waiting for Redis');
      await waitUntil(() => heard.events.length === 0, 'nothing delivered');
      let delivered = false;
      for (let version = 2; !delivered; version++) {
        delivered = await hub.publish(change(room, version)).then(
          () => true,
          () => false,
        );
        if (!delivered) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await heard.until(1);
      sub.unsubscribe();
      ownRoom.unsubscribe();
    } finally {
      await hub.close();
    }
  });

  test('after the subscribing connection comes back, its rooms are subscribed again and each listener is told it may have missed changes', async () => {
    const { hub, own } = await openHub(url);
    try {
      const [room, otherRoom] = [uniqueRoomId(), uniqueRoomId()];
      const heard = new Heard();
      let missed = 0;
      const subs = [
        hub.subscribe(room, heard.listener, () => missed++),
        hub.subscribe(
          otherRoom,
          () => {},
          () => missed++,
        ),
      ];
      await Promise.all(subs.map((s) => s.ready));
      const { subscriber } = await own();
      assert.equal(subscriber.length, 1, 'one subscribing connection');
      await killRedisClients(url, subscriber);
      await other.publish(change(room, 1)); // lost: nobody of this hub listens right now
      await waitUntil(() => missed === 2, 'both listeners told of the lost connection');
      await other.publish(change(room, 2));
      await heard.until(1);
      assert.deepEqual(heard.versions(), [2], 'the change published while disconnected is gone from pub/sub');
      for (const s of subs) s.unsubscribe();
    } finally {
      await hub.close();
    }
  });
});

test('messages on a room channel that are not a change of that room are dropped, not delivered and not a crash', async () => {
  const url = await freshRedisUrl(REDIS_TEST_DB.liveHub);
  const hub = await RedisLiveHub.open(url, silent);
  const roomId = uniqueRoomId();
  const heard = new Heard();
  const subscription = hub.subscribe(roomId, heard.listener);
  await subscription.ready;
  const raw = new Redis(url);
  try {
    const channel = `${redisNamespace(url)}live:${roomId}`;
    for (const text of [
      'null',
      '"text"',
      '[]',
      '{}',
      JSON.stringify(change('otherRoom1', 5)),
      JSON.stringify({ ...change(roomId, 7), version: 'x' }),
    ])
      await raw.publish(channel, text);
    await hub.publish(change(roomId, 1));
    const events = await heard.until(1);
    assert.deepEqual(
      events.map((e) => [e.roomId, e.version]),
      [[roomId, 1]],
      'only the real change of the room',
    );
  } finally {
    raw.disconnect();
    subscription.unsubscribe();
    await hub.close();
  }
});
