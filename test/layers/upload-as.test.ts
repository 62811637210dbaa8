/**
 * An upload's `as` (`POST /api/layers/upload`, `process-chunked`, and the job of a big file):
 * `auto` (the default) keeps the contract's upload by content (a file of points becomes
 * markers); `layer` makes a Point layer of a file of points, every attribute a field, served
 * like any layer (features, tiles, OGC API, export); `markers` makes markers and refuses a
 * file with anything but points (400 `not_points`, nothing stored).
 * Contract: docs/http-interface.md ("Layers and uploads"), docs/decisions.md ("Vector layers").
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { VectorTile } from '@mapbox/vector-tile';
import { PbfReader } from 'pbf';
import {
  assertError,
  assertFieldError,
  assertOk,
  call,
  createRoom,
  type FormPart,
  postMultipart,
  roomCounts,
  scaffold,
  type TestApp,
  type Users,
} from '../helpers.js';
import { exported, importFile, ogrRows, ogrTables } from '../support/exports.js';
import { completedJob, features, listLayers, storedState, uploadBytes } from '../support/layers.js';

let t: TestApp;
let users: Users;
let room: string;
let dir: string;

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'maproom-upload-as-'));
  ({ t, users, room } = await scaffold());
});
after(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

const point = (lon: number, lat: number, properties: Record<string, unknown>) => ({
  type: 'Feature',
  geometry: { type: 'Point', coordinates: [lon, lat] },
  properties,
});
const collection = (features: unknown[]) => JSON.stringify({ type: 'FeatureCollection', features });

/** Three wells near Bern with a text, a number and a boolean attribute. */
const WELLS = collection([
  point(7.44, 46.95, { name: 'North well', depth: 12.5, potable: true }),
  point(7.45, 46.94, { name: 'South well', depth: 30, potable: false }),
  point(7.43, 46.96, { name: 'Old well', depth: 4.25, potable: true }),
]);
const ROADS = collection([
  {
    type: 'Feature',
    geometry: {
      type: 'LineString',
      coordinates: [
        [7.44, 46.95],
        [7.46, 46.96],
      ],
    },
    properties: {},
  },
]);
const MIXED = collection([
  point(7.44, 46.95, { name: 'A well' }),
  {
    type: 'Feature',
    geometry: {
      type: 'LineString',
      coordinates: [
        [7.44, 46.95],
        [7.46, 46.96],
      ],
    },
    properties: {},
  },
]);

const upload = (data: string | Buffer, fileName: string, fields: Record<string, string> = {}) =>
  uploadBytes(t.app, room, data, fileName, users.editor.token, fields);

/** What must be as it was after a refusal. */
async function snapshot() {
  return { stored: await storedState(t, room), counts: await roomCounts(t.app, room, users.owner.token) };
}

describe('as=auto, or no as: the contract’s upload by content', () => {
  test('a file of points becomes markers, with or without as=auto', async () => {
    for (const fields of [{}, { as: 'auto' }] as Record<string, string>[]) {
      const body = assertOk(await upload(WELLS, 'wells.geojson', fields));
      assert.deepEqual(Object.keys(body).sort(), ['layer', 'markers', 'markersCreated']);
      assert.equal(body.layer, null);
      assert.equal(body.markersCreated, 3);
      assert.deepEqual(body.markers.map((m: { title: string }) => m.title).sort(), [
        'North well',
        'Old well',
        'South well',
      ]);
    }
  });

  test('a file of lines becomes a layer', async () => {
    const { layer } = assertOk(await upload(ROADS, 'roads.geojson'));
    assert.equal(layer.geometryType, 'LineString');
  });
});

