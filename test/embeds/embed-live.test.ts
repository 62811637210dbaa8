/**
 * An embed key on the live channel (docs/decisions.md, "Embedding"): as `?access_token=` it
 * listens to its room (so an embedded map is live), is not present in the room, and its
 * socket closes at once when the key is revoked.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertOk, call, scaffold, type TestApp, type Users } from '../helpers.js';
import { LiveClient } from '../support/live-client.js';

let t: TestApp;
let users: Users;
let room: string;
let wsBase: string;
const clients: LiveClient[] = [];

before(async () => {
  ({ t, users, room, wsBase } = await scaffold({ listen: true }));
});
after(async () => {
  for (const client of clients) client.ws.terminate();
  await t?.close();
});

test('a key listens with ?access_token=, is not present, and is cut off when revoked', async () => {
  const created = assertOk(
    await call(t.app, 'POST', `/api/rooms/${room}/embed-keys`, {
      auth: users.owner.token,
      body: { name: 'Live', expiresInDays: 1 },
    }),
    201,
  );
  const client = new LiveClient(`${wsBase}/api/rooms/${room}/live?presence=true&access_token=${created.key}`);
  clients.push(client);
  assert.equal((await client.at(0)).type, 'hello');
  const marker = assertOk(
    await call(t.app, 'POST', `/api/rooms/${room}/markers`, {
      auth: users.owner.token,
      body: { latitude: 46.9, longitude: 7.4, title: 'Live' },
    }),
    201,
  ).marker;
  const event = await client.at(1);
  assert.equal(event.type, 'marker.created');
  assert.equal(event.objectId, marker.id);

  const present = assertOk(await call(t.app, 'GET', `/api/rooms/${room}/presence`, { auth: users.owner.token }));
  assert.ok(!JSON.stringify(present).includes(created.id), `the key is not present: ${JSON.stringify(present)}`);

  const res = await call(t.app, 'DELETE', `/api/rooms/${room}/embed-keys/${created.id}`, { auth: users.owner.token });
  assert.equal(res.statusCode, 204);
  const { code } = await client.closed;
  assert.equal(code, 4401, 'closed as no valid credential');
});
