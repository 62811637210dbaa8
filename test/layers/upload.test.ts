/**
 * `POST /api/layers/upload` with files written by GDAL: what each becomes (a layer per feature
 * table, or markers when every feature is a point), in which CRS (the LV95 datum check against
 * GDAL's own reprojection), the layer's fields, `style`, and files over 5 MB as jobs.
 * Contract: docs/http-interface.md ("Layers and uploads"), docs/contract-decisions.md ("Layers and
 * rasters", "Vector layers in detail", "Jobs").
 */
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import {
  assertError,
  assertFieldError,
  assertOk,
  call,
  issueToken,
  labelled,
  roomCounts,
  scaffold,
  type TestApp,
  type Users,
} from '../helpers.js';
import {
  completedJob,
  DEFAULT_STYLE,
  features,
  LAYER_KEYS,
  type Layer,
  listLayers,
  STYLE_KEYS,
  storedState,
  tmpLeftovers,
  uploadBytes,
  uploadFile,
  uploadLayers,
} from '../support/layers.js';
import { makeVectorFixtures } from '../vector-fixtures.js';

let t: TestApp;
let users: Users;
let room: string;
let fixtures: ReturnType<typeof makeVectorFixtures>;

before(async () => {
  fixtures = makeVectorFixtures('over5mb');
  ({ t, users, room } = await scaffold());
});
after(async () => {
  await t?.close();
  fixtures?.remove();
});

const file = (name: string) => fixtures.file(name);

/** Metres between two longitude/latitude positions a few metres apart (local flat approximation). */
function metresBetween([lon1, lat1]: number[], [lon2, lat2]: number[]) {
  const dx = (lon2! - lon1!) * Math.cos(((lat1! + lat2!) / 2) * (Math.PI / 180)) * 111_320;
  const dy = (lat2! - lat1!) * 110_574;
  return Math.hypot(dx, dy);
}

/** Every vertex of `actual` lies within `metres` of a vertex of `expected`, with as many vertices. */
function assertRingsClose(actual: number[][][], expected: number[][][], metres: number, label: string) {
  const a = actual.flat();
  const e = expected.flat();
  assert.equal(a.length, e.length, `${label}: vertex count`);
  for (const position of a) {
    const nearest = Math.min(...e.map((other) => metresBetween(position, other)));
    assert.ok(
      nearest < metres,
      `${label}: ${JSON.stringify(position)} is ${nearest.toFixed(3)} m from GDAL's nearest vertex`,
    );
  }
}

function assertLayerShape(layer: Layer) {
  assert.deepEqual(Object.keys(layer).sort(), LAYER_KEYS);
  assert.match(layer.id, /^layer-/);
  assert.deepEqual(Object.keys(layer.style).sort(), STYLE_KEYS);
  assert.ok(Number.isInteger(layer.sizeBytes) && layer.sizeBytes > 0, 'sizeBytes counts the stored features');
  assert.ok(Number.isInteger(layer.createdAt) && layer.createdAt > 0);
  assert.ok(layer.updatedAt >= layer.createdAt);
  assert.equal(layer.bbox!.length, 4);
  const [w, s, e, n] = layer.bbox!;
  assert.ok(w! <= e! && s! <= n! && w! >= -180 && e! <= 180 && s! >= -90 && n! <= 90, `bbox ${layer.bbox}`);
}

