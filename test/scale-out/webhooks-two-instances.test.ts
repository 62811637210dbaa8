/**
 * Webhooks across two instances of one deployment: changes written on both at once reach the
 * receiver each exactly once, in the room's order, whichever instance sends them.
 * Contract: docs/decisions.md ("Webhooks").
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertOk, call, createRoom, signup } from '../helpers.js';
import { until } from '../support/browser.js';
import { REDIS_TEST_DB } from '../support/redis.js';
import { type TwoInstances, twoInstances } from '../support/two-instances.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

let two: TwoInstances;
let receiver: WebhookReceiver;
before(async () => {
  two = await twoInstances(REDIS_TEST_DB.webhooksTwoInstances, { outboundAllowPrivate: true });
  receiver = await WebhookReceiver.start();
});
after(async () => {
  await receiver?.close();
  await two?.close();
});

test('changes made on both instances are each delivered once, in order', async () => {
  const owner = await signup(two.a.app);
  const room = await createRoom(two.a.app, owner);
  const hook = await call(two.a.app, 'POST', `/api/rooms/${room}/webhooks`, {
    auth: owner.token,
    body: { url: receiver.url, events: ['drawing.created'] },
  });
  assert.equal(hook.statusCode, 201, hook.body);
  const count = 30;
  await Promise.all(
    Array.from({ length: count }, async (_, i) =>
      assertOk(
        await call(i % 2 ? two.b.app : two.a.app, 'POST', `/api/rooms/${room}/drawings`, {
          auth: owner.token,
          body: { geometry: { type: 'Point', coordinates: [7, 46] }, label: `d${i}` },
        }),
        201,
      ),
    ),
  );
  await receiver.waitFor(count);
  const events = receiver.events<{ version: number; data: { label: string } }>();
  const ids = receiver.received.map((r) => r.headers['webhook-id']);
  assert.equal(new Set(ids).size, count, 'no change delivered twice');
  assert.deepEqual(
    events.map((e) => e.data.label).sort(),
    Array.from({ length: count }, (_, i) => `d${i}`).sort(),
    'every change delivered',
  );
  const versions = events.map((e) => e.version);
  assert.deepEqual(
    versions,
    [...versions].sort((x, y) => x - y),
    "in the room's order",
  );
  // Nothing more arrives: the other instance did not send them again. The sender records a
  // delivery after its receiver answered, so the log is read until it has caught up.
  type Delivery = { status: string; attempt: number };
  const log = await until(
    async () =>
      (
        await call(two.b.app, 'GET', `/api/rooms/${room}/webhooks/${hook.json().id}/deliveries`, {
          auth: owner.token,
        })
      ).json<{ deliveries: Delivery[] }>().deliveries,
    (list) => list.every((d) => d.status === 'delivered'),
  );
  assert.equal(log.length, count);
  assert.ok(
    log.every((d) => d.status === 'delivered' && d.attempt === 1),
    JSON.stringify(log),
  );
  assert.equal(receiver.received.length, count);
});
