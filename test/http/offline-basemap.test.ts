import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError, buildTestApp, type Response, type TestApp } from '../helpers.js';

/**
 * The offline base map the service ships (src/http/offline-basemap.ts): Natural Earth's land
 * and countries as TopoJSON, public, cached, re-checked by ETag; every other name is a 404 with
 * the error body. And an own tile server (`basemapTiles`) offered first, the offline map and
 * the blank one always.
 */
const FILE = '/basemap/countries-50m.json';

describe('the offline base map', () => {
  let t: TestApp;
  let own: TestApp;
  before(async () => {
    t = await buildTestApp();
    own = await buildTestApp({
      basemaps: 'none',
      basemapTiles: 'http://127.0.0.1:9/{z}/{x}/{y}.png',
      basemapAttribution: '© Our tiles',
    });
  });
  after(async () => {
    await Promise.all([t?.close(), own?.close()]);
  });
  const get = (app: TestApp, url: string, headers: Record<string, string> = {}) =>
    app.app.inject({ method: 'GET', url, headers }) as Promise<Response>;

  test('answers the TopoJSON of land and countries to anyone, cached for a day, with an ETag', async () => {
    const res = await get(t, FILE);
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.equal(res.headers['cache-control'], 'public, max-age=86400');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.match(String(res.headers.etag), /^"[A-Za-z0-9_-]{27}"$/);
    const topology = res.json() as { type: string; objects: Record<string, { geometries: unknown[] }> };
    assert.equal(topology.type, 'Topology');
    assert.ok(topology.objects.land, 'land');
    assert.ok(topology.objects.countries!.geometries.length > 200, 'the countries');
  });

  test('answers 304 with no body to a re-check with its ETag, the file again to another ETag', async () => {
    const etag = String((await get(t, FILE)).headers.etag);
    const again = await get(t, FILE, { 'If-None-Match': etag });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
    assert.equal(again.headers.etag, etag);
    const changed = await get(t, FILE, { 'If-None-Match': '"another"' });
    assert.equal(changed.statusCode, 200);
    assert.ok(changed.body.length > 100_000);
  });

  test('answers 404 with the error body for any other file, and never serves the package beside it', async () => {
    for (const name of [
      'land-10m.json',
      'package.json',
      'countries-50m.json.gz',
      '..%2Fpackage.json',
      'x'.repeat(101),
    ]) {
      const res = await get(t, `/basemap/${name}`);
      assert.ok([400, 404].includes(res.statusCode), `${name}: ${res.statusCode}`);
      assertError(res, res.statusCode, res.statusCode === 404 ? 'not_found' : 'validation_error');
    }
  });

  test('an own tile server comes first, then the offline map and the blank one, even with no public base layers', async () => {
    const { baseLayers } = (await import('../../src/http/web-app.js')).webConfigOf(own.config);
    assert.deepEqual(
      baseLayers.map((layer) => [layer.id, layer.tiles, layer.attribution]),
      [
        ['own', 'http://127.0.0.1:9/{z}/{x}/{y}.png', '© Our tiles'],
        ['offline', null, 'Natural Earth'],
        ['blank', null, ''],
      ],
    );
    const builtin = (await import('../../src/http/web-app.js')).webConfigOf(t.config).baseLayers.map((l) => l.id);
    assert.deepEqual(builtin.slice(-2), ['offline', 'blank']);
    assert.equal(builtin[0], 'osm');
  });
});
