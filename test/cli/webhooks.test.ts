/**
 * `maproom webhooks` against a running service and a receiver on loopback: add (the secret
 * printed once), list, test, deliveries and remove.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createRoom } from '../helpers.js';
import { type CliWorld, cliRoomId, cliWorld, runCli } from '../support/cli.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

let world: CliWorld;
let receiver: WebhookReceiver;
let room: string;

const cli = (args: string[]) => runCli(args, { url: world.url, configHome: world.home, token: world.owner.token });

before(async () => {
  world = await cliWorld({ outboundAllowPrivate: true });
  receiver = await WebhookReceiver.start();
  room = await createRoom(world.t.app, world.owner, cliRoomId());
});
after(async () => {
  await receiver?.close();
  await world?.close();
});

test('webhooks add, list, test, deliveries and remove', async () => {
  const added = await cli([
    '--json',
    'webhooks',
    'add',
    room,
    receiver.url,
    '--events',
    'marker.created,drawing.created',
  ]);
  assert.equal(added.code, 0, added.stderr);
  const hook = JSON.parse(added.stdout);
  assert.match(hook.secret, /^whsec_/);
  assert.deepEqual(hook.events, ['marker.created', 'drawing.created']);

  const listed = await cli(['webhooks', 'list', room]);
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(
    listed.stdout,
    new RegExp(`${hook.id}\\s+${receiver.url.replace(/[.]/g, '\\.')}\\s+marker.created,drawing.created\\s+yes`),
  );
  assert.ok(!listed.stdout.includes(hook.secret), 'the list never shows the secret');

  const sent = await cli(['webhooks', 'test', room, hook.id]);
  assert.equal(sent.code, 0, sent.stderr);
  await receiver.waitFor(1);
  assert.equal(JSON.parse(receiver.received[0]!.body).type, 'webhook.test');
  let log = '';
  for (let i = 0; i < 50 && !/delivered/.test(log); i++)
    log = (await cli(['webhooks', 'deliveries', room, hook.id])).stdout;
  assert.match(log, /webhook\.test\s+delivered\s+1\s+204/);

  const refused = await cli(['webhooks', 'add', room, receiver.url, '--events', 'marker.exploded']);
  assert.notEqual(refused.code, 0);
  assert.match(refused.stderr, /events/);

  const removed = await cli(['webhooks', 'remove', room, hook.id]);
  assert.equal(removed.code, 0, removed.stderr);
  assert.equal((await cli(['webhooks', 'remove', room, hook.id])).code === 0, false);
});
