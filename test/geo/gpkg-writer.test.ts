/**
 * The GeoPackage writer (src/geo/gpkg), checked with GDAL itself: its validator
 * (validate_gpkg.py), ogrinfo, ogr2ogr and its WKB reader.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { Geometry } from 'geojson';
import {
  GeoPackageWriter,
  type GpkgColumn,
  type GpkgGeometryType,
  type SqlValue,
} from '../../src/geo-engine/gpkg-writer.js';
import { assertValid, extentOf, ogrFeatures, ogrinfoSummary, scratchDir, sqlite, square } from '../support/gpkg.js';

const dir = scratchDir();

interface FeatureSpec {
  name: string;
  type: GpkgGeometryType;
  columns: GpkgColumn[];
  rows: { fid: number | null; geometry: Geometry | null; values: SqlValue[] }[];
}

/** The feature tables of the main file. */
const FEATURE_TABLES: FeatureSpec[] = [
  {
    name: 'markers',
    type: 'POINT',
    columns: [
      { name: 'title', type: 'TEXT', notNull: true },
      { name: 'rank', type: 'INTEGER' },
    ],
    rows: [
      { fid: null, geometry: { type: 'Point', coordinates: [8.541694, 47.376887] }, values: ['Zürich HB', 1] },
      {
        fid: 10,
        geometry: { type: 'Point', coordinates: [-0.1275, 51.507222, 35] },
        values: ['London (altitude dropped)', null],
      },
      { fid: null, geometry: null, values: ['nowhere', 3] },
    ],
  },
  {
    name: 'shapes',
    type: 'GEOMETRY',
    columns: [{ name: 'kind', type: 'TEXT' }],
    rows: [
      { fid: null, geometry: { type: 'Point', coordinates: [2.5, -3.25] }, values: ['point'] },
      {
        fid: null,
        geometry: {
          type: 'LineString',
          coordinates: [
            [0, 0],
            [10.5, 2],
            [20, -7.75],
          ],
        },
        values: ['line'],
      },
      {
        fid: null,
        geometry: { type: 'Polygon', coordinates: [square(-10, -10, 20), square(-5, -5, 2).reverse()] },
        values: ['polygon with a hole'],
      },
      {
        fid: null,
        geometry: {
          type: 'GeometryCollection',
          geometries: [
            { type: 'Point', coordinates: [30, 40] },
            {
              type: 'MultiLineString',
              coordinates: [
                [
                  [31, 41],
                  [32, 42],
                ],
                [
                  [33, 43],
                  [34, 44],
                ],
              ],
            },
          ],
        },
        values: ['collection'],
      },
    ],
  },
  {
    name: 'areas',
    type: 'MULTIPOLYGON',
    columns: [{ name: 'area', type: 'REAL' }],
    rows: [
      {
        fid: null,
        geometry: {
          type: 'MultiPolygon',
          coordinates: [[square(100, 10, 1)], [square(102, 12, 0.5), square(102.125, 12.125, 0.25).reverse()]],
        },
        values: [1.25],
      },
      { fid: null, geometry: { type: 'Polygon', coordinates: [square(-120, -50, 2)] }, values: [4] },
    ],
  },
  {
    name: 'my layer – ü',
    type: 'LINESTRING',
    columns: [
      { name: `it's a "quoted" name`, type: 'TEXT' },
      { name: 'seen on', type: 'DATE' },
    ],
    rows: [
      {
        fid: null,
        geometry: {
          type: 'LineString',
          coordinates: [
            [1, 1],
            [2, 3],
          ],
        },
        values: ['ü – ok', '2024-05-06'],
      },
    ],
  },
  { name: 'nothing yet', type: 'POLYGON', columns: [{ name: 'x', type: 'INTEGER' }], rows: [] },
];

const BLOB = Buffer.from([0, 1, 2, 250, 255]);
const ATTRIBUTE_COLUMNS: GpkgColumn[] = [
  { name: 'data', type: 'BLOB' },
  { name: 'caption', type: 'TEXT' },
  { name: 'size', type: 'INTEGER' },
  { name: 'ratio', type: 'REAL' },
  { name: 'taken at', type: 'DATETIME' },
  { name: 'public', type: 'BOOLEAN' },
];
const ATTRIBUTE_ROWS: SqlValue[][] = [
  [BLOB, 'first "one"', 2n ** 40n, 0.5, '2024-05-06T07:08:09.123Z', 1],
  [null, null, null, null, null, 0],
];

