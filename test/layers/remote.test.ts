/**
 * Remote layers: `POST /api/rooms/:roomId/layers/remote` reads an address in a job and makes
 * a layer that says where it comes from (`source`); `POST /api/layers/:layerId/refresh` reads
 * it again and, when something changed, replaces the data in one history entry with the counts.
 * A failing source keeps the data and says why; private addresses follow the outbound rule.
 * Sources are served by a real HTTP server on loopback (allowed here by OUTBOUND_ALLOW_PRIVATE).
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import {
  assertError,
  assertFieldError,
  assertOk,
  call,
  roomHistory,
  scaffold,
  type TestApp,
  type Users,
} from '../helpers.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { createInlineLayer, features, type Layer, listLayers, uploadLayers } from '../support/layers.js';

let t: TestApp;
let users: Users;
let room: string;
let server: Server;
let origin: string;
/** What the loopback server answers, by path: a body and its type, or a status. */
const served = new Map<string, { body: string; type: string } | { status: number }>();

const point = (id: number, name: string, lon: number) => ({
  type: 'Feature',
  id,
  geometry: { type: 'Point', coordinates: [lon, 46.9] },
  properties: { name },
});
const collection = (...features: unknown[]) => ({ type: 'FeatureCollection', features });
const serveJson = (path: string, body: unknown) =>
  served.set(path, { body: JSON.stringify(body), type: 'application/geo+json' });

