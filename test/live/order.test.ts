import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { InProcessLiveHub } from '../../src/infra/live-hub.js';
import { assertOk, call, scaffold, type TestApp, type Users } from '../helpers.js';
import { LiveClient } from '../support/live-client.js';
import { OvertakingHub } from '../support/overtaking-hub.js';

/**
 * The live channel sends changes in version order even when they are published out of order
 * (two writes at once; several instances: test/scale-out/live-two-instances.test.ts): a change
 * after a gap waits while history fills the gap, and the late change is not sent twice.
 */

let t: TestApp;
let users: Users;
let room: string;
let wsBase: string;
const hub = new OvertakingHub(new InProcessLiveHub());
const clients: LiveClient[] = [];

before(async () => {
  ({ t, users, room, wsBase } = await scaffold({ build: { liveHub: hub }, listen: true }));
});
after(async () => {
  for (const client of clients) client.terminate();
  await t?.close();
});

test('a change published before an earlier one: the client gets both once, in version order', async () => {
  const auth = users.owner.token;
  const marker = assertOk(
    await call(t.app, 'POST', `/api/rooms/${room}/markers`, { auth, body: { latitude: 1, longitude: 2, title: 'a' } }),
    201,
  ).marker;
  const client = new LiveClient(`${wsBase}/api/rooms/${room}/live?access_token=${auth}`);
  clients.push(client);
  const { version } = await client.at(0);
  const patch = (title: string) =>
    call(t.app, 'PATCH', `/api/rooms/${room}/markers/${marker.id}`, { auth, body: { title } });

  hub.hold();
  const first = patch('saved first, published last');
  await hub.heldOne;
  assertOk(await patch('saved second, published first'));
  assertOk(await first);
  await client.waitFor(3);
  await new Promise((resolve) => setTimeout(resolve, 100)); // a duplicate would come now
  await client.settled();
  assert.deepEqual(
    client.messages.slice(1).map((m) => [m.version, m.data.title]),
    [
      [version + 1, 'saved first, published last'],
      [version + 2, 'saved second, published first'],
    ],
  );
});