function writeMainFile(file: string): void {
  const writer = GeoPackageWriter.create(file);
  const files = writer.attributeTable('files', ATTRIBUTE_COLUMNS, {
    identifier: 'Files',
    description: 'Attached files',
  });
  for (const row of ATTRIBUTE_ROWS) files.add(row);
  for (const table of FEATURE_TABLES) {
    const out = writer.featureTable(table.name, table.type, table.columns, { description: `The ${table.name}` });
    for (const row of table.rows) out.add(row.fid, row.geometry, row.values);
  }
  writer.close();
  writer.close(); // does nothing the second time
}

/** What GDAL should read back: fids as numbered, 2D, single polygons promoted in a MULTIPOLYGON table. */
function expectedFeatures(table: FeatureSpec) {
  let next = 1;
  return table.rows.map((row) => {
    const id = row.fid ?? next;
    next = Math.max(next, id + 1);
    let geometry = row.geometry;
    if (geometry?.type === 'Point') geometry = { type: 'Point', coordinates: geometry.coordinates.slice(0, 2) };
    if (geometry?.type === 'Polygon' && table.type === 'MULTIPOLYGON')
      geometry = { type: 'MultiPolygon', coordinates: [geometry.coordinates] };
    return {
      type: 'Feature',
      id,
      properties: Object.fromEntries(table.columns.map((c, i) => [c.name, row.values[i]])),
      geometry,
    };
  });
}

test('a room-like GeoPackage: GDAL validates it and reads back every table, value, coordinate and extent', () => {
  const file = path.join(dir, 'room.gpkg');
  writeMainFile(file);
  assertValid(file);
  assertValid(file, '--extra', '--warning-as-error');

  const summary = ogrinfoSummary(file);
  assert.deepEqual([...summary.keys()].sort(), ['files', ...FEATURE_TABLES.map((t) => t.name)].sort());
  assert.deepEqual(summary.get('files'), { count: 2, extent: null });
  for (const table of FEATURE_TABLES) {
    const written = table.rows.map((r) => r.geometry);
    const extent = written.some(Boolean) ? extentOf(written) : null;
    assert.deepEqual(summary.get(table.name), { count: table.rows.length, extent }, table.name);
    assert.deepEqual(ogrFeatures(file, table.name), expectedFeatures(table), table.name);
  }

  const files = ogrFeatures(file, 'files');
  assert.deepEqual(
    files.map((f) => f.properties),
    [
      {
        data: BLOB.toString('hex').toUpperCase(),
        caption: 'first "one"',
        size: 2 ** 40,
        ratio: 0.5,
        'taken at': '2024-05-06T07:08:09.123Z',
        public: true,
      },
      { data: null, caption: null, size: null, ratio: null, 'taken at': null, public: false },
    ],
  );

  // The catalogue: pragmas, reference systems, contents, rtree registrations and rows.
  const header = execFileSync('sqlite3', [file, 'PRAGMA application_id; PRAGMA user_version;'], { encoding: 'utf8' });
  assert.equal(header, `${0x47504b47}\n10300\n`);
  assert.deepEqual(sqlite(file, 'SELECT srs_id, organization FROM gpkg_spatial_ref_sys ORDER BY srs_id'), [
    { srs_id: -1, organization: 'NONE' },
    { srs_id: 0, organization: 'NONE' },
    { srs_id: 3857, organization: 'EPSG' },
    { srs_id: 4326, organization: 'EPSG' },
  ]);
  type Contents = {
    table_name: string;
    data_type: string;
    identifier: string;
    last_change: string;
    srs_id: number | null;
    min_x: number | null;
    min_y: number;
    max_x: number;
    max_y: number;
  };
  const contents = sqlite<Contents>(file, 'SELECT * FROM gpkg_contents');
  assert.deepEqual(
    contents.map((c) => [
      c.table_name,
      c.data_type,
      c.identifier,
      c.srs_id,
      c.min_x === null ? null : [c.min_x, c.min_y, c.max_x, c.max_y],
    ]),
    [
      ['files', 'attributes', 'Files', null, null],
      ...FEATURE_TABLES.map((t) => [
        t.name,
        'features',
        t.name,
        4326,
        t.rows.length ? extentOf(t.rows.map((r) => r.geometry)) : null,
      ]),
    ],
  );
  assert.ok(contents.every((c) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(c.last_change)));
  const rtrees = sqlite<{ table_name: string }>(
    file,
    "SELECT table_name FROM gpkg_extensions WHERE extension_name = 'gpkg_rtree_index' AND column_name = 'geom' AND scope = 'write-only'",
  );
  assert.deepEqual(
    rtrees.map((r) => r.table_name),
    FEATURE_TABLES.map((t) => t.name),
  );

  // One R*Tree row per non-empty geometry: its envelope, rounded outwards to 32-bit floats.
  for (const table of FEATURE_TABLES) {
    const boxes = sqlite<{ id: number; minx: number; maxx: number; miny: number; maxy: number }>(
      file,
      `SELECT * FROM "rtree_${table.name}_geom" ORDER BY id`,
    );
    const features = expectedFeatures(table).filter((f) => f.geometry);
    assert.deepEqual(
      boxes.map((b) => b.id),
      features.map((f) => f.id),
    );
    boxes.forEach((box, i) => {
      const [minx, miny, maxx, maxy] = extentOf([features[i]!.geometry]);
      const near = (a: number, b: number) => Math.abs(a - b) < 1e-4;
      assert.ok(
        box.minx <= minx! && box.miny <= miny! && box.maxx >= maxx! && box.maxy >= maxy!,
        `${table.name} ${box.id}`,
      );
      assert.ok(
        near(box.minx, minx!) && near(box.miny, miny!) && near(box.maxx, maxx!) && near(box.maxy, maxy!),
        `${table.name} ${box.id}`,
      );
    });
  }
  assert.deepEqual(sqlite(file, 'SELECT * FROM gpkg_ogr_contents'), [
    { table_name: 'files', feature_count: 2 },
    ...FEATURE_TABLES.map((t) => ({ table_name: t.name, feature_count: t.rows.length })),
  ]);
});