describe('vector files become layers', () => {
  test('a zipped shapefile in LV95 (EPSG:2056) lands within 1 m of where ogr2ogr -t_srs EPSG:4326 puts it', async () => {
    const token = await issueToken(t.app, users.owner, room, ['read', 'upload']);
    const { layer, layers } = await uploadLayers(t.app, room, file('lv95.zip'), token.token, {
      layerName: 'Swiss places',
    });
    assertLayerShape(layer);
    assert.deepEqual(layers, [layer]);
    assert.equal(layer.name, 'Swiss places');
    assert.equal(layer.description, null);
    assert.equal(layer.featureCount, 3);
    assert.equal(layer.geometryType, 'Polygon');
    assert.equal(layer.sourceFormat, 'shapefile');
    assert.equal(layer.sourceCrs, 'EPSG:2056');
    assert.deepEqual(layer.style, DEFAULT_STYLE);
    assert.equal(layer.createdBy, token.id);

    const reference = JSON.parse(readFileSync(file('lv95_reference.geojson'), 'utf8'));
    const served = await features(t.app, layer.id, token.token);
    assert.equal(served.features.length, 3);
    for (const expected of reference.features) {
      const name = expected.properties.name;
      const got = served.features.find((f) => f.properties.name === name);
      assert.ok(got, `the feature ${name}`);
      assert.equal(got.geometry.type, 'Polygon');
      assertRingsClose(got.geometry.coordinates, expected.geometry.coordinates, 1, name);
    }
    // The layer's bbox holds every vertex GDAL wrote.
    const [w, s, e, n] = layer.bbox!;
    for (const [lon, lat] of reference.features.flatMap((f: any) => f.geometry.coordinates.flat())) {
      assert.ok(
        lon >= w! - 1e-6 && lon <= e! + 1e-6 && lat >= s! - 1e-6 && lat <= n! + 1e-6,
        `${lon},${lat} in ${layer.bbox}`,
      );
    }
  });

  test('a GeoPackage with two feature tables (and an attribute table) gives one layer per feature table', async () => {
    const { layer, layers } = await uploadLayers(t.app, room, file('two_tables.gpkg'), users.editor.token, {
      layerName: 'Survey',
    });
    assert.equal(layers.length, 2, 'the attribute table is not a layer');
    assert.deepEqual(layer, layers[0]);
    for (const each of layers) assertLayerShape(each);
    const byTable = Object.fromEntries(layers.map((l) => [l.name.includes('roads') ? 'roads' : 'parcels', l]));
    assert.ok(byTable.roads && byTable.parcels, `layer names name their table: ${layers.map((l) => l.name)}`);
    assert.notEqual(byTable.roads.name, byTable.parcels.name);
    assert.ok(layers.every((l) => l.name.startsWith('Survey')));
    assert.equal(byTable.roads.geometryType, 'LineString');
    assert.equal(byTable.roads.featureCount, 2);
    assert.equal(byTable.roads.sourceCrs, 'EPSG:4326');
    assert.equal(byTable.parcels.geometryType, 'Polygon', 'multi-parts are folded in');
    assert.equal(byTable.parcels.featureCount, 1);
    assert.equal(byTable.parcels.sourceCrs, 'EPSG:2056');
    for (const each of layers) {
      assert.equal(each.sourceFormat, 'geopackage');
      assert.equal(each.createdBy, users.editor.id);
    }
    const roads = await features(t.app, byTable.roads.id, users.owner.token);
    assert.deepEqual(roads.features.map((f) => f.properties.name).sort(), ['A1', 'A9']);
    const parcel = (await features(t.app, byTable.parcels.id, users.owner.token)).features[0]!;
    const [lon, lat] = parcel.geometry.coordinates[0][0][0];
    assert.ok(
      Math.abs(lon - 7.4386) < 0.001 && Math.abs(lat - 46.9484) < 0.001,
      `the LV95 parcel is in Bern: ${lon}, ${lat}`,
    );
    const listed = (await listLayers(t.app, room, users.viewer.token)).map((l) => l.id);
    for (const each of layers) assert.ok(listed.includes(each.id));
  });

  test('GeoJSON: mixed geometry types make a Mixed layer; properties and GDAL feature ids are kept; null geometries skipped', async () => {
    const { layer } = await uploadLayers(t.app, room, file('mixed.geojson'), users.owner.token);
    assertLayerShape(layer);
    assert.equal(layer.name, 'mixed', 'the file name without extension when no layerName is sent');
    const zipped = assertOk(
      await uploadBytes(t.app, room, readFileSync(file('lv95.zip')), 'districts.shp.zip', users.owner.token),
    );
    assert.equal(zipped.layer.name, 'districts', 'a .shp.zip is named without both extensions');
    assert.equal(layer.sourceFormat, 'geojson');
    assert.equal(layer.sourceCrs, 'EPSG:4326');
    assert.equal(layer.geometryType, 'Mixed');
    assert.equal(layer.featureCount, 2);
    assert.deepEqual(layer.bbox, [7, 46, 8, 47]);
    const served = await features(t.app, layer.id, users.owner.token);
    assert.deepEqual(served._metadata, { complete: true, featureCount: 2 });
    const polygon = served.features.find((f) => f.properties.n === 1)!;
    assert.deepEqual(polygon.properties.tags, ['x', 'y']);
    assert.deepEqual(polygon.properties.nested, { k: true });
    assert.equal(polygon.properties.none, null);
    assert.equal(polygon.geometry.type, 'MultiPolygon');
    for (const feature of served.features) assert.ok(Number.isInteger(feature.id), 'ids are numbers');
    assert.notEqual(served.features[0]!.id, served.features[1]!.id);
  });

  test('a CSV with a WKT column of lines becomes a layer (sourceFormat csv)', async () => {
    const { layer } = await uploadLayers(t.app, room, file('lines_wkt.csv'), users.owner.token);
    assert.equal(layer.sourceFormat, 'csv');
    assert.equal(layer.geometryType, 'LineString');
    const [road] = (await features(t.app, layer.id, users.owner.token)).features;
    assert.deepEqual(road!.geometry, {
      type: 'LineString',
      coordinates: [
        [7.44, 46.95],
        [8.54, 47.37],
      ],
    });
    assert.deepEqual(road!.properties, { name: 'A1' }, 'the WKT column is not kept as a property');
  });
});

