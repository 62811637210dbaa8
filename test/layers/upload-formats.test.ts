/**
 * More files: KML, KMZ, GPX and FlatGeobuf written by ogr2ogr are uploaded like the
 * other vector formats (read from their bytes, whatever their name), and a file without a CRS
 * is given one with `sourceCrs`: an LV95 GeoJSON without a `crs` member is refused as
 * `unknown_crs` in words naming the sender's file (details.field `sourceCrs`), and with
 * `sourceCrs=2056` (on upload and on the chunked upload's process step) its features land
 * where `ogr2ogr -s_srs EPSG:2056 -t_srs EPSG:4326` puts them.
 * Decisions: docs/decisions.md ("Vector layers", "More files and sourceCrs").
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import {
  assertError,
  assertFieldError,
  assertOk,
  call,
  postMultipart,
  scaffold,
  type TestApp,
  type Users,
} from '../helpers.js';
import { completedJob, features, type Feature, uploadBytes, uploadFile, uploadLayers } from '../support/layers.js';
import { makeVectorFixtures } from '../vector-fixtures.js';

let t: TestApp;
let users: Users;
let room: string;
let fixtures: ReturnType<typeof makeVectorFixtures>;

const ogr2ogr = (...args: string[]) => execFileSync('ogr2ogr', args, { stdio: 'pipe' });

before(async () => {
  fixtures = makeVectorFixtures();
  ({ t, users, room } = await scaffold({ rooms: ['room'] }));
  const f = fixtures.file;
  // Real tools' files: LIBKML's KML and KMZ, GPX tracks, a FlatGeobuf keeping LV95.
  ogr2ogr('-f', 'LIBKML', f('squares.kml'), f('lv95_reference.geojson'), '-nln', 'squares');
  ogr2ogr('-f', 'LIBKML', f('squares.kmz'), f('lv95_reference.geojson'), '-nln', 'squares');
  ogr2ogr(
    '-f',
    'GPX',
    f('river.gpx'),
    f('lv95_lines_parts/lv95_lines.shp'),
    '-t_srs',
    'EPSG:4326',
    '-nlt',
    'MULTILINESTRING',
    '-nln',
    'tracks',
  );
  ogr2ogr('-f', 'FlatGeobuf', f('squares.fgb'), f('lv95_parts/lv95.shp'), '-nln', 'squares');
  // An LV95 GeoJSON without its `crs` member, and GDAL's reprojection of it with the CRS given
  // (RFC 7946: outer rings counterclockwise, as the service stores them).
  ogr2ogr('-f', 'GeoJSON', f('with_crs.geojson'), f('lv95_parts/lv95.shp'), '-lco', 'RFC7946=NO');
  const { crs, ...withoutCrs } = JSON.parse(readFileSync(f('with_crs.geojson'), 'utf8'));
  assert.ok(crs, 'ogr2ogr wrote a crs member, taken out');
  writeFileSync(f('parcels-lv95.geojson'), JSON.stringify(withoutCrs));
  ogr2ogr(
    '-f',
    'GeoJSON',
    f('gdal_4326.geojson'),
    f('parcels-lv95.geojson'),
    '-s_srs',
    'EPSG:2056',
    '-t_srs',
    'EPSG:4326',
    '-lco',
    'RFC7946=YES',
    '-lco',
    'COORDINATE_PRECISION=9',
  );
});
after(async () => {
  await t?.close();
  fixtures?.remove();
});

type Ring = number[][];
const reference = (file: string): Feature[] => JSON.parse(readFileSync(fixtures.file(file), 'utf8')).features;
const nameOf = (feature: Feature) => (feature.properties.name ?? feature.properties.Name) as string;
const firstRing = (feature: Feature): Ring => {
  const c = feature.geometry.coordinates as unknown[];
  return (feature.geometry.type === 'MultiPolygon' ? (c[0] as Ring[])[0] : (c as Ring[])[0])!;
};

/** Each stored feature's outer ring lies within `tolerance` degrees of the reference feature of the same name. */
function assertSameSquares(stored: Feature[], expected: Feature[], tolerance: number, label: string) {
  assert.equal(stored.length, expected.length, `${label}: feature count`);
  for (const feature of expected) {
    const found = stored.find((s) => nameOf(s) === nameOf(feature));
    assert.ok(found, `${label}: ${nameOf(feature)} is there`);
    const [got, want] = [firstRing(found), firstRing(feature)];
    assert.equal(got.length, want.length, `${label}: ${nameOf(feature)} vertex count`);
    got.forEach(([x, y], i) => {
      const [wx, wy] = want[i]!;
      assert.ok(
        Math.abs(x! - wx!) <= tolerance && Math.abs(y! - wy!) <= tolerance,
        `${label}: ${nameOf(feature)} vertex ${i}: ${x},${y} vs ${wx},${wy}`,
      );
    });
  }
}