test('after close, GDAL edits the file with its own functions: the R*Tree triggers and feature counts keep up', () => {
  const file = path.join(dir, 'edited.gpkg');
  writeMainFile(file);
  const boxes = () =>
    sqlite<{ id: number; minx: number; maxx: number; miny: number; maxy: number }>(
      file,
      'SELECT * FROM rtree_shapes_geom ORDER BY id',
    );
  assert.deepEqual(
    boxes().map((b) => b.id),
    [1, 2, 3, 4],
  );

  execFileSync('ogrinfo', ['-q', file, '-sql', 'DELETE FROM shapes WHERE fid = 1']);
  execFileSync('ogrinfo', [
    '-q',
    file,
    '-sql',
    'UPDATE shapes SET geom = (SELECT geom FROM shapes WHERE fid = 4) WHERE fid = 2',
  ]); // update1: ST_MinX...
  const added = path.join(dir, 'added.geojson');
  writeFileSync(
    added,
    JSON.stringify({
      type: 'FeatureCollection',
      features: [
        { type: 'Feature', properties: { kind: 'appended' }, geometry: { type: 'Point', coordinates: [-50, 60] } },
      ],
    }),
  );
  execFileSync('ogr2ogr', ['-update', '-append', file, added, '-nln', 'shapes']);
  // A raster tile pyramid appended by GDAL finds EPSG:3857 in place.
  const tif = path.join(dir, 'small.tif');
  execFileSync('gdal_create', [
    '-q',
    '-of',
    'GTiff',
    '-outsize',
    '16',
    '16',
    '-bands',
    '3',
    '-burn',
    '200',
    '-a_srs',
    'EPSG:4326',
    '-a_ullr',
    '0',
    '10',
    '10',
    '0',
    tif,
  ]);
  execFileSync('gdal_translate', [
    '-q',
    '-of',
    'GPKG',
    '-co',
    'APPEND_SUBDATASET=YES',
    '-co',
    'RASTER_TABLE=tiles',
    '-co',
    'TILING_SCHEME=GoogleMapsCompatible',
    tif,
    file,
  ]);
  assertValid(file);

  const after = boxes();
  assert.deepEqual(
    after.map((b) => b.id),
    [2, 3, 4, 5],
  );
  assert.deepEqual({ ...after[0], id: 4 }, after[2]); // fid 2 now has fid 4's geometry
  assert.deepEqual([after[3]!.minx, after[3]!.miny], [-50, 60]);
  assert.equal(ogrinfoSummary(file).get('shapes')!.count, 4);
  assert.deepEqual(sqlite(file, "SELECT feature_count FROM gpkg_ogr_contents WHERE table_name = 'shapes'"), [
    { feature_count: 4 },
  ]);
  assert.deepEqual(sqlite(file, "SELECT srs_id FROM gpkg_contents WHERE table_name = 'tiles'"), [{ srs_id: 3857 }]);
});

