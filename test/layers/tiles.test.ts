/**
 * `GET /api/layers/:layerId/tiles/:z/:x/:y.mvt`, decoded with @mapbox/vector-tile: one tile
 * layer named `features`, extent 4096, feature ids and properties kept, geometry where the
 * features are, clipped to the tile; an empty tile is 204; the ETag revalidates (304) and
 * changes when the layer does; a tile that does not exist is 400.
 * Contract: docs/contract-decisions.md ("Vector layers in detail": vector tiles).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { VectorTile } from '@mapbox/vector-tile';
import { PbfReader } from 'pbf';
import {
  assertError,
  assertFieldError,
  assertOk,
  call,
  labelled,
  scaffold,
  type TestApp,
  type Users,
} from '../helpers.js';
import { createInlineLayer, features, type Layer, squareFeature, uploadLayers } from '../support/layers.js';
import { makeVectorFixtures } from '../vector-fixtures.js';

let t: TestApp;
let users: Users;
let room: string;
let fixtures: ReturnType<typeof makeVectorFixtures>;
let layer: Layer;

const BERN = [7.4474, 46.948] as const;

before(async () => {
  fixtures = makeVectorFixtures();
  ({ t, users, room } = await scaffold());
  const geojson = {
    type: 'FeatureCollection',
    features: [
      squareFeature(BERN[0], BERN[1], 0.001, { name: 'Bern', height: 540, open: true }),
      // A square of 4 degrees around Bern: it crosses every tile boundary near Bern.
      squareFeature(BERN[0], BERN[1], 2, { name: 'Region' }),
      {
        type: 'Feature',
        properties: { name: 'Road' },
        geometry: {
          type: 'LineString',
          coordinates: [
            [7.44, 46.94],
            [7.46, 46.96],
          ],
        },
      },
    ],
  };
  layer = await createInlineLayer(t.app, room, users.owner.token, { name: 'Tiles', geojson });
});
after(async () => {
  await t?.close();
  fixtures?.remove();
});

/** The tile z/x/y holding a longitude/latitude (the XYZ scheme, as OpenStreetMap numbers tiles). */
function tileOf(lon: number, lat: number, z: number) {
  const n = 2 ** z;
  const x = Math.floor(((lon + 180) / 360) * n);
  const rad = (lat * Math.PI) / 180;
  const y = Math.floor(((1 - Math.log(Math.tan(rad) + 1 / Math.cos(rad)) / Math.PI) / 2) * n);
  return { z, x, y };
}

const tileUrl = (layerId: string, { z, x, y }: { z: number; x: number; y: number }) =>
  `/api/layers/${layerId}/tiles/${z}/${x}/${y}.mvt`;
const getTile = (url: string, auth = users.viewer.token, headers: Record<string, string> = {}) =>
  call(t.app, 'GET', url, { auth, headers });
const decode = (res: { rawPayload: Buffer }) => new VectorTile(new PbfReader(new Uint8Array(res.rawPayload)));