describe('as=layer: a file of points is a Point layer', () => {
  let layer: { id: string; featureCount: number; geometryType: string; fields: { name: string; type: string }[] };

  before(async () => {
    const markersBefore = (await roomCounts(t.app, room, users.owner.token)).markers;
    const body = assertOk(await upload(WELLS, 'wells.geojson', { as: 'layer', layerName: 'Wells' }));
    assert.deepEqual(Object.keys(body).sort(), ['layer', 'layers']);
    layer = body.layer;
    assert.equal((await roomCounts(t.app, room, users.owner.token)).markers, markersBefore, 'no marker');
  });

  test('the layer has its featureCount, geometryType Point, bbox and every attribute as a field', async () => {
    assert.equal(layer.featureCount, 3);
    assert.equal(layer.geometryType, 'Point');
    assert.deepEqual(
      layer.fields.map(({ name, type }) => [name, type]),
      [
        ['name', 'text'],
        ['depth', 'real'],
        ['potable', 'boolean'],
      ],
    );
    const listed = (await listLayers(t.app, room, users.viewer.token)).find((l) => l.id === layer.id);
    assert.deepEqual(listed?.bbox, [7.43, 46.94, 7.45, 46.96]);
    assert.equal(listed?.sourceFormat, 'geojson');
  });

  test('its features keep every attribute', async () => {
    const served = await features(t.app, layer.id, users.viewer.token);
    assert.deepEqual(served._metadata, { complete: true, featureCount: 3 });
    const north = served.features.find((f) => f.properties.name === 'North well')!;
    assert.deepEqual(north.geometry, { type: 'Point', coordinates: [7.44, 46.95] });
    assert.deepEqual(north.properties, { name: 'North well', depth: 12.5, potable: true });
  });

  test('its vector tile holds the points with their properties', async () => {
    // z 12 tile holding Bern's wells.
    const z = 12;
    const x = Math.floor(((7.44 + 180) / 360) * 2 ** z);
    const rad = (46.95 * Math.PI) / 180;
    const y = Math.floor(((1 - Math.log(Math.tan(rad) + 1 / Math.cos(rad)) / Math.PI) / 2) * 2 ** z);
    const res = await call(t.app, 'GET', `/api/layers/${layer.id}/tiles/${z}/${x}/${y}.mvt`, {
      auth: users.viewer.token,
    });
    assert.equal(res.statusCode, 200, res.body.slice(0, 200));
    const tile = new VectorTile(new PbfReader(new Uint8Array(res.rawPayload))).layers.features!;
    assert.equal(tile.length, 3);
    const names = Array.from({ length: tile.length }, (_, i) => tile.feature(i))
      .map((f) => {
        assert.equal(f.type, 1, 'a point');
        return f.properties.name;
      })
      .sort();
    assert.deepEqual(names, ['North well', 'Old well', 'South well']);
  });

  test('OGC API – Features serves it as a collection of points', async () => {
    const items = assertOk(
      await call(t.app, 'GET', `/api/rooms/${room}/ogc/collections/${layer.id}/items`, { auth: users.viewer.token }),
    );
    assert.equal(items.features.length, 3);
    for (const feature of items.features) assert.equal(feature.geometry.type, 'Point');
    assert.ok(items.features.some((f: { properties: { depth: number } }) => f.properties.depth === 30));
  });

  test('the room export holds it as a point table with its attributes; an import restores it', async () => {
    const file = path.join(dir, 'room.gpkg');
    await exported(t.app, room, users.viewer.token, file);
    const table = [...ogrTables(file).keys()].find((name) =>
      ogrRows(file, name).some((row) => row.properties.name === 'South well' && row.properties.depth === 30),
    );
    assert.ok(table, `a table holds the wells: ${[...ogrTables(file).keys()]}`);
    const rows = ogrRows(file, table);
    assert.equal(rows.length, 3);
    for (const row of rows) assert.equal(row.geometry.type, 'Point');
    // Imported into another room, it is a Point layer again.
    const target = await createRoom(t.app, users.owner);
    assertOk(await importFile(t.app, target, users.owner.token, readFileSync(file)));
    const restored = (await listLayers(t.app, target, users.owner.token)).find((l) => l.name === 'Wells');
    assert.equal(restored?.geometryType, 'Point');
    assert.equal(restored?.featureCount, 3);
    assert.deepEqual(restored?.fields, layer.fields);
  });

  test('a CSV of points is a Point layer too, its columns fields', async () => {
    const csv = 'name,lat,lon,visitors\nBern,46.948,7.4474,140000\nBasel,47.5596,7.5886,178000\n';
    const { layer: cities } = assertOk(await upload(csv, 'cities.csv', { as: 'layer' }));
    assert.equal(cities.geometryType, 'Point');
    assert.equal(cities.featureCount, 2);
    assert.equal(cities.sourceFormat, 'csv');
    const served = await features(t.app, cities.id, users.viewer.token);
    assert.deepEqual(served.features.map((f) => f.properties.name).sort(), ['Basel', 'Bern']);
  });
});

