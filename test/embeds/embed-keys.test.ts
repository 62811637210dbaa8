/**
 * Embed keys (docs/decisions.md, "Embedding"): an owner issues, lists and revokes them; a key
 * reads its room like a viewer on the routes an embedded map needs, limited to its layers, and
 * never changes anything, reads history or members, or reaches another room or the account.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError, assertOk, assertValidation, call, createRoom, scaffold, type Users } from '../helpers.js';
import { TWO_SQUARES } from '../support/layers.js';
import type { TestApp } from '../helpers.js';

let t: TestApp;
let users: Users;
let room: string;
let otherRoom: string;
let layerA: string;
let layerB: string;
let markerId: string;

const keysOf = (roomId: string) => `/api/rooms/${roomId}/embed-keys`;

async function issueKey(roomId: string, body: Record<string, unknown> = {}) {
  return assertOk(
    await call(t.app, 'POST', keysOf(roomId), {
      auth: users.owner.token,
      body: { name: 'Site', expiresInDays: 30, ...body },
    }),
    201,
  );
}

before(async () => {
  const s = await scaffold({ rooms: ['room', 'otherRoom'] });
  ({ t, users, room, otherRoom } = s);
  const post = async (url: string, body: unknown) => {
    const res = await call(t.app, 'POST', url, { auth: users.owner.token, body });
    return assertOk(res, res.statusCode === 201 ? 201 : 200);
  };
  layerA = (await post(`/api/rooms/${room}/layers`, { name: 'A', geojson: TWO_SQUARES })).layer.id;
  layerB = (await post(`/api/rooms/${room}/layers`, { name: 'B', geojson: TWO_SQUARES })).layer.id;
  markerId = (await post(`/api/rooms/${room}/markers`, { latitude: 46.95, longitude: 7.45, title: 'Bern' })).marker.id;
});
after(async () => {
  await t?.close();
});

describe('issuing, listing and revoking embed keys', () => {
  test('the key is shown once, as mre_ and 43 URL-safe characters; the list has no secret', async () => {
    const created = await issueKey(room, { name: ' Blog ' });
    assert.match(created.key, /^mre_[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(Object.keys(created).sort(), ['expiresAt', 'id', 'key', 'layers', 'name']);
    assert.equal(created.name, 'Blog');
    assert.equal(created.layers, null);
    const approx = Date.now() + 30 * 24 * 3600 * 1000;
    assert.ok(Math.abs(created.expiresAt - approx) < 60_000);
    const { keys } = assertOk(await call(t.app, 'GET', keysOf(room), { auth: users.owner.token }));
    const listed = keys.find((k: { id: string }) => k.id === created.id);
    assert.deepEqual(Object.keys(listed).sort(), ['createdAt', 'expiresAt', 'id', 'lastUsedAt', 'layers', 'name']);
    assert.equal(listed.lastUsedAt, null);
    assert.ok(!JSON.stringify(keys).includes(created.key.slice(4)), 'no secret in the list');
    const row = await t.database.db
      .selectFrom('embed_keys')
      .selectAll()
      .where('id', '=', created.id)
      .executeTakeFirst();
    assert.ok(
      row && row.key_hash !== created.key && !row.key_hash.includes(created.key.slice(4)),
      'only a hash is kept',
    );
  });

  test('the list records a use ("listed with its use")', async () => {
    const created = await issueKey(room);
    assertOk(await call(t.app, 'GET', `/api/rooms/${room}/markers`, { auth: created.key }));
    const { keys } = assertOk(await call(t.app, 'GET', keysOf(room), { auth: users.owner.token }));
    const listed = keys.find((k: { id: string }) => k.id === created.id);
    assert.equal(typeof listed.lastUsedAt, 'number');
  });

  test('only the owner manages keys; bodies are checked', async () => {
    for (const who of ['editor', 'viewer', 'stranger'] as const)
      assertError(await call(t.app, 'GET', keysOf(room), { auth: users[who].token }), 403, 'forbidden');
    assertError(await call(t.app, 'GET', keysOf(room)), 401, 'unauthorized');
    const post = (body: unknown) => call(t.app, 'POST', keysOf(room), { auth: users.owner.token, body });
    assertValidation(await post({ name: 'x', expiresInDays: 0 }), 'expiresInDays');
    assertValidation(await post({ name: 'x', expiresInDays: 366 }), 'expiresInDays');
    assertValidation(await post({ name: '', expiresInDays: 1 }), 'name');
    assertValidation(await post({ name: 'x', expiresInDays: 1, layers: ['layer-nothere000000000'] }), 'layers');
    const key = (await issueKey(room)).key;
    // A key cannot manage keys either.
    assertError(await call(t.app, 'GET', keysOf(room), { auth: key }), 403, 'api_token_not_allowed');
  });

  test('layers given are kept; a raster or vector layer of another room is refused', async () => {
    const created = await issueKey(room, { layers: [layerA, layerA] });
    assert.deepEqual(created.layers, [layerA]);
    const foreign = assertOk(
      await call(t.app, 'POST', `/api/rooms/${otherRoom}/layers`, {
        auth: users.owner.token,
        body: { name: 'F', geojson: TWO_SQUARES },
      }),
    ).layer.id;
    assertValidation(
      await call(t.app, 'POST', keysOf(room), {
        auth: users.owner.token,
        body: { name: 'x', expiresInDays: 1, layers: [foreign] },
      }),
      'layers',
    );
  });

  test('revoking answers 204 and takes effect at once (401); an unknown key id is 404', async () => {
    const created = await issueKey(room);
    assertOk(await call(t.app, 'GET', `/api/rooms/${room}/markers`, { auth: created.key }));
    const res = await call(t.app, 'DELETE', `${keysOf(room)}/${created.id}`, { auth: users.owner.token });
    assert.equal(res.statusCode, 204, res.body);
    assertError(
      await call(t.app, 'GET', `/api/rooms/${room}/markers`, { auth: created.key }),
      401,
      'unauthorized',
      'Invalid or expired embed key',
    );
    assertError(
      await call(t.app, 'DELETE', `${keysOf(room)}/${created.id}`, { auth: users.owner.token }),
      404,
      'not_found',
    );
    const { keys } = assertOk(await call(t.app, 'GET', keysOf(room), { auth: users.owner.token }));
    assert.ok(!keys.some((k: { id: string }) => k.id === created.id));
  });

  test('an expired key is 401', async () => {
    const created = await issueKey(room);
    await t.database.db
      .updateTable('embed_keys')
      .set({ expires_at: Date.now() - 1000 })
      .where('id', '=', created.id)
      .execute();
    assertError(await call(t.app, 'GET', `/api/rooms/${room}/markers`, { auth: created.key }), 401, 'unauthorized');
  });
});

describe('what a key reads', () => {
  let key: string;
  before(async () => {
    key = (await issueKey(room)).key;
  });

  test("it reads its private room's markers, drawings, layers, tiles, settings and deck", async () => {
    const base = `/api/rooms/${room}`;
    const markers = assertOk(await call(t.app, 'GET', `${base}/markers`, { auth: key }));
    assert.ok(JSON.stringify(markers).includes(markerId));
    assertOk(await call(t.app, 'GET', `${base}/markers/${markerId}`, { auth: key }));
    assertOk(await call(t.app, 'GET', `${base}/drawings`, { auth: key }));
    const { layers } = assertOk(await call(t.app, 'GET', `/api/layers/${room}`, { auth: key }));
    assert.deepEqual(layers.map((l: { id: string }) => l.id).sort(), [layerA, layerB].sort());
    assertOk(await call(t.app, 'GET', `${base}/raster-layers`, { auth: key }));
    assertOk(await call(t.app, 'GET', `/api/layers/${layerA}/features`, { auth: key }));
    const tile = await call(t.app, 'GET', `/api/layers/${layerA}/tiles/12/2132/1448.mvt`, { auth: key });
    assert.ok([200, 204].includes(tile.statusCode), `${tile.statusCode} ${tile.body}`);
    assertOk(await call(t.app, 'GET', base, { auth: key }));
    assert.equal(assertOk(await call(t.app, 'GET', `${base}/info`, { auth: key })).requiresAuth, false);
    assertOk(await call(t.app, 'GET', `${base}/presentation`, { auth: key }));
    assertOk(await call(t.app, 'GET', `${base}/marker-icons`, { auth: key }));
  });

  test('every change is 403 embed_key_read_only', async () => {
    const base = `/api/rooms/${room}`;
    const writes: [string, string, unknown][] = [
      ['POST', `${base}/markers`, { latitude: 1, longitude: 1, title: 'x' }],
      ['PATCH', `${base}/markers/${markerId}`, { title: 'y' }],
      ['DELETE', `${base}/markers/${markerId}`, undefined],
      ['POST', `${base}/drawings`, { geometry: { type: 'Point', coordinates: [1, 1] } }],
      ['POST', `${base}/comments`, { objectId: markerId, objectType: 'marker', body: 'hi' }],
      ['POST', `${base}/layers`, { name: 'x', geojson: TWO_SQUARES }],
      ['POST', `${base}/export-jobs`, {}],
    ];
    for (const [method, url, body] of writes)
      assertError(await call(t.app, method as 'POST', url, { auth: key, body }), 403, 'embed_key_read_only');
    assert.equal(
      assertOk(await call(t.app, 'GET', `${base}/markers/${markerId}`, { auth: users.owner.token })).marker.title,
      'Bern',
    );
  });

  test('history, comments, search, members, tokens and webhooks-like owner routes are not for keys', async () => {
    const base = `/api/rooms/${room}`;
    for (const url of [
      `${base}/history`,
      `${base}/comments`,
      `${base}/search?q=Bern`,
      `${base}/presence`,
      `${base}/export-manifest`,
    ])
      assertError(await call(t.app, 'GET', url, { auth: key }), 403, 'embed_key_not_allowed');
    for (const url of [`${base}/members`, `${base}/api-tokens`, `${base}/embed-keys`, `${base}/embedding`])
      assertError(await call(t.app, 'GET', url, { auth: key }), 403, 'api_token_not_allowed');
  });

  test('account routes refuse it as a room token; another room is 403', async () => {
    assertError(await call(t.app, 'GET', '/api/auth/me', { auth: key }), 403, 'api_token_not_allowed');
    assertError(await call(t.app, 'GET', '/api/rooms', { auth: key }), 403, 'api_token_not_allowed');
    assertError(await call(t.app, 'GET', `/api/rooms/${otherRoom}/markers`, { auth: key }), 403, 'forbidden');
    const another = await createRoom(t.app, users.owner);
    assertError(await call(t.app, 'GET', `/api/rooms/${another}`, { auth: key }), 403, 'forbidden');
  });
});

describe('a key limited to layers', () => {
  test('reads its layers, and hears 404 for another, which the lists leave out', async () => {
    const { key } = await issueKey(room, { layers: [layerA] });
    assertOk(await call(t.app, 'GET', `/api/layers/${layerA}/features`, { auth: key }));
    assertError(await call(t.app, 'GET', `/api/layers/${layerB}/features`, { auth: key }), 404, 'not_found');
    assertError(
      await call(t.app, 'GET', `/api/layers/${layerB}/tiles/12/2132/1448.mvt`, { auth: key }),
      404,
      'not_found',
    );
    assertError(await call(t.app, 'GET', `/api/layers/${layerB}/attributes`, { auth: key }), 404, 'not_found');
    assertOk(await call(t.app, 'GET', `/api/layers/${layerA}/fields`, { auth: key }));
    assertError(await call(t.app, 'GET', `/api/layers/${layerB}/fields`, { auth: key }), 404, 'not_found');
    const { layers } = assertOk(await call(t.app, 'GET', `/api/layers/${room}`, { auth: key }));
    assert.deepEqual(
      layers.map((l: { id: string }) => l.id),
      [layerA],
    );
    // The owner still sees both.
    const all = assertOk(await call(t.app, 'GET', `/api/layers/${room}`, { auth: users.owner.token }));
    assert.equal(all.layers.length >= 2, true);
  });
});