describe('vector tiles', () => {
  test('one tile layer named features, extent 4096; ids and properties as the features route has them', async () => {
    const tile = tileOf(BERN[0], BERN[1], 14);
    const res = await getTile(tileUrl(layer.id, tile));
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['content-type'], 'application/vnd.mapbox-vector-tile');
    const decoded = decode(res);
    assert.deepEqual(Object.keys(decoded.layers), ['features']);
    const tileLayer = decoded.layers.features!;
    assert.equal(tileLayer.version, 2);
    assert.equal(tileLayer.extent, 4096);
    const served = (await features(t.app, layer.id, users.owner.token)).features;
    const tileFeatures = Array.from({ length: tileLayer.length }, (_, i) => tileLayer.feature(i));
    assert.deepEqual(
      tileFeatures.map((f) => f.id).sort(),
      served.map((f) => f.id).sort(),
      'every feature reaches into this tile',
    );
    for (const feature of tileFeatures) {
      const source = served.find((f) => f.id === feature.id)!;
      assert.deepEqual({ ...feature.properties }, source.properties, `properties of ${source.properties.name}`);
      assert.equal(feature.type, source.geometry.type === 'LineString' ? 2 : 3);
    }
  });

  test('geometry is in the right place (within a tile unit), and clipped to the tile with its buffer', async () => {
    const tile = tileOf(BERN[0], BERN[1], 14);
    const decoded = decode(await getTile(tileUrl(layer.id, tile))).layers.features!;
    const byName = new Map(
      Array.from({ length: decoded.length }, (_, i) => decoded.feature(i)).map((f) => [f.properties.name, f]),
    );
    const bern = byName.get('Bern')!.toGeoJSON(tile.x, tile.y, tile.z) as { geometry: { coordinates: number[][][] } };
    const unit = 360 / 2 ** tile.z / 4096;
    const corners = [
      [-1, -1],
      [1, -1],
      [1, 1],
      [-1, 1],
    ].map(([dx, dy]) => [BERN[0] + dx! * 0.001, BERN[1] + dy! * 0.001]);
    for (const [lon, lat] of bern.geometry.coordinates[0]!) {
      assert.ok(
        corners.some(([a, b]) => Math.abs(lon! - a!) <= unit && Math.abs(lat! - b!) <= unit),
        `${lon}, ${lat} is a corner of the Bern square`,
      );
    }
    // The 4-degree region is cut at the tile's edges (plus a small buffer), not drawn whole.
    for (const point of byName.get('Region')!.loadGeometry().flat()) {
      assert.ok(
        point.x >= -256 && point.x <= 4096 + 256 && point.y >= -256 && point.y <= 4096 + 256,
        `${point.x}, ${point.y}`,
      );
    }
  });

  test('a tile at zoom 0 holds the layer; a tile where nothing is answers 204 with no body', async () => {
    const world = decode(await getTile(tileUrl(layer.id, { z: 0, x: 0, y: 0 }))).layers.features!;
    assert.ok(world.length >= 1, 'at least the region shows at zoom 0');
    const empty = await getTile(tileUrl(layer.id, tileOf(-70, -30, 10)));
    assert.equal(empty.statusCode, 204);
    assert.equal(empty.rawPayload.length, 0);
    const farCorner = await getTile(tileUrl(layer.id, { z: 3, x: 0, y: 7 }));
    assert.equal(farCorner.statusCode, 204);
  });

  test('a big layer written by GDAL tiles too: the LV95 shapefile at Bern', async () => {
    const { layer: swiss } = await uploadLayers(t.app, room, fixtures.file('lv95.zip'), users.owner.token);
    const tile = tileOf(7.4386, 46.9484, 15);
    const decoded = decode(await getTile(tileUrl(swiss.id, tile))).layers.features!;
    assert.equal(decoded.length, 1);
    assert.equal(decoded.feature(0).properties.name, 'Bern');
  });
});

describe('big layers at low zooms', () => {
  test('a dense layer covers its area at a low zoom (merged coverage), not one pixel per thinning cell', async () => {
    // 40 x 40 buildings of about 7 m, 300 m apart, in the middle of Bern's tile at zoom 10.
    const tile = tileOf(BERN[0], BERN[1], 10);
    const lonAt = (x: number) => (x / 2 ** 10) * 360 - 180;
    const latAt = (y: number) => (Math.atan(Math.sinh(Math.PI * (1 - (2 * y) / 2 ** 10))) * 180) / Math.PI;
    const [west, east] = [lonAt(tile.x + 0.25), lonAt(tile.x + 0.75)];
    const [north, south] = [latAt(tile.y + 0.25), latAt(tile.y + 0.75)];
    const buildings = [];
    for (let i = 0; i < 40; i++)
      for (let j = 0; j < 40; j++)
        buildings.push(
          squareFeature(west + ((i + 0.5) * (east - west)) / 40, south + ((j + 0.5) * (north - south)) / 40, 0.00005, {
            n: i * 40 + j,
          }),
        );
    const dense = await createInlineLayer(t.app, room, users.owner.token, {
      name: 'Buildings',
      geojson: { type: 'FeatureCollection', features: buildings },
    });
    const res = await getTile(tileUrl(dense.id, tile));
    assert.equal(res.statusCode, 200);
    const decoded = decode(res).layers.features!;
    let painted = 0;
    for (let i = 0; i < decoded.length; i++)
      for (const ring of decoded.feature(i).loadGeometry()) {
        let sum = 0;
        for (let a = 0, b = ring.length - 1; a < ring.length; b = a++)
          sum += (ring[b]!.x - ring[a]!.x) * (ring[a]!.y + ring[b]!.y);
        painted += sum / 2;
      }
    // The block is half the tile on each side: a quarter of 4096 x 4096 units.
    const block = (4096 * 4096) / 4;
    assert.ok(painted > 0.8 * block, `${Math.round(painted)} of ${block} tile units painted`);
    assert.ok(painted < 1.2 * block, `${Math.round(painted)} of ${block} tile units painted: no more than the block`);
    // Zoomed in, the buildings are themselves again, with their ids and properties.
    const close = decode(await getTile(tileUrl(dense.id, tileOf(west + 0.0001, north - 0.0001, 16)))).layers.features!;
    assert.ok(close.length >= 1);
    assert.equal(typeof close.feature(0).properties.n, 'number');
  });
});