describe('points become markers', () => {
  const cases: [string, string, { title: string | null; latitude: number; longitude: number }[]][] = [
    [
      'Latitude/Longitude columns',
      'points_latlon.csv',
      [
        { title: 'Bern', latitude: 46.948, longitude: 7.4474 },
        { title: 'Zurich', latitude: 47.3769, longitude: 8.5417 },
      ],
    ],
    [
      'lat/lng separated by ;',
      'points_semicolon.csv',
      [
        { title: 'Bern', latitude: 46.948, longitude: 7.4474 },
        { title: 'Lausanne', latitude: 46.5197, longitude: 6.6323 },
      ],
    ],
    ['x/y columns', 'points_xy.csv', [{ title: null, latitude: 46.948, longitude: 7.4474 }]],
    [
      'a WKT column of points',
      'points_wkt.csv',
      [
        { title: 'Bern', latitude: 46.948, longitude: 7.4474 },
        { title: 'Basel', latitude: 47.5596, longitude: 7.5886 },
      ],
    ],
    [
      'GeoJSON points in LV95 (a legacy crs member)',
      'legacy_crs.geojson',
      [{ title: 'Bern', latitude: 46.94838, longitude: 7.43863 }],
    ],
  ];
  for (const [name, fileName, expected] of cases) {
    test(`${name}: {markersCreated, markers, layer: null}, markers where the file puts them`, async () => {
      const layersBefore = (await listLayers(t.app, room, users.owner.token)).length;
      const markersBefore = (await roomCounts(t.app, room, users.owner.token)).markers!;
      const body = assertOk(await uploadFile(t.app, room, file(fileName), users.editor.token));
      assert.deepEqual(Object.keys(body).sort(), ['layer', 'markers', 'markersCreated']);
      assert.equal(body.layer, null);
      assert.equal(body.markersCreated, expected.length);
      assert.equal(body.markers.length, expected.length);
      const stored = assertOk(
        await call(t.app, 'GET', `/api/rooms/${room}/markers`, { auth: users.owner.token }),
      ).markers;
      for (const want of expected) {
        const marker = body.markers.find((m: { title: string | null }) => m.title === want.title);
        labelled(`${fileName} ${want.title}`, () => {
          assert.ok(marker, JSON.stringify(body.markers));
          assert.ok(
            Math.abs(marker.latitude - want.latitude) < 1e-5 && Math.abs(marker.longitude - want.longitude) < 1e-5,
            JSON.stringify(marker),
          );
          assert.equal(marker.createdBy, users.editor.id);
          assert.deepEqual(
            stored.find((m: { id: string }) => m.id === marker.id),
            marker,
          );
        });
      }
      assert.equal((await roomCounts(t.app, room, users.owner.token)).markers, markersBefore + expected.length);
      assert.equal((await listLayers(t.app, room, users.owner.token)).length, layersBefore, 'no layer');
    });
  }
});

describe('layerName, description and style', () => {
  test('the style sent is applied over the defaults; name and description are kept', async () => {
    const style = { color: 'ff0000', opacity: 0.5, fillOpacity: 0.1 };
    const { layer } = await uploadLayers(t.app, room, file('lv95_lines.zip'), users.owner.token, {
      layerName: '  The Aare  ',
      description: 'A river',
      style: JSON.stringify(style),
    });
    assert.equal(layer.name, 'The Aare');
    assert.equal(layer.description, 'A river');
    assert.deepEqual(layer.style, { ...DEFAULT_STYLE, ...style });
    assert.equal(layer.geometryType, 'LineString');
    const listed = (await listLayers(t.app, room, users.owner.token)).find((l) => l.id === layer.id);
    assert.deepEqual(listed, layer);
  });

  test('a style that is not JSON, or breaks the style rules, is 400 naming style, and nothing is stored', async () => {
    const before = await storedState(t, room);
    const counts = await roomCounts(t.app, room, users.owner.token);
    const cases: [string, string][] = [
      ['not JSON', '{color: red'],
      ['an array', '[1, 2]'],
      ['an unknown key', '{"colour": "ff0000"}'],
      ['a colour with #', '{"color": "#ff0000"}'],
      ['opacity above 1', '{"opacity": 2}'],
      ['visible as text', '{"visible": "yes"}'],
      ['a number', '7'],
    ];
    for (const [name, style] of cases) {
      const res = await uploadFile(t.app, room, file('lv95.zip'), users.owner.token, { style });
      labelled(name, () => assertFieldError(res, 'style'));
    }
    assert.deepEqual(await storedState(t, room), before);
    assert.deepEqual(await roomCounts(t.app, room, users.owner.token), counts);
    assert.deepEqual(await tmpLeftovers(t), []);
  });
});

