/**
 * An embed key on the live channel (docs/decisions.md, "Embedding"): as `?access_token=` it
 * listens to its room (so an embedded map is live), is not present in the room, and its
 * socket closes at once when the key is revoked, and at the next heartbeat once it has
 * expired. It does not hear comments, members, or the layers it is not limited to.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertOk, call, scaffold, type TestApp, type Users } from '../helpers.js';
import { TWO_SQUARES } from '../support/layers.js';
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

test('a key hears no comments, no member changes, and no layer (nor its features) it is not limited to', async () => {
  const owner = users.owner.token;
  const post = async (url: string, body: object) => {
    const res = await call(t.app, 'POST', url, { auth: owner, body });
    assert.ok([200, 201].includes(res.statusCode), res.body);
    return res.json();
  };
  const shown = (await post(`/api/rooms/${room}/layers`, { name: 'Shown', geojson: TWO_SQUARES })).layer.id;
  const other = (await post(`/api/rooms/${room}/layers`, { name: 'Other', geojson: TWO_SQUARES })).layer.id;
  const created = await post(`/api/rooms/${room}/embed-keys`, { name: 'Limited', expiresInDays: 1, layers: [shown] });
  const client = new LiveClient(`${wsBase}/api/rooms/${room}/live?access_token=${created.key}`);
  clients.push(client);
  assert.equal((await client.at(0)).type, 'hello');
  const rename = (layerId: string, name: string) =>
    call(t.app, 'PATCH', `/api/rooms/${room}/layers/${layerId}`, { auth: owner, body: { name } });
  assertOk(await rename(other, 'Other renamed'));
  await post(`/api/rooms/${room}/comments`, { objectType: 'layer', objectId: shown, body: 'Only for members' });
  // An edit of the other layer's features is not heard either: it carries the feature.
  const otherFeature = (await call(t.app, 'GET', `/api/layers/${other}/features`, { auth: owner })).json().features[0];
  const edit = (layerId: string, id: number) =>
    call(t.app, 'PATCH', `/api/layers/${layerId}/features/${id}`, {
      auth: owner,
      body: { properties: { name: 'edited' } },
    });
  assertOk(await edit(other, otherFeature.id));
  assertOk(await rename(shown, 'Shown renamed'));
  const next = await client.at(1);
  assert.equal(next.type, 'layer.updated');
  assert.equal(next.objectId, shown, "the other layer, its feature's edit and the comment were not sent");
  const shownFeature = (await call(t.app, 'GET', `/api/layers/${shown}/features`, { auth: owner })).json().features[0];
  assertOk(await edit(shown, shownFeature.id));
  const heard = await client.at(2);
  assert.equal(heard.type, 'feature.updated');
  assert.equal(heard.objectId, `${shown}:${shownFeature.id}`);
});

test('a key that expires while its socket is open is cut off at the next heartbeat', async () => {
  // Heartbeats every second, and no cached key: the expiry is seen at the first beat after it.
  const quick = await scaffold({ listen: true, config: { liveHeartbeatMs: 1000, accessCacheTtlMs: 0 } });
  try {
    const created = assertOk(
      await call(quick.t.app, 'POST', `/api/rooms/${quick.room}/embed-keys`, {
        auth: quick.users.owner.token,
        body: { name: 'Expiring', expiresInDays: 1 },
      }),
      201,
    );
    const client = new LiveClient(`${quick.wsBase}/api/rooms/${quick.room}/live?access_token=${created.key}`);
    clients.push(client);
    assert.equal((await client.at(0)).type, 'hello');
    // Its day is over (the row says so: a test does not wait a day).
    await quick.t.database.db
      .updateTable('embed_keys')
      .set({ expires_at: Date.now() - 1 })
      .where('id', '=', created.id)
      .execute();
    const guard = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('still open')), 10_000).unref());
    const closed = await Promise.race([client.closed, guard]);
    assert.equal(closed.code, 4401, closed.reason);
  } finally {
    await quick.t.close();
  }
});