describe('as=markers', () => {
  test('a file of points becomes markers, as by content', async () => {
    const body = assertOk(await upload(WELLS, 'wells.geojson', { as: 'markers' }));
    assert.equal(body.layer, null);
    assert.equal(body.markersCreated, 3);
  });

  test('a file with lines, or points and lines, or a GeoTIFF is 400 not_points naming it, and nothing is stored', async () => {
    const before = await snapshot();
    const lines = assertError(await upload(ROADS, 'roads.geojson', { as: 'markers' }), 400, 'not_points');
    assert.match(lines.message, /roads\.geojson holds LineString features/);
    assert.match(lines.message, /as=layer/);
    const mixed = assertError(await upload(MIXED, 'mixed.geojson', { as: 'markers' }), 400, 'not_points');
    assert.match(mixed.message, /mixed\.geojson holds non-point features/);
    const tiff = Buffer.concat([Buffer.from('II*\0'), Buffer.alloc(64)]);
    assertError(await upload(tiff, 'grid.tif', { as: 'markers' }), 400, 'not_points');
    assert.deepEqual(await snapshot(), before);
  });
});

describe('as is checked', () => {
  test('a value other than auto, layer or markers is 400 naming as; nothing is stored', async () => {
    const before = await snapshot();
    for (const as of ['points', 'LAYER', 'layer,markers', '0'])
      assertFieldError(await upload(WELLS, 'wells.geojson', { as }), 'as');
    assert.deepEqual(await snapshot(), before);
  });
});

describe('big files and chunked uploads honour as', () => {
  /** A GeoJSON over 5 MB (a job): `count` features of `geometry(i)`, each with a long note. */
  const bigFile = (count: number, geometry: (i: number) => unknown) =>
    collection(
      Array.from({ length: count }, (_, i) => ({
        type: 'Feature',
        geometry: geometry(i),
        properties: { n: i, note: 'x'.repeat(1000) },
      })),
    );
  const bigPoints = bigFile(5500, (i) => ({ type: 'Point', coordinates: [7 + (i % 100) / 1000, 46 + i / 100_000] }));

  test('a file over 5 MB sent as=layer is a job that makes a Point layer', async () => {
    assert.ok(bigPoints.length > 5 * 1024 * 1024);
    const { jobId } = assertOk(await upload(bigPoints, 'big-points.geojson', { as: 'layer' }), 202);
    const job = await completedJob(t.app, jobId, users.editor.token);
    const layer = (await listLayers(t.app, room, users.viewer.token)).find((l) => l.id === job.layerId);
    assert.ok(layer, JSON.stringify(job));
    assert.equal(layer.geometryType, 'Point');
    assert.equal(layer.featureCount, 5500);
  });

  test('a file over 5 MB of lines sent as=markers is refused at once, without a job', async () => {
    const before = await snapshot();
    const lines = bigFile(5500, (i) => ({
      type: 'LineString',
      coordinates: [
        [7, 46 + i / 100_000],
        [7.001, 46 + i / 100_000],
      ],
    }));
    assertError(await upload(lines, 'big-lines.geojson', { as: 'markers' }), 400, 'not_points');
    assert.deepEqual(await snapshot(), before);
  });

  /** Sends `data` as a one-chunk upload; returns its uploadId. */
  async function oneChunk(data: string, fileName: string) {
    const uploadId = `as-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
    const form: Record<string, FormPart> = {
      roomName: room,
      uploadId,
      chunkIndex: '0',
      totalChunks: '1',
      fileName,
      chunk: { data, filename: 'blob' },
    };
    assertOk(await postMultipart(t.app, '/api/layers/upload-chunk', form, users.editor.token));
    return uploadId;
  }
  const processChunked = (body: Record<string, unknown>) =>
    call(t.app, 'POST', '/api/layers/process-chunked', {
      auth: users.editor.token,
      body: { roomName: room, ...body },
    });

  test('process-chunked: as=layer makes a Point layer; as=markers of lines is 400 not_points; a bad as is 400', async () => {
    const points = await oneChunk(WELLS, 'wells.geojson');
    assertFieldError(await processChunked({ uploadId: points, fileName: 'wells.geojson', as: 'point' }), 'as');
    const { jobId } = assertOk(
      await processChunked({ uploadId: points, fileName: 'wells.geojson', as: 'layer', layerName: 'Chunked wells' }),
      202,
    );
    const job = await completedJob(t.app, jobId, users.editor.token);
    const layer = (await listLayers(t.app, room, users.viewer.token)).find((l) => l.id === job.layerId);
    assert.equal(layer?.name, 'Chunked wells');
    assert.equal(layer?.geometryType, 'Point');
    assert.equal(layer?.featureCount, 3);

    const roads = await oneChunk(ROADS, 'roads.geojson');
    const refused = await processChunked({ uploadId: roads, fileName: 'roads.geojson', as: 'markers' });
    assertError(refused, 400, 'not_points');
    const state = await storedState(t, room);
    assert.deepEqual(
      state.files.filter((f) => f.startsWith('chunks/') || f.startsWith('uploads/')),
      [],
      'the refused upload leaves no file',
    );
  });
});