before(async () => {
  ({ t, users, room } = await scaffold({ config: { outboundAllowPrivate: true } }));
  server = createServer((req, res) => {
    const answer = served.get(req.url ?? '');
    if (!answer) return res.writeHead(404).end('absent');
    if ('status' in answer) return res.writeHead(answer.status).end('down');
    res.writeHead(200, { 'content-type': answer.type }).end(answer.body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  server?.close();
  await t?.close();
});

/** The job's last state, once it ended. */
async function jobEnd(jobId: string): Promise<Record<string, any>> {
  for (let attempt = 0; attempt < 3000; attempt++) {
    const job = assertOk(await call(t.app, 'GET', `/api/jobs/${jobId}`, { auth: users.owner.token }));
    if (job.stage === 'complete' || job.stage === 'error') return job;
    await sleep(10);
  }
  assert.fail(`job ${jobId} did not end`);
}

async function addRemote(path: string, body: Record<string, unknown> = {}) {
  const res = await call(t.app, 'POST', `/api/rooms/${room}/layers/remote`, {
    auth: users.editor.token,
    body: { url: `${origin}${path}`, name: 'Stations', ...body },
  });
  const { jobId } = assertOk(res, 202);
  const job = await jobEnd(jobId);
  assert.equal(job.stage, 'complete', job.message);
  return layerOf(job.layerId);
}

async function layerOf(id: string): Promise<Layer & { source: any }> {
  const layer = (await listLayers(t.app, room, users.owner.token)).find((l) => l.id === id);
  assert.ok(layer, `layer ${id} is listed`);
  return layer as Layer & { source: any };
}

const refresh = async (layerId: string) =>
  jobEnd(
    assertOk(await call(t.app, 'POST', `/api/layers/${layerId}/refresh`, { auth: users.editor.token }), 202).jobId,
  );

const names = async (layerId: string) =>
  (await features(t.app, layerId, users.owner.token)).features.map((f: any) => f.properties.name).sort();

describe('a layer read from an address', () => {
  test('is made by a job, says where it comes from, and keeps points as a layer', async () => {
    serveJson('/stations.geojson', collection(point(1, 'Bern', 7.44), point(2, 'Thun', 7.63)));
    const layer = await addRemote('/stations.geojson', { refreshMinutes: 60 });
    assert.equal(layer.name, 'Stations');
    assert.equal(layer.geometryType, 'Point');
    assert.equal(layer.featureCount, 2);
    assert.equal(layer.source.url, `${origin}/stations.geojson`);
    assert.equal(layer.source.refreshMinutes, 60);
    assert.equal(typeof layer.source.lastRefreshAt, 'number');
    assert.equal(layer.source.lastError, null);
    assert.deepEqual(await names(layer.id), ['Bern', 'Thun']);
  });

  test('has the fields and values the same file has uploaded (read without GDAL, typed as GDAL types it)', async () => {
    const values = [
      { name: 'Bern', rank: 1, height: 540, code: 7, opened: '1858-06-01', tags: ['sbb'], staffed: true, note: null },
      { name: 'Thun', rank: 2, height: 559.5, code: 'T1', opened: '1859-07-01', tags: ['sbb', 'bls'], staffed: false },
    ];
    const source = {
      type: 'FeatureCollection',
      crs: { type: 'name', properties: { name: 'urn:ogc:def:crs:OGC:1.3:CRS84' } },
      features: values.map((properties, i) => ({ ...point(i + 10, properties.name, 7.4 + i / 10), properties })),
    };
    serveJson('/typed.geojson', source);
    const remote = await addRemote('/typed.geojson');
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'typed-')), 'typed.geojson');
    writeFileSync(file, JSON.stringify(source));
    const { layer: uploaded } = await uploadLayers(t.app, room, file, users.owner.token, { as: 'layer' });
    assert.deepEqual(remote.fields, uploaded.fields);
    assert.deepEqual(
      remote.fields.map((field: { name: string; type: string }) => `${field.name}:${field.type}`),
      [
        'name:text',
        'rank:integer',
        'height:real',
        'code:text',
        'opened:date',
        'tags:json',
        'staffed:boolean',
        'note:text',
        'id:integer',
      ],
    );
    const read = async (layerId: string) =>
      (await features(t.app, layerId, users.owner.token)).features
        .map((f) => f.properties)
        .sort((a, b) => Number(a.rank) - Number(b.rank));
    const stored = await read(remote.id);
    assert.deepEqual(stored, await read(uploaded.id));
    assert.equal(stored[0]!.code, '7', 'a number in a text field is stored as text');
  });

  test('reads a CSV by its content type, and follows redirects', async () => {
    served.set('/export', { body: 'name,lon,lat\nBiel,7.24,47.13\n', type: 'text/csv' });
    const redirecting = createServer((_, res) => res.writeHead(302, { location: `${origin}/export` }).end());
    redirecting.listen(0, '127.0.0.1');
    await once(redirecting, 'listening');
    try {
      const port = (redirecting.address() as AddressInfo).port;
      const res = await call(t.app, 'POST', `/api/rooms/${room}/layers/remote`, {
        auth: users.owner.token,
        body: { url: `http://127.0.0.1:${port}/old`, name: 'Towns' },
      });
      const job = await jobEnd(assertOk(res, 202).jobId);
      assert.equal(job.stage, 'complete', job.message);
      assert.deepEqual(await names(job.layerId), ['Biel']);
      assert.equal((await layerOf(job.layerId)).sourceFormat, 'csv');
    } finally {
      redirecting.close();
    }
  });

  test('follows an OGC API Features collection through its items and pages', async () => {
    const base = '/ogc/collections/huts';
    serveJson(base, { id: 'huts', links: [{ rel: 'items', href: `${base}/items`, type: 'application/geo+json' }] });
    serveJson(`${base}/items`, {
      ...collection(point(1, 'Hut A', 7.1), point(2, 'Hut B', 7.2)),
      links: [{ rel: 'next', href: `${base}/items?offset=2`, type: 'application/geo+json' }],
    });
    serveJson(`${base}/items?offset=2`, { ...collection(point(3, 'Hut C', 7.3)), links: [] });
    const layer = await addRemote(base);
    assert.deepEqual(await names(layer.id), ['Hut A', 'Hut B', 'Hut C']);
  });

  test('a large source is read as members after its features say: a CRS, a next page', async () => {
    // Over 1 MiB, a source is read on the strength of the members before its features; these
    // come after them, and the read is decided again on the whole file.
    const note = 'x'.repeat(64 * 1024);
    const named = (n: number) => Array.from({ length: n }, (_, i) => point(i + 1, `n${i + 1}`, 7 + i / 100));
    const metres = named(20).map((f) => {
      const [lon, lat] = f.geometry.coordinates as [number, number];
      const x = (lon * 20037508.342789244) / 180;
      const y = Math.log(Math.tan(((90 + lat) * Math.PI) / 360)) * 6378137;
      return { ...f, geometry: { type: 'Point', coordinates: [x, y] }, properties: { ...f.properties, note } };
    });
    serveJson('/mercator.geojson', {
      type: 'FeatureCollection',
      features: metres,
      crs: { type: 'name', properties: { name: 'urn:ogc:def:crs:EPSG::3857' } },
    });
    const projected = await addRemote('/mercator.geojson');
    assert.equal(projected.sourceCrs, 'EPSG:3857');
    const read = (await features(t.app, projected.id, users.owner.token)).features;
    assert.equal(read.length, 20);
    const first = read.find((f) => f.properties.name === 'n1')!;
    const [lon, lat] = first.geometry.coordinates as number[];
    assert.ok(Math.abs(lon! - 7) < 1e-6 && Math.abs(lat! - 46.9) < 1e-6, `reprojected: ${lon}, ${lat}`);

    const base = '/pages/items';
    serveJson(base, {
      type: 'FeatureCollection',
      features: named(20).map((f) => ({ ...f, properties: { ...f.properties, note } })),
      links: [{ rel: 'next', href: `${base}?page=2`, type: 'application/geo+json' }],
    });
    serveJson(`${base}?page=2`, collection(point(21, 'n21', 7.3)));
    const paged = await addRemote(base);
    assert.equal(paged.featureCount, 21);
    assert.ok((await names(paged.id)).includes('n21'), 'the next page is read');
  });

  test('a refresh that changes something is one history entry with its counts', async () => {
    serveJson('/lines.geojson', collection(point(1, 'a', 7.0), point(2, 'b', 7.1), point(3, 'c', 7.2)));
    const layer = await addRemote('/lines.geojson');
    const edited = assertOk(
      await call(t.app, 'PATCH', `/api/layers/${layer.id}/features/2`, {
        auth: users.editor.token,
        body: { properties: { name: 'b' } },
      }),
    );
    // a unchanged, b changed (moved), c unchanged, d added.
    const moved = [point(1, 'a', 7.0), point(2, 'b', 7.15), point(3, 'c', 7.2)];
    serveJson('/lines.geojson', collection(...moved, point(4, 'd', 7.3)));
    const job = await refresh(layer.id);
    assert.equal(job.stage, 'complete', job.message);
    assert.deepEqual([job.added, job.changed, job.removed], [1, 1, 0]);
    assert.deepEqual(await names(layer.id), ['a', 'b', 'c', 'd']);
    assert.equal((await layerOf(layer.id)).featureCount, 4);
    const entry = (await roomHistory(t.app, room, users.owner.token)).find(
      (e: any) => e.objectId === layer.id && e.changes?.refreshed,
    );
    assert.ok(entry, 'the refresh is in history');
    assert.deepEqual(entry.changes?.refreshed, { added: 1, changed: 1, removed: 0 });
    // A change based on the feature as it was before the refresh is refused.
    assertError(
      await call(t.app, 'PATCH', `/api/layers/${layer.id}/features/2`, {
        auth: users.editor.token,
        body: { properties: { name: 'x' }, ifVersion: edited.version },
      }),
      409,
      'version_conflict',
    );
    serveJson('/lines.geojson', collection(...moved));
    const removed = await refresh(layer.id);
    assert.deepEqual([removed.added, removed.changed, removed.removed], [0, 0, 1]);
    assert.deepEqual(await names(layer.id), ['a', 'b', 'c']);
    // Nothing changed since: no entry.
    const entries = (await roomHistory(t.app, room, users.owner.token)).length;
    const again = await refresh(layer.id);
    assert.equal(again.stage, 'complete');
    assert.deepEqual([again.added, again.changed, again.removed], [0, 0, 0]);
    assert.equal((await roomHistory(t.app, room, users.owner.token)).length, entries);
  });

  test('a failing source keeps the data and says why', async () => {
    serveJson('/flaky.geojson', collection(point(1, 'kept', 7.0)));
    const layer = await addRemote('/flaky.geojson');
    served.set('/flaky.geojson', { status: 503 });
    const job = await refresh(layer.id);
    assert.equal(job.stage, 'error');
    assert.match(job.message, /503/);
    const after = await layerOf(layer.id);
    assert.match(after.source.lastError, /503/);
    assert.equal(after.source.lastRefreshAt, layer.source.lastRefreshAt);
    assert.deepEqual(await names(layer.id), ['kept']);
    // Not a vector file: refused with the upload's reason, data kept.
    served.set('/flaky.geojson', { body: 'hello', type: 'text/plain' });
    assert.equal((await refresh(layer.id)).stage, 'error');
    assert.deepEqual(await names(layer.id), ['kept']);
    // Projected metres, found as the features are read: the reader's words, data kept.
    const projected = { ...point(1, 'metres', 7.0), geometry: { type: 'Point', coordinates: [2600000, 1200000] } };
    serveJson('/flaky.geojson', collection(projected));
    const refused = await refresh(layer.id);
    assert.equal(refused.stage, 'error');
    assert.match(refused.message, /look projected.*first at feature 1/);
    assert.match((await layerOf(layer.id)).source.lastError, /look projected/);
    assert.deepEqual(await names(layer.id), ['kept']);
    serveJson('/flaky.geojson', collection(point(1, 'back', 7.0)));
    assert.equal((await refresh(layer.id)).stage, 'complete');
    assert.equal((await layerOf(layer.id)).source.lastError, null);
    assert.deepEqual(await names(layer.id), ['back']);
  });

  test('its schedule is changed with the layer, and only a remote layer has one', async () => {
    serveJson('/schedule.geojson', collection(point(1, 'a', 7.0)));
    const layer = await addRemote('/schedule.geojson');
    assert.equal(layer.source.refreshMinutes, null);
    const patched = assertOk(
      await call(t.app, 'PATCH', `/api/rooms/${room}/layers/${layer.id}`, {
        auth: users.editor.token,
        body: { refreshMinutes: 15 },
      }),
    );
    assert.equal(patched.layer.source.refreshMinutes, 15);
    // Due since its last try a quarter of an hour ago: the sweep, run as the service starts, refreshes it.
    serveJson('/schedule.geojson', collection(point(1, 'scheduled', 7.0)));
    await t.database.db
      .updateTable('layers')
      .set({ last_attempt_at: Date.now() - 16 * 60_000 })
      .where('id', '=', layer.id)
      .execute();
    await t.restart();
    for (let i = 0; i < 3000 && (await names(layer.id))[0] !== 'scheduled'; i++) await sleep(10);
    assert.deepEqual(await names(layer.id), ['scheduled']);
    const entry = (await roomHistory(t.app, room, users.owner.token)).find(
      (e: any) => e.objectId === layer.id && e.changes?.refreshed,
    );
    assert.equal(entry?.actor.id, users.editor.id, JSON.stringify(entry));
    const plain = await createInlineLayer(t.app, room, users.owner.token, {
      geojson: collection(point(1, 'p', 7)),
    });
    assertFieldError(
      await call(t.app, 'PATCH', `/api/rooms/${room}/layers/${plain.id}`, {
        auth: users.editor.token,
        body: { refreshMinutes: 15 },
      }),
      'body.refreshMinutes',
    );
    assert.equal(plain.source, null);
    assertError(
      await call(t.app, 'POST', `/api/layers/${plain.id}/refresh`, { auth: users.editor.token }),
      409,
      'not_remote',
    );
  });

  test('bad requests are refused with the field named; viewers cannot add one', async () => {
    const post = (body: unknown, auth = users.editor.token) =>
      call(t.app, 'POST', `/api/rooms/${room}/layers/remote`, { auth, body });
    assertFieldError(await post({ url: 'ftp://example.com/a.geojson', name: 'x' }), 'body.url');
    assertFieldError(await post({ url: `${origin}/a`, name: 'x', refreshMinutes: 1 }), 'body.refreshMinutes');
    assertFieldError(await post({ url: `${origin}/a` }), 'body.name');
    assertError(await post({ url: `${origin}/a`, name: 'x' }, users.viewer.token), 403, 'forbidden');
  });
});

