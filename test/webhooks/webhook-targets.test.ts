/**
 * Webhooks may not reach private addresses unless the operator allows it
 * (OUTBOUND_ALLOW_PRIVATE): literal addresses are refused when the hook is made, names that
 * resolve to one when a delivery is sent. Contract: docs/decisions.md ("Webhooks").
 */
import assert from 'node:assert/strict';
import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { after, describe, test } from 'node:test';
import { assertError, call, createRoomWithMembers, scaffoldSuite } from '../helpers.js';
import { until } from '../support/browser.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { isPublicAddress } from '../../src/infra/outbound.js';

const s = scaffoldSuite({ rooms: [], config: { webhookRetryDelaysMs: '60000' } }, async () => {
  receiver = await WebhookReceiver.start();
});
let receiver: WebhookReceiver;
after(() => receiver?.close());

const owner = () => s.users.owner.token;

describe('private addresses', () => {
  test('loopback, private, link-local and unique-local addresses are refused when the hook is made', async () => {
    const room = await createRoomWithMembers(s.t.app, s.users);
    for (const url of [
      'http://127.0.0.1:9/x',
      'http://localhost/x',
      'http://10.1.2.3/x',
      'http://192.168.0.1/x',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]/x',
      'http://[fd00::1]/x',
      'http://[::ffff:127.0.0.1]/x',
      'http://0.0.0.0/x',
    ]) {
      const res = await call(s.t.app, 'POST', `/api/rooms/${room}/webhooks`, { auth: owner(), body: { url } });
      assertError(res, 400, 'webhook_url_refused');
    }
    const publicHook = await call(s.t.app, 'POST', `/api/rooms/${room}/webhooks`, {
      auth: owner(),
      body: { url: 'https://hooks.example.com/maproom' },
    });
    assert.equal(publicHook.statusCode, 201, publicHook.body);
  });

  test('a name that resolves to a private address is refused when a delivery is sent', async (t) => {
    const name = hostname();
    const resolved = await lookup(name).catch(() => undefined);
    if (!resolved || isPublicAddress(resolved.address)) return t.skip(`${name} does not resolve to a private address`);
    const room = await createRoomWithMembers(s.t.app, s.users);
    const url = receiver.url.replace('127.0.0.1', name);
    const made = await call(s.t.app, 'POST', `/api/rooms/${room}/webhooks`, { auth: owner(), body: { url } });
    assert.equal(made.statusCode, 201, made.body);
    const hookId = made.json().id;
    await call(s.t.app, 'POST', `/api/rooms/${room}/webhooks/${hookId}/test`, { auth: owner() });
    const [refused] = await until(
      async () =>
        (await call(s.t.app, 'GET', `/api/rooms/${room}/webhooks/${hookId}/deliveries`, { auth: owner() })).json()
          .deliveries,
      (list: Array<Record<string, unknown>>) => list[0]?.attempt === 1,
    );
    assert.equal(refused.responseStatus, null);
    assert.equal(refused.responseExcerpt, `${name} resolves to a private address`);
    assert.equal(receiver.received.length, 0, 'the receiver was never reached');
  });
});

describe('isPublicAddress', () => {
  test('judges public unicast only', () => {
    for (const a of ['8.8.8.8', '2a00:1450:4001::1', '::ffff:8.8.8.8']) assert.equal(isPublicAddress(a), true, a);
    for (const a of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.0.1',
      '100.64.0.1',
      '169.254.1.1',
      '::1',
      'fe80::1',
      'fc00::1',
      '224.0.0.1',
      '::ffff:192.168.1.1',
      'not an ip',
    ])
      assert.equal(isPublicAddress(a), false, a);
  });
});