test('20,000 polygons over several transactions, then another table: valid, counted and spatially indexed', () => {
  const file = path.join(dir, 'parcels.gpkg');
  const writer = GeoPackageWriter.create(file);
  const parcels = writer.featureTable('parcels', 'POLYGON', [
    { name: 'name', type: 'TEXT' },
    { name: 'value', type: 'REAL' },
  ]);
  for (let i = 0; i < 20_000; i++) {
    const [x, y] = [-100 + (i % 200), -50 + Math.floor(i / 200)]; // a 200 x 100 grid of 0.5° squares
    parcels.add(null, { type: 'Polygon', coordinates: [square(x, y, 0.5)] }, [`parcel ${i + 1}`, i / 4]);
  }
  writer.featureTable('after', 'POINT', []).add(null, { type: 'Point', coordinates: [0, 0] }, []);
  writer.close();

  assertValid(file);
  const summary = ogrinfoSummary(file);
  assert.deepEqual(summary.get('parcels'), { count: 20_000, extent: [-100, -50, 99.5, 49.5] });
  assert.deepEqual(summary.get('after'), { count: 1, extent: [0, 0, 0, 0] });
  assert.deepEqual(sqlite(file, 'SELECT count(*) AS n, min(id) AS first, max(id) AS last FROM rtree_parcels_geom'), [
    { n: 20_000, first: 1, last: 20_000 },
  ]);
  // GDAL's spatial filter goes through the R*Tree: the 3 x 2 squares whose corner is in [10, 12] x [20, 21].
  const filtered = execFileSync(
    'ogrinfo',
    ['-ro', '-al', '-spat', '10.25', '20.25', '12.25', '21.25', file, 'parcels'],
    { encoding: 'utf8' },
  );
  const names = [...filtered.matchAll(/ name \(String\) = (.+)/g)].map((m) => m[1]);
  const expected = [20, 21].flatMap((y) => [10, 11, 12].map((x) => `parcel ${x + 100 + 200 * (y + 50) + 1}`));
  assert.deepEqual(names.sort(), expected.sort());
});

test('refusals: an existing file, a geometry the table does not hold, a wrong number of values; abort closes', () => {
  const file = path.join(dir, 'refusals.gpkg');
  writeFileSync(file, 'not mine');
  assert.throws(() => GeoPackageWriter.create(file), { code: 'EEXIST' });
  rmSync(file);

  const writer = GeoPackageWriter.create(file);
  const polygons = writer.featureTable('polygons', 'POLYGON', [{ name: 'n', type: 'INTEGER' }]);
  const line: Geometry = {
    type: 'LineString',
    coordinates: [
      [0, 0],
      [1, 1],
    ],
  };
  assert.throws(() => polygons.add(null, line, [1]), {
    name: 'TypeError',
    message: 'polygons: a LineString cannot be written to a POLYGON table',
  });
  assert.throws(() => polygons.add(null, { type: 'MultiPolygon', coordinates: [] }, [1]), TypeError);
  assert.throws(() => polygons.add(null, null, []), { message: 'polygons: 0 values for 1 columns' });
  polygons.add(7, null, [1]);
  assert.throws(() => polygons.add(7, null, [2]), /UNIQUE constraint failed/);
  writer.abort();
  writer.abort();
  writer.close(); // nothing left to do
  assert.ok(existsSync(file)); // the caller deletes it
});