describe('caching', () => {
  test('an ETag; If-None-Match with it is 304; a PATCH of the layer changes it', async () => {
    const url = tileUrl(layer.id, tileOf(BERN[0], BERN[1], 12));
    const first = await getTile(url);
    assert.equal(first.statusCode, 200);
    const etag = first.headers.etag as string;
    assert.ok(etag, 'an ETag');
    assert.match(String(first.headers['cache-control']), /private/);
    assert.equal(first.headers['x-content-type-options'], 'nosniff');
    const same = await getTile(url, users.owner.token, { 'if-none-match': etag });
    assert.equal(same.statusCode, 304);
    assert.equal(same.rawPayload.length, 0);
    assert.equal((await getTile(url)).headers.etag, etag, 'the same tile, the same ETag');
    assert.notEqual(
      (await getTile(tileUrl(layer.id, tileOf(BERN[0], BERN[1], 13)))).headers.etag,
      etag,
      'each tile its own ETag',
    );

    assertOk(
      await call(t.app, 'PATCH', `/api/rooms/${room}/layers/${layer.id}`, {
        auth: users.editor.token,
        body: { style: { color: '00ff00' } },
      }),
    );
    const changed = await getTile(url, users.owner.token, { 'if-none-match': etag });
    assert.equal(changed.statusCode, 200, 'the old ETag no longer matches');
    assert.notEqual(changed.headers.etag, etag);
    assert.equal(
      (await getTile(url, users.owner.token, { 'if-none-match': changed.headers.etag as string })).statusCode,
      304,
    );
  });
});

describe('tiles that do not exist', () => {
  test('bad z, x or y is 400; an unknown layer is 404', async () => {
    const cases: [string, string, (res: Awaited<ReturnType<typeof getTile>>) => void][] = [
      ['z 23', '23/0/0', (res) => assertFieldError(res, 'params.z')],
      ['z -1', '-1/0/0', (res) => assertFieldError(res, 'params.z')],
      [
        'x past 2^z',
        '2/4/0',
        (res) => assert.match(assertError(res, 400, 'validation_error').message, /no tile 2\/4\/0.*below 2\^z/),
      ],
      [
        'y past 2^z',
        '2/0/4',
        (res) => assert.match(assertError(res, 400, 'validation_error').message, /no tile 2\/0\/4.*below 2\^z/),
      ],
      ['x negative', '2/-1/0', (res) => assertFieldError(res, 'params.x')],
      ['a word', '2/a/0', (res) => assertFieldError(res, 'params.x')],
      ['a fraction', '2/1.5/0', (res) => assertFieldError(res, 'params.x')],
    ];
    for (const [name, zxy, check] of cases) {
      const res = await getTile(`/api/layers/${layer.id}/tiles/${zxy}.mvt`);
      labelled(name, () => check(res));
    }
    assertError(await getTile(tileUrl('layer-doesnotexist00', { z: 0, x: 0, y: 0 })), 404, 'not_found');
  });

  test('a tile outside the grid is 400 even with an If-None-Match naming it', async () => {
    // The ETag such a tile would have: a real tile's, with its z/x/y swapped for the missing tile's.
    const etag = (await getTile(tileUrl(layer.id, { z: 0, x: 0, y: 0 }))).headers.etag as string;
    const named = etag.replace(/-0-0-0"$/, '-2-4-0"');
    assert.notEqual(named, etag);
    const res = await getTile(`/api/layers/${layer.id}/tiles/2/4/0.mvt`, users.owner.token, { 'if-none-match': named });
    assert.match(assertError(res, 400, 'validation_error').message, /no tile 2\/4\/0/);
  });
});
