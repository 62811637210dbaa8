/**
 * QGIS 3.22 itself (Debian's python3-qgis, offscreen) reads a private room: through the OGC
 * API as its "WFS / OGC API - Features" connection does (the room token as the password of
 * HTTP Basic), and an export as a GeoPackage. QGIS 3.22 types a collection's fields and its
 * geometry from the first ten features (`?limit=10`), and draws only the features of that
 * geometry type; so markers' tags must read alike whatever that page holds (here: none tagged,
 * and an empty list, on it), each kind of drawing must be a collection of its own, and the
 * export's tables must declare their real geometry types and hold one type each.
 * Contract: docs/decisions.md ("OGC API – Features", "Export, import and clone").
 * The reading does not depend on the database: this runs once, on SQLite.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { assertOk, call, issueToken, scaffold, TEST_DB, type TestApp, type Users } from '../helpers.js';
import { assertValidGpkg, exportRoom, scratch } from '../support/exports.js';
import { createInlineLayer, type Layer, squareFeature } from '../support/layers.js';

const SCRIPT = fileURLToPath(new URL('../fixtures/qgis_read.py', import.meta.url));
const run = promisify(execFile);

type QgisLayer = {
  valid: boolean;
  error?: string;
  wkbType: string;
  geometryType: string;
  count: number;
  fields: Record<string, string>;
  extent: [number, number, number, number];
  features: { wkbType: string | null; attributes: Record<string, unknown> }[];
};
type QgisAnswer = { oapif?: Record<string, QgisLayer>; gpkg?: Record<string, QgisLayer>; geometryColumns?: object };

/** What QGIS sees of the layers the request names (fixtures/qgis_read.py). */
async function qgis(request: object): Promise<QgisAnswer> {
  const { stdout } = await run('/usr/bin/python3', [SCRIPT, JSON.stringify(request)], {
    timeout: 120_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as QgisAnswer;
}

const line = (coordinates: number[][]) => ({ type: 'LineString', coordinates });
const DRAWINGS = [
  { type: 'Point', coordinates: [7.44, 46.94] },
  line([
    [7.4, 46.9],
    [7.5, 47],
  ]),
  line([
    [7.41, 46.91],
    [7.45, 46.95],
  ]),
  {
    type: 'Polygon',
    coordinates: [
      [
        [7.42, 46.92],
        [7.43, 46.92],
        [7.43, 46.93],
        [7.42, 46.92],
      ],
    ],
  },
];
const MARKERS = 12;

describe('QGIS 3.22 reads a room', {
  skip: TEST_DB !== 'sqlite' && 'QGIS reads HTTP and files: the database does not matter',
}, () => {
  let t: TestApp;
  let users: Users;
  let room: string;
  let base: string;
  let token: string;
  let layer: Layer;
  /** Marker ids in the OGC API's order (its first page is QGIS's first ten). */
  let markerIds: string[];
  let files: ReturnType<typeof scratch>;

  before(async () => {
    files = scratch();
    let wsBase: string;
    ({ t, users, room, wsBase } = await scaffold({ listen: true }));
    base = wsBase.replace(/^ws/, 'http');
    ({ token } = await issueToken(t.app, users.owner, room, ['read']));
    const auth = users.owner.token;
    const ids: string[] = [];
    for (let i = 0; i < MARKERS; i++) {
      const body = { latitude: 46 + i * 0.1, longitude: 7 + i * 0.1, title: `Spot ${i}` };
      ids.push(assertOk(await call(t.app, 'POST', `/api/rooms/${room}/markers`, { auth, body }), 201).marker.id);
    }
    // The first marker in page order gets an empty list, the last (beyond the first page) two tags.
    markerIds = ids.sort();
    const tag = async (id: string, tags: string[]) =>
      assertOk(await call(t.app, 'PATCH', `/api/rooms/${room}/markers/${id}`, { auth, body: { tags } }));
    await tag(markerIds[0]!, []);
    await tag(markerIds.at(-1)!, ['x', 'y']);
    for (const geometry of DRAWINGS)
      assertOk(await call(t.app, 'POST', `/api/rooms/${room}/drawings`, { auth, body: { geometry } }), 201);
    layer = await createInlineLayer(t.app, room, auth, { name: 'Squares' });
    // A layer of polygons where one feature is a MultiPolygon: its table is MULTIPOLYGON.
    const [a, b] = [squareFeature(8, 47, 0.01).geometry, squareFeature(8.1, 47, 0.01).geometry];
    const parts = {
      type: 'Feature',
      properties: {},
      geometry: { type: 'MultiPolygon', coordinates: [a.coordinates, b.coordinates] },
    };
    const geojson = { type: 'FeatureCollection', features: [squareFeature(8.2, 47, 0.01), parts] };
    await createInlineLayer(t.app, room, auth, { name: 'Parts', geojson });
  });
  after(async () => {
    await t?.close();
    files?.remove();
  });

  test('opens the OGC API collections with the token as Basic: types, values, counts, geometry and extent', async () => {
    const collections = ['markers', 'drawings', 'drawings-points', 'drawings-lines', 'drawings-polygons', layer.id];
    const { oapif } = await qgis({
      oapif: { url: `${base}/api/rooms/${room}/ogc`, user: 'any', password: token, collections },
    });
    for (const id of collections) assert.ok(oapif![id]!.valid, `${id}: ${oapif![id]!.error}`);

    const markers = oapif!.markers!;
    assert.equal(markers.wkbType, 'Point');
    assert.equal(markers.count, MARKERS);
    assert.equal(markers.fields.tags, 'String', 'tags are text whatever the first page holds');
    const tags = new Map(markers.features.map((f) => [f.attributes.id, f.attributes.tags]));
    assert.equal(tags.get(markerIds.at(-1)), '["x","y"]', 'the tags of a marker beyond the first page');
    assert.equal(tags.get(markerIds[0]), '[]');
    assert.equal(tags.get(markerIds[1]), null);
    assert.equal(markers.fields.title, 'String');
    assert.equal(markers.fields.createdAt, 'Integer64');
    assert.deepEqual(
      markers.extent.map((n) => Math.round(n * 100) / 100),
      [7, 46, 8.1, 47.1],
    );

    // Every drawing is in its kind's collection, with that geometry type; `drawings` stays whole.
    const kinds = {
      'drawings-points': ['Point', 1],
      'drawings-lines': ['LineString', 2],
      'drawings-polygons': ['Polygon', 1],
    };
    for (const [id, [type, count]] of Object.entries(kinds)) {
      const drawings = oapif![id]!;
      assert.equal(drawings.wkbType, type, id);
      assert.equal(drawings.count, count, id);
      assert.deepEqual(
        drawings.features.map((f) => f.wkbType),
        new Array(count).fill(type),
        id,
      );
    }
    assert.equal(oapif!.drawings!.count, DRAWINGS.length);

    const squares = oapif![layer.id]!;
    assert.equal(squares.geometryType, 'Polygon');
    assert.equal(squares.count, 2);
    assert.deepEqual(squares.extent, layer.bbox);
  });

  test('opens an export: each table of its real geometry type, every drawing shown', async () => {
    const file = files.file('room.gpkg');
    assert.equal((await exportRoom(t.app, room, users.owner.token, file)).statusCode, 200);
    assertValidGpkg(file); // GDAL's validator: each table's rows are of its declared type
    const tables = ['markers', 'drawings_points', 'drawings_lines', 'drawings_polygons', 'squares', 'parts'];
    const { gpkg, geometryColumns } = await qgis({ gpkg: { path: file, tables } });
    assert.deepEqual(geometryColumns, {
      markers: 'POINT',
      drawings_points: 'POINT',
      drawings_lines: 'LINESTRING',
      drawings_polygons: 'POLYGON',
      squares: 'POLYGON',
      parts: 'MULTIPOLYGON',
    });
    const seen = Object.fromEntries(
      tables.map((table) => {
        const opened = gpkg![table]!;
        assert.ok(opened.valid, `${table}: ${opened.error}`);
        // What QGIS draws: the features of the layer's own geometry type.
        return [table, [opened.wkbType, opened.features.filter((f) => f.wkbType === opened.wkbType).length]];
      }),
    );
    assert.deepEqual(seen, {
      markers: ['Point', MARKERS],
      drawings_points: ['Point', 1],
      drawings_lines: ['LineString', 2],
      drawings_polygons: ['Polygon', 1],
      squares: ['Polygon', 2],
      parts: ['MultiPolygon', 2],
    });
    const tagged = gpkg!.markers!.features.filter((f) => f.attributes.tags !== null);
    assert.equal(tagged.length, 2, 'the tags are kept in the export');
  });
});