describe('private addresses', () => {
  let strict: TestApp;
  let strictUsers: Users;
  let strictRoom: string;
  before(async () => {
    ({ t: strict, users: strictUsers, room: strictRoom } = await scaffold());
  });
  after(async () => {
    await strict?.close();
  });

  test('are refused unless the operator allows them, and no layer is made', async () => {
    serveJson('/private.geojson', collection(point(1, 'a', 7.0)));
    const { port } = new URL(origin);
    const post = (url: string) =>
      call(strict.app, 'POST', `/api/rooms/${strictRoom}/layers/remote`, {
        auth: strictUsers.owner.token,
        body: { url, name: 'Inside' },
      });
    // An address that says it is private is refused at once.
    for (const url of [`${origin}/private.geojson`, `http://localhost:${port}/private.geojson`])
      assertFieldError(await post(url), 'body.url');
    // A name that resolves to one (this machine's own) is refused when the job connects.
    const { jobId } = assertOk(await post(`http://${hostname()}:${port}/private.geojson`), 202);
    let job: Record<string, any> = {};
    for (let i = 0; i < 3000 && !['complete', 'error'].includes(job.stage); i++) {
      job = assertOk(await call(strict.app, 'GET', `/api/jobs/${jobId}`, { auth: strictUsers.owner.token }));
      await sleep(10);
    }
    assert.equal(job.stage, 'error');
    assert.match(job.message, /private address/);
    assert.deepEqual(await listLayers(strict.app, strictRoom, strictUsers.owner.token), []);
  });
});
