/**
 * Webhooks over HTTP with a real receiver on loopback: the owner's routes, signed deliveries
 * of every change once and in order (verified with the Standard Webhooks library), retries,
 * disabling after repeated failures, the delivery log, and refused addresses.
 * Contract: docs/decisions.md ("Webhooks").
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { assertError, call, createRoomWithMembers, scaffoldSuite } from '../helpers.js';
import { until } from '../support/browser.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const s = scaffoldSuite(
  {
    rooms: [],
    // Two quick retries, then the hook is disabled; a receiver has half a second to answer.
    config: { outboundAllowPrivate: true, webhookRetryDelaysMs: '50,100', webhookTimeoutMs: 500 },
  },
  async () => {
    receiver = await WebhookReceiver.start();
  },
);
let receiver: WebhookReceiver;
after(() => receiver?.close());

const POINT = { type: 'Point', coordinates: [7.45, 46.95] };
const hooksUrl = (roomId: string) => `/api/rooms/${roomId}/webhooks`;
const owner = () => s.users.owner.token;

async function newRoomWithHook(body: object = {}) {
  const room = await createRoomWithMembers(s.t.app, s.users);
  const res = await call(s.t.app, 'POST', hooksUrl(room), { auth: owner(), body: { url: receiver.url, ...body } });
  assert.equal(res.statusCode, 201, res.body);
  return { room, hook: res.json<{ id: string; secret: string }>() };
}

const drawing = (room: string, label: string) =>
  call(s.t.app, 'POST', `/api/rooms/${room}/drawings`, { auth: owner(), body: { geometry: POINT, label } });

const deliveries = async (room: string, hookId: string) => {
  const res = await call(s.t.app, 'GET', `${hooksUrl(room)}/${hookId}/deliveries`, { auth: owner() });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<{ deliveries: Array<Record<string, unknown>> }>().deliveries;
};

const hookOf = async (room: string, hookId: string) => {
  const res = await call(s.t.app, 'GET', hooksUrl(room), { auth: owner() });
  return res.json<{ webhooks: Array<Record<string, unknown>> }>().webhooks.find((h) => h.id === hookId)!;
};

describe('the owner manages webhooks', () => {
  test('a new hook answers its secret once; the list never shows it', async () => {
    const { room, hook } = await newRoomWithHook({ events: ['drawing.created'] });
    assert.match(hook.secret, /^whsec_[A-Za-z0-9+/]{32}$/);
    const listed = await call(s.t.app, 'GET', hooksUrl(room), { auth: owner() });
    assert.equal(listed.statusCode, 200);
    assert.ok(!listed.body.includes(hook.secret));
    assert.deepEqual(listed.json().webhooks, [
      {
        id: hook.id,
        url: receiver.url,
        events: ['drawing.created'],
        enabled: true,
        disabledReason: null,
        createdAt: listed.json().webhooks[0].createdAt,
      },
    ]);
    const patched = await call(s.t.app, 'PATCH', `${hooksUrl(room)}/${hook.id}`, {
      auth: owner(),
      body: { events: null, enabled: false },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.equal(patched.json().events, null);
    assert.equal(patched.json().enabled, false);
    const removed = await call(s.t.app, 'DELETE', `${hooksUrl(room)}/${hook.id}`, { auth: owner() });
    assert.equal(removed.statusCode, 204);
    const again = await call(s.t.app, 'DELETE', `${hooksUrl(room)}/${hook.id}`, { auth: owner() });
    assertError(again, 404, 'not_found');
  });

  test('members who are not owners may not see or add hooks', async () => {
    const { room } = await newRoomWithHook();
    for (const role of ['editor', 'viewer', 'stranger'] as const) {
      const auth = s.users[role].token;
      const list = await call(s.t.app, 'GET', hooksUrl(room), { auth });
      assert.ok([403, 404].includes(list.statusCode), `${role}: ${list.statusCode}`);
      const add = await call(s.t.app, 'POST', hooksUrl(room), { auth, body: { url: receiver.url } });
      assert.ok([403, 404].includes(add.statusCode), `${role}: ${add.statusCode}`);
    }
  });

  test('a bad address, an unknown change type or a malformed secret is refused', async () => {
    const room = await createRoomWithMembers(s.t.app, s.users);
    const post = (body: object) => call(s.t.app, 'POST', hooksUrl(room), { auth: owner(), body });
    assert.equal((await post({ url: 'ftp://example.com/x' })).statusCode, 400);
    assert.equal((await post({ url: receiver.url, events: ['marker.exploded'] })).statusCode, 400);
    assert.equal((await post({ url: receiver.url, events: [] })).statusCode, 400);
    assert.equal((await post({ url: receiver.url, secret: 'plain' })).statusCode, 400);
    assertError(await post({ url: 'http://user:pw@example.com/x' }), 400, 'webhook_url_refused');
    const given = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const made = await post({ url: receiver.url, secret: given });
    assert.equal(made.json().secret, given);
  });
});

describe('deliveries', () => {
  test('every change of the chosen types arrives once, in order, signed', async () => {
    const { room, hook } = await newRoomWithHook({ events: ['drawing.created', 'drawing.updated', 'drawing.deleted'] });
    const start = receiver.received.length;
    // Made together: they share group commits, and must still arrive in the room's order.
    const made = await Promise.all(Array.from({ length: 8 }, (_, i) => drawing(room, `d${i}`)));
    const first = made[0]!.json().drawing.id as string;
    await call(s.t.app, 'PATCH', `/api/rooms/${room}/drawings/${first}`, { auth: owner(), body: { label: 'moved' } });
    // Not among the hook's types: never delivered.
    await call(s.t.app, 'PATCH', `/api/rooms/${room}`, { auth: owner(), body: { name: 'Renamed' } });
    await call(s.t.app, 'DELETE', `/api/rooms/${room}/drawings/${first}`, { auth: owner() });
    await receiver.waitFor(start + 10);
    const mine = receiver.received.slice(start).filter((r) => JSON.parse(r.body).roomId === room);
    assert.equal(mine.length, 10);
    const verifier = new Webhook(hook.secret);
    for (const request of mine) verifier.verify(request.body, request.headers as Record<string, string>);
    const events = mine.map((r) => JSON.parse(r.body));
    const versions = events.map((e) => e.version);
    assert.deepEqual(
      versions,
      [...versions].sort((a, b) => a - b),
      'in the order of the room',
    );
    assert.deepEqual(
      events.map((e) => e.type),
      [...Array(8).fill('drawing.created'), 'drawing.updated', 'drawing.deleted'],
    );
    assert.equal(events[8].objectId, first);
    assert.equal(events[8].data.label, 'moved');
    assert.equal(new Set(mine.map((r) => r.headers['webhook-id'])).size, 10, 'one message id per change');
    const log = await until(
      () => deliveries(room, hook.id),
      (list) => list.length === 10 && list.every((d) => d.status === 'delivered'),
    );
    assert.deepEqual(
      { ...log[0], id: undefined, at: undefined },
      {
        id: undefined,
        eventType: 'drawing.deleted',
        attempt: 1,
        status: 'delivered',
        at: undefined,
        responseStatus: 204,
        responseExcerpt: '',
      },
    );
  });

  test('a failing receiver gets retries with the same id, then the hook is disabled', async () => {
    const { room, hook } = await newRoomWithHook();
    receiver.status = 500;
    try {
      const start = receiver.received.length;
      await drawing(room, 'lost');
      await receiver.waitFor(start + 3);
      const ids = receiver.received.slice(start, start + 3).map((r) => r.headers['webhook-id']);
      assert.equal(new Set(ids).size, 1, "retries carry the first attempt's id");
      const disabled = await until(
        () => hookOf(room, hook.id),
        (h) => h.enabled === false,
      );
      assert.match(String(disabled.disabledReason), /^Disabled after 3 failed attempts/);
      const [failed] = await deliveries(room, hook.id);
      assert.equal(failed!.status, 'failed');
      assert.equal(failed!.attempt, 3);
      assert.equal(failed!.responseStatus, 500);
      assert.equal(failed!.responseExcerpt, 'receiver is down');
      // Disabled: no more deliveries, and the test is refused.
      await drawing(room, 'while disabled');
      const test = await call(s.t.app, 'POST', `${hooksUrl(room)}/${hook.id}/test`, { auth: owner() });
      assertError(test, 409, 'webhook_disabled');
      assert.equal((await deliveries(room, hook.id)).length, 1);
    } finally {
      receiver.status = 204;
    }
    // Enabled again by its owner, it sends its test.
    const enabled = await call(s.t.app, 'PATCH', `${hooksUrl(room)}/${hook.id}`, {
      auth: owner(),
      body: { enabled: true },
    });
    assert.equal(enabled.json().disabledReason, null);
    const start = receiver.received.length;
    const test = await call(s.t.app, 'POST', `${hooksUrl(room)}/${hook.id}/test`, { auth: owner() });
    assert.equal(test.statusCode, 202, test.body);
    await receiver.waitFor(start + 1);
    const got = JSON.parse(receiver.received.at(-1)!.body);
    assert.equal(got.type, 'webhook.test');
    assert.equal(got.objectId, hook.id);
  });

  test('a change waits for the one before it to be delivered', async () => {
    const { room } = await newRoomWithHook({ events: ['drawing.created'] });
    receiver.status = 503;
    const start = receiver.received.length;
    await drawing(room, 'first');
    await receiver.waitFor(start + 1);
    receiver.status = 204;
    await drawing(room, 'second');
    await receiver.waitFor(start + 3);
    const labels = receiver.received.slice(start, start + 3).map((r) => JSON.parse(r.body).data.label);
    assert.deepEqual(labels, ['first', 'first', 'second']);
  });

  test('a redirect is not followed and a slow receiver is given up on', async () => {
    const { room, hook } = await newRoomWithHook({ events: ['drawing.created'] });
    receiver.status = 302;
    try {
      await drawing(room, 'redirected');
      const [first] = await until(
        () => deliveries(room, hook.id),
        (list) => list[0]?.attempt === 1,
      );
      assert.equal(first!.responseStatus, 302);
      assert.equal(first!.status, 'pending');
    } finally {
      receiver.status = 204;
    }
    const slow = await newRoomWithHook({ events: ['drawing.created'] });
    receiver.delayMs = 2000;
    try {
      await drawing(slow.room, 'slow');
      const [timedOut] = await until(
        () => deliveries(slow.room, slow.hook.id),
        (list) => list[0]?.attempt === 1,
      );
      assert.equal(timedOut!.responseStatus, null);
      assert.equal(timedOut!.responseExcerpt, 'no answer within 500 ms');
    } finally {
      receiver.delayMs = 0;
    }
  });
});

describe('tests of a hook', () => {
  test('at most 10 a minute per hook: the 11th is 429, another hook is not held back', async () => {
    const { room, hook } = await newRoomWithHook({ events: ['drawing.created'] });
    const sendTest = (hookId: string) => call(s.t.app, 'POST', `${hooksUrl(room)}/${hookId}/test`, { auth: owner() });
    for (let i = 0; i < 10; i++) assert.equal((await sendTest(hook.id)).statusCode, 202);
    const refused = await sendTest(hook.id);
    assertError(refused, 429, 'too_many_requests');
    assert.equal(refused.headers['retry-after'], '60');
    const other = await call(s.t.app, 'POST', hooksUrl(room), { auth: owner(), body: { url: receiver.url } });
    assert.equal((await sendTest(other.json().id)).statusCode, 202);
  });
});