describe('KML, KMZ, GPX and FlatGeobuf uploads', () => {
  test('each becomes a layer with its features where GDAL puts them, whatever the file is named', async () => {
    const squares = reference('lv95_reference.geojson');
    const cases: [string, string, string][] = [
      ['squares.kml', 'squares.kml', 'kml'],
      ['squares.kmz', 'squares.kmz', 'kml'],
      ['squares.fgb', 'squares.fgb', 'flatgeobuf'],
      // Read from their bytes: a name without an extension changes nothing.
      ['squares.kmz', 'download', 'kml'],
      ['squares.fgb', 'blob', 'flatgeobuf'],
      ['squares.kml', 'placemarks.xml', 'kml'],
    ];
    for (const [fixture, sentAs, format] of cases) {
      const res = await uploadFile(
        t.app,
        room,
        fixtures.file(fixture),
        users.owner.token,
        { layerName: 'Squares' },
        sentAs,
      );
      const { layer } = assertOk(res) as { layer: Record<string, any> };
      assert.equal(layer.sourceFormat, format, sentAs);
      assert.equal(layer.featureCount, 3, sentAs);
      assert.equal(layer.name, 'Squares');
      assertSameSquares((await features(t.app, layer.id, users.owner.token)).features, squares, 1e-6, sentAs);
      const attributes = assertOk(
        await call(t.app, 'GET', `/api/layers/${layer.id}/attributes`, { auth: users.owner.token }),
      );
      assert.ok(
        attributes.fields.some((f: { name: string }) => /^name$/i.test(f.name)),
        `${sentAs}: the name field is recorded`,
      );
    }
    const fgb = assertOk(await uploadFile(t.app, room, fixtures.file('squares.fgb'), users.owner.token)).layer;
    assert.equal(fgb.sourceCrs, 'EPSG:2056', "the FlatGeobuf's own CRS is honoured");
  });

  test("a GPX's tracks become a layer; its empty and derived tables (track_points) do not", async () => {
    const { layers } = await uploadLayers(t.app, room, fixtures.file('river.gpx'), users.owner.token);
    assert.deepEqual(
      layers.map((l) => [l.name, l.sourceFormat, l.geometryType, l.featureCount]),
      [['river', 'gpx', 'LineString', 1]],
    );
    const [track] = (await features(t.app, layers[0]!.id, users.owner.token)).features;
    const coordinates = (track!.geometry.coordinates as number[][][])[0]!;
    assert.equal(coordinates.length, 3);
    assert.ok(
      coordinates.every(([x, y]) => x! > 7.4 && x! < 7.5 && y! > 46.9 && y! < 47),
      'in Bern, longitude/latitude',
    );
  });
});

describe('sourceCrs: a file without a CRS is given one', () => {
  test('an LV95 GeoJSON without a crs member is unknown_crs in words naming the file, nothing internal', async () => {
    const res = await uploadFile(t.app, room, fixtures.file('parcels-lv95.geojson'), users.owner.token);
    const body = assertError(res, 400, 'unknown_crs');
    assert.match(
      body.message,
      /^The coordinate reference system is unknown: parcels-lv95\.geojson names no coordinate reference system/,
    );
    assert.match(body.message, /sourceCrs/);
    assert.equal(body.details.field, 'sourceCrs');
    assert.equal(body.details.table, 'parcels-lv95.geojson');
    assert.equal(body.details.extent.length, 4);
    for (const internal of [t.config.dataDir, '/tmp/', 'upload-', 'assembled', 'job-'])
      assert.ok(!res.body.includes(internal), `the answer shows ${internal}: ${res.body}`);
  });

  test('with sourceCrs=2056 its features land where ogr2ogr -s_srs EPSG:2056 -t_srs EPSG:4326 puts them', async () => {
    const gdal = reference('gdal_4326.geojson');
    for (const sourceCrs of ['2056', 'EPSG:2056', 'epsg:2056']) {
      const { layer } = await uploadLayers(t.app, room, fixtures.file('parcels-lv95.geojson'), users.owner.token, {
        sourceCrs,
      });
      assert.equal(layer.sourceCrs, 'EPSG:2056', sourceCrs);
      const [w, s, e, n] = layer.bbox!;
      assert.ok(w! > 6.5 && e! < 8.6 && s! > 46.4 && n! < 47.4, `bbox in Switzerland: ${layer.bbox}`);
      assertSameSquares((await features(t.app, layer.id, users.owner.token)).features, gdal, 2e-7, sourceCrs);
    }
  });

  test("the chunked upload's process step takes sourceCrs too", async () => {
    const bytes = readFileSync(fixtures.file('parcels-lv95.geojson'));
    const uploadId = 'lv95-chunked-01';
    const halves = [bytes.subarray(0, 200), bytes.subarray(200)];
    for (const [i, data] of halves.entries()) {
      const form = {
        roomName: room,
        uploadId,
        chunkIndex: String(i),
        totalChunks: '2',
        fileName: 'parcels.geojson',
        chunk: { data, filename: 'blob' },
      };
      assertOk(await postMultipart(t.app, '/api/layers/upload-chunk', form, users.owner.token));
    }
    const processed = await call(t.app, 'POST', '/api/layers/process-chunked', {
      auth: users.owner.token,
      body: { roomName: room, uploadId, fileName: 'parcels.geojson', sourceCrs: 'EPSG:2056' },
    });
    assert.equal(processed.statusCode, 202, processed.body);
    const job = await completedJob(t.app, processed.json().jobId, users.owner.token);
    assertSameSquares(
      (await features(t.app, job.layerId, users.owner.token)).features,
      reference('gdal_4326.geojson'),
      2e-7,
      'chunked',
    );
  });

  test('a sourceCrs that is not an EPSG code is 400 naming it; one GDAL does not know is invalid_source_crs', async () => {
    const data = readFileSync(fixtures.file('parcels-lv95.geojson'));
    const send = (sourceCrs: string) =>
      uploadBytes(t.app, room, data, 'parcels.geojson', users.owner.token, { sourceCrs });
    assertFieldError(await send('LV95'), 'sourceCrs');
    assertFieldError(await send('+proj=somerc'), 'sourceCrs');
    const unknown = assertError(await send('99999'), 400, 'invalid_source_crs');
    assert.match(unknown.message, /EPSG:99999 is not a coordinate reference system GDAL knows/);
    assert.equal(unknown.details.field, 'sourceCrs');
  });
});