/** Bytes of uploads waiting for their job that count against the room owner's quota. */
async function queuedBytes(app: TestApp, roomId: string): Promise<number> {
  const rows = await app.database.db
    .selectFrom('stored_files')
    .select('bytes')
    .where('room_id', '=', roomId)
    .where('kind', '=', 'queued-upload')
    .execute();
  return rows.reduce((n, r) => n + Number(r.bytes), 0);
}

describe('files over 5 MB are processed as a job', () => {
  test('202 {jobId}; the job reports stage, progress and message, and ends complete with the layer id', async () => {
    const token = await issueToken(t.app, users.owner, room, ['read', 'upload']);
    const res = await uploadFile(t.app, room, file('over_5mb.geojson'), token.token, { layerName: 'Big' });
    const body = assertOk(res, 202);
    assert.deepEqual(Object.keys(body), ['jobId']);
    assert.match(body.jobId, /^job-/);
    const early = assertOk(await call(t.app, 'GET', `/api/layers/jobs/${body.jobId}`, { auth: token.token }));
    assert.ok(['queued', 'processing', 'complete'].includes(early.stage), early.stage);
    for (const key of ['stage', 'progress', 'message']) assert.ok(key in early, `${key} in ${JSON.stringify(early)}`);

    const job = await completedJob(t.app, body.jobId, token.token);
    assert.equal(job.jobId, body.jobId);
    assert.equal(job.progress, 100);
    assert.equal(typeof job.message, 'string');
    assert.match(job.layerId, /^layer-/);
    const layer = (await listLayers(t.app, room, token.token)).find((l) => l.id === job.layerId);
    assert.ok(layer, 'the layer is listed');
    assert.equal(layer.name, 'Big');
    assert.equal(layer.featureCount, 60);
    assert.equal(layer.createdBy, token.id);
    assert.equal((await features(t.app, layer.id, token.token)).features.length, 60);
    // The job's file is gone once the layer is made; the layer's bytes count instead.
    const state = await storedState(t, room);
    assert.deepEqual(
      state.files.filter((f) => f.startsWith('uploads/')),
      [],
    );
    assert.equal(await queuedBytes(t, room), 0, 'the waiting file no longer counts');
  });

  test('a file waiting for its job counts against the quota: another that does not fit beside it is 413', async () => {
    const bytes = statSync(file('over_5mb.geojson')).size;
    // No job runs in this app: what a waiting job holds stays visible.
    const held = await scaffold({
      users: ['owner', 'editor', 'viewer'],
      config: { storageQuotaBytes: Math.floor(bytes * 1.5) },
      build: { jobWorkers: 0 },
    });
    try {
      const { t: app, users: people, room: roomId } = held;
      assertOk(await uploadFile(app.app, roomId, file('over_5mb.geojson'), people.owner.token), 202);
      assert.equal(await queuedBytes(app, roomId), bytes, 'the waiting file counts');
      const before = await storedState(app, roomId);
      assertError(
        await uploadFile(app.app, roomId, file('over_5mb.geojson'), people.owner.token),
        413,
        'quota_exceeded',
      );
      assert.deepEqual(await storedState(app, roomId), before, 'nothing more is kept');
    } finally {
      await held.t.close();
    }
  });

  test('a big file that is refused is refused at once (no job), and nothing is kept', async () => {
    const before = await storedState(t, room);
    assertError(
      await uploadBytes(t.app, room, 'x'.repeat(5_500_000), 'big.kml', users.owner.token),
      415,
      'unsupported_format',
    );
    const cut = readFileSync(file('over_5mb.geojson')).subarray(0, 5_500_000);
    assertError(await uploadBytes(t.app, room, cut, 'cut.geojson', users.owner.token), 400, 'invalid_file');
    assert.deepEqual(await storedState(t, room), before);
    assert.deepEqual(await tmpLeftovers(t), []);
  });
});
