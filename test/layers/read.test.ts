/**
 * Reading vector layers: `GET /api/layers/:roomName`, `GET /api/layers/:layerId/features`
 * (whole, by bbox from the spatial index, simplified by `zoom`), and for a layer of 40,000
 * polygons written by GDAL, the chunk manifest (`complete: false`, `directChunks`) and the
 * chunks route: every feature exactly once across the chunks, ids stable, chunks compact.
 * Contract: docs/http-interface.md ("Feature fetch rules"), docs/contract-decisions.md ("Vector layers in detail").
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  assertError,
  assertFieldError,
  assertOk,
  call,
  createRoomWithMembers,
  labelled,
  scaffold,
  type TestApp,
  type Users,
} from '../helpers.js';
import {
  completedJob,
  createInlineLayer,
  type Feature,
  type FeatureCollection,
  features,
  LAYER_KEYS,
  type Layer,
  listLayers,
  squareFeature,
  uploadFile,
  uploadLayers,
} from '../support/layers.js';
import { makeVectorFixtures } from '../vector-fixtures.js';

let t: TestApp;
let users: Users;
let room: string;
let otherRoom: string;
let fixtures: ReturnType<typeof makeVectorFixtures>;

before(async () => {
  fixtures = makeVectorFixtures('many');
  ({ t, users, room, otherRoom } = await scaffold({ rooms: ['room', 'otherRoom'] }));
});
after(async () => {
  await t?.close();
  fixtures?.remove();
});

const query = (q: Record<string, string | number>) =>
  new URLSearchParams(Object.entries(q).map(([k, v]) => [k, String(v)])).toString();
const area = ([w, s, e, n]: number[]) => (e! - w!) * (n! - s!);
const vertexCount = (feature: Feature) => JSON.stringify(feature.geometry.coordinates).match(/\[-?\d/g)!.length;

describe('GET /api/layers/:roomName', () => {
  test("lists the room's vector layers oldest first, with every field; another room's are not there", async () => {
    const roomId = await createRoomWithMembers(t.app, users);
    assert.deepEqual(await listLayers(t.app, roomId, users.owner.token), []);
    const a = await createInlineLayer(t.app, roomId, users.owner.token, { name: 'A' });
    const b = await createInlineLayer(t.app, roomId, users.editor.token, { name: 'B' });
    await createInlineLayer(t.app, otherRoom, users.owner.token, { name: 'elsewhere' });
    const listed = await listLayers(t.app, roomId, users.viewer.token);
    assert.deepEqual(listed, [a, b]);
    for (const layer of listed) assert.deepEqual(Object.keys(layer).sort(), LAYER_KEYS);
  });
});

describe('GET /api/layers/:layerId/features', () => {
  let layer: Layer;
  before(async () => {
    // Four squares: three near Bern (west, middle, east) and one in Zurich.
    const geojson = {
      type: 'FeatureCollection',
      features: [
        squareFeature(7.4, 46.95, 0.01, { name: 'west' }),
        squareFeature(7.45, 46.95, 0.01, { name: 'middle' }),
        squareFeature(7.5, 46.95, 0.01, { name: 'east' }),
        squareFeature(8.54, 47.37, 0.01, { name: 'zurich' }),
      ],
    };
    layer = await createInlineLayer(t.app, room, users.owner.token, { name: 'Squares', geojson });
  });

  test('without a bbox: the whole layer as a FeatureCollection, _metadata.complete true', async () => {
    const res = await call(t.app, 'GET', `/api/layers/${layer.id}/features`, { auth: users.viewer.token });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/geo\+json/);
    // Never in a shared cache (the room may become private), never sniffed as something else.
    assert.equal(res.headers['cache-control'], 'private, max-age=60');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    const body = res.json() as FeatureCollection;
    assert.deepEqual(Object.keys(body), ['type', 'features', '_metadata']);
    assert.equal(body.type, 'FeatureCollection');
    assert.deepEqual(body._metadata, { complete: true, featureCount: 4 });
    assert.deepEqual(body.features.map((f) => f.properties.name).sort(), ['east', 'middle', 'west', 'zurich']);
    for (const feature of body.features) {
      assert.deepEqual(Object.keys(feature), ['type', 'id', 'geometry', 'properties']);
      assert.equal(feature.geometry.type, 'Polygon');
    }
    assert.deepEqual(
      await features(t.app, layer.id, users.owner.token),
      body,
      'the same answer every time, ids included',
    );
  });

  test('with a bbox: only the features that reach into it, from the spatial index', async () => {
    const names = async (bbox: number[]) => {
      const [minLon, minLat, maxLon, maxLat] = bbox;
      const body = await features(
        t.app,
        layer.id,
        users.owner.token,
        query({ minLon: minLon!, minLat: minLat!, maxLon: maxLon!, maxLat: maxLat! }),
      );
      assert.equal(body._metadata.complete, true);
      assert.equal(body._metadata.featureCount, body.features.length);
      return body.features.map((f) => f.properties.name).sort();
    };
    assert.deepEqual(await names([7.3, 46.9, 7.6, 47.0]), ['east', 'middle', 'west']);
    assert.deepEqual(await names([7.44, 46.94, 7.46, 46.96]), ['middle']);
    assert.deepEqual(await names([7.395, 46.9, 7.455, 47.0]), ['middle', 'west'], 'touching is enough');
    assert.deepEqual(await names([8, 47, 9, 48]), ['zurich']);
    assert.deepEqual(await names([-10, -10, -9, -9]), []);
    assert.deepEqual(await names([-180, -90, 180, 90]), ['east', 'middle', 'west', 'zurich']);
    assert.deepEqual(await names([7.45, 46.95, 7.45, 46.95]), ['middle'], 'a point is a bbox');
  });

  test('a bad bbox or zoom is 400 naming the parameter', async () => {
    const good = { minLon: 7, minLat: 46, maxLon: 8, maxLat: 47 };
    const cases: [string, Record<string, string | number>, string[]][] = [
      ['minLon over maxLon', { ...good, minLon: 9 }, ['minLon']],
      ['minLat over maxLat', { ...good, minLat: 48 }, ['minLat']],
      ['a non-number', { ...good, maxLat: 'north' }, ['querystring.maxLat']],
      ['an empty value', { ...good, minLon: '' }, ['querystring.minLon', 'minLon']],
      ['longitude below -180', { ...good, minLon: -181 }, ['querystring.minLon']],
      ['longitude above 180', { ...good, maxLon: 180.5 }, ['querystring.maxLon']],
      ['latitude above 90', { ...good, maxLat: 91 }, ['querystring.maxLat']],
      ['latitude below -90', { ...good, minLat: -90.1 }, ['querystring.minLat']],
      ['one of the four', { minLon: 7 }, ['querystring', 'minLat']],
      ['two of the four', { minLon: 7, maxLon: 8 }, ['querystring', 'minLat']],
      ['three of the four', { minLon: 7, minLat: 46, maxLon: 8 }, ['querystring', 'maxLat']],
      ['zoom 25', { zoom: 25 }, ['querystring.zoom']],
      ['zoom -1', { zoom: -1 }, ['querystring.zoom']],
      ['zoom a word', { zoom: 'far' }, ['querystring.zoom']],
    ];
    for (const [name, q, fields] of cases) {
      const res = await call(t.app, 'GET', `/api/layers/${layer.id}/features?${query(q)}`, { auth: users.owner.token });
      labelled(name, () => assertFieldError(res, ...fields));
    }
  });

  test('an unknown layer is 404', async () => {
    assertError(
      await call(t.app, 'GET', '/api/layers/layer-doesnotexist00/features', { auth: users.owner.token }),
      404,
      'not_found',
    );
    assertError(
      await call(t.app, 'GET', '/api/layers/layer-doesnotexist00/features/chunks/0', { auth: users.owner.token }),
      404,
      'not_found',
    );
  });
});

describe('zoom simplification', () => {
  test('a detailed line has fewer vertices at low zooms, nearly all at high zooms, all of them without zoom', async () => {
    const { layer } = await uploadLayers(t.app, room, fixtures.file('detailed_line.geojson'), users.owner.token);
    const at = async (zoom?: number) => {
      const body = await features(t.app, layer.id, users.owner.token, zoom === undefined ? '' : query({ zoom }));
      assert.equal(body.features.length, 1, 'simplification never drops the line');
      assert.equal(body.features[0]!.geometry.type, 'LineString');
      return vertexCount(body.features[0]!);
    };
    const whole = await at();
    assert.equal(whole, 4000);
    const counts = [await at(2), await at(6), await at(10), await at(14), await at(22)];
    assert.ok(counts[0]! >= 2 && counts[0]! < 50, `zoom 2 keeps a handful of vertices: ${counts}`);
    for (let i = 1; i < counts.length; i++)
      assert.ok(counts[i]! >= counts[i - 1]!, `more detail as the zoom grows: ${counts}`);
    assert.ok(counts[2]! < whole, `zoom 10 is simplified: ${counts}`);
    // At zoom 22 a pixel is a few centimetres: only vertices that lie on a straight run go.
    assert.ok(counts[4]! > 0.9 * whole, `zoom 22 keeps nearly every vertex: ${counts}`);
    // A bbox answer is simplified alike.
    const boxed = await features(
      t.app,
      layer.id,
      users.owner.token,
      query({ minLon: 7, minLat: 46, maxLon: 8, maxLat: 47, zoom: 2 }),
    );
    assert.equal(vertexCount(boxed.features[0]!), counts[0]);
  });
});

describe('a layer over 10,000 features: the chunk manifest and the chunks', () => {
  let layer: Layer;
  let manifest: FeatureCollection;
  const chunkFeatures = new Map<number, Feature>();

  before(async () => {
    const res = await uploadFile(t.app, room, fixtures.file('many_polygons.gpkg'), users.owner.token, {
      layerName: 'Grid',
    });
    const job = await completedJob(t.app, assertOk(res, 202).jobId, users.owner.token);
    layer = (await listLayers(t.app, room, users.owner.token)).find((l) => l.id === job.layerId)!;
    manifest = await features(t.app, layer.id, users.viewer.token);
  });

  test('without a bbox: complete false, the feature count, and directChunks of at most 10,000 features each', async () => {
    assert.equal(layer.featureCount, 40_000);
    assert.equal(layer.geometryType, 'Polygon');
    assert.deepEqual(manifest.features, []);
    const meta = manifest._metadata;
    assert.equal(meta.complete, false);
    assert.equal(meta.featureCount, 40_000);
    assert.ok(Array.isArray(meta.directChunks) && meta.directChunks.length >= 4, JSON.stringify(meta));
    let total = 0;
    for (const [index, chunk] of meta.directChunks.entries()) {
      assert.deepEqual(Object.keys(chunk).sort(), ['bbox', 'featureCount', 'path']);
      assert.equal(chunk.path, `/api/layers/${layer.id}/features/chunks/${index}`);
      assert.ok(chunk.featureCount > 0 && chunk.featureCount <= 10_000);
      total += chunk.featureCount;
    }
    assert.equal(total, 40_000);
  });

  test('every chunk path answers its features; together they are every feature of the file exactly once', async () => {
    const cells = new Set<string>();
    for (const chunk of manifest._metadata.directChunks) {
      const body = assertOk(await call(t.app, 'GET', chunk.path, { auth: users.viewer.token })) as FeatureCollection;
      assert.equal(body._metadata.complete, true);
      assert.equal(body.features.length, chunk.featureCount);
      for (const feature of body.features) {
        assert.ok(!chunkFeatures.has(feature.id), `feature ${feature.id} is in one chunk only`);
        chunkFeatures.set(feature.id, feature);
        cells.add(feature.properties.cell as string);
      }
    }
    assert.equal(chunkFeatures.size, 40_000);
    assert.equal(cells.size, 40_000, 'every cell GDAL wrote, once');
    // Fetched again, a chunk is the same, ids included.
    const again = assertOk(
      await call(t.app, 'GET', manifest._metadata.directChunks[1].path, { auth: users.owner.token }),
    );
    for (const feature of again.features) assert.deepEqual(feature, chunkFeatures.get(feature.id));
  });

  test("chunks are spatially coherent: each chunk's features lie in its bbox, which is much smaller than the layer's", async () => {
    const layerArea = area(layer.bbox!);
    for (const chunk of manifest._metadata.directChunks) {
      const [w, s, e, n] = chunk.bbox;
      const body = assertOk(await call(t.app, 'GET', chunk.path, { auth: users.owner.token })) as FeatureCollection;
      for (const feature of body.features) {
        for (const [lon, lat] of feature.geometry.coordinates[0])
          assert.ok(lon >= w && lon <= e && lat >= s && lat <= n, `${chunk.path}: ${lon},${lat} outside ${chunk.bbox}`);
      }
      // 10,000 features taken at random from 40,000 would span the whole layer.
      assert.ok(
        area(chunk.bbox) < 0.5 * layerArea,
        `${chunk.path}: bbox ${chunk.bbox} covers ${((100 * area(chunk.bbox)) / layerArea).toFixed(0)}% of the layer`,
      );
    }
  });

  test('a bbox over 10,000 features answers the chunks that touch it; a small bbox answers its features with the same ids', async () => {
    const wide = await features(
      t.app,
      layer.id,
      users.owner.token,
      query({ minLon: 5.9, minLat: 45.8, maxLon: 8, maxLat: 48 }),
    );
    assert.equal(wide._metadata.complete, false);
    assert.ok(wide._metadata.directChunks.length >= 1);
    const touches = (b: number[]) => b[0]! <= 8 && b[2]! >= 5.9;
    for (const chunk of wide._metadata.directChunks) assert.ok(touches(chunk.bbox), `${chunk.path} touches the bbox`);
    assert.ok(
      wide._metadata.directChunks.length < manifest._metadata.directChunks.length,
      'chunks far from the bbox are left out',
    );

    const small = await features(
      t.app,
      layer.id,
      users.owner.token,
      query({ minLon: 7, minLat: 46.5, maxLon: 7.3, maxLat: 46.7 }),
    );
    assert.equal(small._metadata.complete, true);
    assert.ok(small.features.length > 100 && small.features.length < 10_000, `${small.features.length} features`);
    if (chunkFeatures.size === 0) return; // the union test did not run
    for (const feature of small.features)
      assert.deepEqual(feature, chunkFeatures.get(feature.id), 'the same feature under the same id');
  });

  test('a chunk index past the last is 404; a non-integer index is 400', async () => {
    const count = manifest._metadata.directChunks.length;
    assertError(
      await call(t.app, 'GET', `/api/layers/${layer.id}/features/chunks/${count}`, { auth: users.owner.token }),
      404,
      'not_found',
    );
    assertFieldError(
      await call(t.app, 'GET', `/api/layers/${layer.id}/features/chunks/one`, { auth: users.owner.token }),
      'params.chunkIndex',
      'chunkIndex',
    );
    assertFieldError(
      await call(t.app, 'GET', `/api/layers/${layer.id}/features/chunks/-1`, { auth: users.owner.token }),
      'params.chunkIndex',
      'chunkIndex',
    );
  });
});
