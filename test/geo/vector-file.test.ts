import assert from 'node:assert/strict';
import { geoLimitsOf, loadConfig } from '../../src/config.js';
import { writeFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import {
  type OpenOptions,
  openVectorFile,
  VectorRejected,
  type VectorRejection,
} from '../../src/geo-engine/vector-open.js';
import { readFeatures } from '../../src/geo-engine/vector-stream.js';
import { shapefilesInZip } from '../../src/geo-engine/vector-zip.js';
import { makeVectorFixtures } from '../vector-fixtures.js';

/** The geo engine's limits under the default settings. */
const GEO = geoLimitsOf(loadConfig({}));

let fixtures: ReturnType<typeof makeVectorFixtures>;
before(() => {
  fixtures = makeVectorFixtures();
});
after(() => fixtures.remove());

/** Opens the fixture and reads its first table's features, as an ingest does. */
async function read(name: string, uploadedAs = name, options: OpenOptions = {}) {
  const { tables } = await openVectorFile(fixtures.file(name), uploadedAs, GEO, options);
  for await (const _batch of readFeatures(tables[0]!, GEO));
}

/** Asserts that opening and reading the fixture is refused with `code`, and that the message matches. */
async function refused(name: string, code: VectorRejection, message: RegExp, uploadedAs = name, options = {}) {
  await assert.rejects(read(name, uploadedAs, options), (error: unknown) => {
    assert.ok(error instanceof VectorRejected, String(error));
    assert.equal(error.code, code, error.message);
    assert.match(error.message, message);
    assert.doesNotMatch(error.message, /\/tmp\/|maproom-vector-/, 'no path of ours in the message');
    return true;
  });
}

describe('openVectorFile: formats and tables', () => {
  test('a zipped shapefile in LV95: one table, its EPSG code and a WGS84 bbox around Switzerland', async () => {
    const { format, tables } = await openVectorFile(fixtures.file('lv95.zip'), 'Parcels.ZIP', GEO);
    assert.equal(format, 'shapefile');
    assert.equal(tables.length, 1);
    const [table] = tables;
    assert.equal(table!.name, 'lv95');
    assert.equal(table!.featureCount, 3);
    assert.equal(table!.geometryType, 'Polygon');
    assert.equal(table!.sourceCrs, 'EPSG:2056');
    assert.equal(table!.crsAssumed, false);
    const [west, south, east, north] = table!.bbox!;
    assert.ok(west > 6.5 && east < 8.6 && south > 46.4 && north < 47.5, JSON.stringify(table!.bbox));
    assert.equal(table!.source.label, 'Parcels.ZIP/lv95.shp');
  });

  test('a GeoPackage with two feature tables lists both (multi-parts folded) and leaves out its attribute table', async () => {
    const { format, tables } = await openVectorFile(fixtures.file('two_tables.gpkg'), 'two.gpkg', GEO);
    assert.equal(format, 'geopackage');
    assert.deepEqual(
      tables.map((t) => [t.name, t.featureCount, t.geometryType, t.sourceCrs]),
      [
        ['roads', 2, 'LineString', 'EPSG:4326'],
        ['parcels', 1, 'Polygon', 'EPSG:2056'],
      ],
    );
  });

  test('a GeoPackage is recognised by its content whatever its stored name', async () => {
    const { format } = await openVectorFile(fixtures.file('two_tables.gpkg'), 'upload.bin', GEO);
    assert.equal(format, 'geopackage');
  });

  test('GeoJSON: a mix of kinds is Mixed; a legacy crs member is honoured', async () => {
    const mixed = await openVectorFile(fixtures.file('mixed.geojson'), 'mixed.geojson', GEO);
    assert.equal(mixed.format, 'geojson');
    assert.equal(mixed.tables[0]!.geometryType, 'Mixed');
    const legacy = await openVectorFile(fixtures.file('legacy_crs.geojson'), 'legacy.json', GEO);
    assert.equal(legacy.tables[0]!.sourceCrs, 'EPSG:2056');
  });

  test('CSV: latitude/longitude under usual names, a ; separator, x/y, a WKT column; WGS84 is assumed', async () => {
    const cases: [string, string][] = [
      ['points_latlon.csv', 'Point'],
      ['points_semicolon.csv', 'Point'],
      ['points_xy.csv', 'Point'],
      ['lines_wkt.csv', 'LineString'],
    ];
    for (const [name, type] of cases) {
      const { format, tables } = await openVectorFile(fixtures.file(name), name, GEO);
      assert.equal(format, 'csv', name);
      assert.equal(tables[0]!.geometryType, type, name);
      assert.equal(tables[0]!.sourceCrs, 'EPSG:4326', name);
      assert.equal(tables[0]!.crsAssumed, true, name);
    }
  });

  test('a shapefile without .prj in longitude/latitude is taken as WGS84', async () => {
    const { tables } = await openVectorFile(fixtures.file('no_prj_lonlat.zip'), 'a.zip', GEO);
    assert.equal(tables[0]!.crsAssumed, true);
  });
});

describe('openVectorFile: refusals', () => {
  test('formats that are not accepted are unsupported_format, naming the accepted ones', async () => {
    await refused('junk.shp', 'unsupported_format', /\.zip.*accepted formats: GeoJSON/);
    await refused('plain.sqlite', 'unsupported_format', /not a GeoPackage/);
    writeFileSync(fixtures.file('notes.svg'), '<svg xmlns="http://www.w3.org/2000/svg"></svg>');
    await refused('notes.svg', 'unsupported_format', /XML but neither KML nor GPX.*accepted formats/);
  });

  test('an empty file, broken GeoJSON and junk named .shp in a zip are invalid_file with GDAL reason', async () => {
    writeFileSync(fixtures.file('empty.geojson'), '');
    await refused('empty.geojson', 'invalid_file', /empty/);
    await refused('truncated.geojson', 'invalid_file', /GDAL cannot read truncated\.geojson/);
    await refused('junk_shp.zip', 'invalid_file', /junk_shp\.zip\/junk\.shp.*not recognized/);
  });

  test('zips: a bomb, no .shp, an OGR VRT (also named .shp) are refused without reading /etc/passwd', async () => {
    await refused('bomb.zip', 'invalid_zip', /expand to more than \d+ bytes \(20 times/);
    await refused('no_shp.zip', 'invalid_zip', /no shapefile/);
    await refused('vrt_only.zip', 'invalid_zip', /no shapefile/);
    await refused('vrt_as_shp.zip', 'invalid_file', /not recognized/);
  });

  test('a member that inflates to more than it declares is refused (GDAL would read all of it)', async () => {
    await refused(
      'lying_sizes.zip',
      'invalid_zip',
      /lv95\.dbf in the zip expands to a size other than the one it declares/,
    );
  });

  test('the expanded-size cap also holds in absolute terms', async () => {
    const limits = { maxRatio: 1000, maxExpandedBytes: 1000, maxEntries: 100 };
    await assert.rejects(shapefilesInZip(fixtures.file('lv95.zip'), limits), /expand to more than 1000 bytes/);
    assert.deepEqual(await shapefilesInZip(fixtures.file('lv95.zip'), GEO.zip), ['lv95.shp']);
  });

  test('no feature tables: a GeoPackage of attributes only, a CSV without coordinates', async () => {
    await refused('no_features.gpkg', 'no_feature_tables', /no feature table/);
    await refused('no_coordinates.csv', 'no_feature_tables', /no longitude\/latitude columns/);
  });

  test('coordinates that are not longitude/latitude: unknown_crs without a CRS, invalid_file naming the feature otherwise', async () => {
    await refused('no_prj_projected.zip', 'unknown_crs', /unknown: .*names no coordinate reference system.*sourceCrs/);
    await refused('projected.csv', 'unknown_crs', /not longitude\/latitude/);
    await refused(
      'projected.geojson',
      'unknown_crs',
      /projected\.geojson names no coordinate reference system.*look projected/,
    );
    await refused('out_of_range.geojson', 'invalid_file', /out of range.*first at feature 2/);
    await refused('out_of_range.csv', 'unknown_crs', /first at row 2/);
  });

  test('a GeoJSON whose positions its reader checks is not measured, and is refused as it is read', async () => {
    const onRead = { positionsCheckedOnRead: true };
    const { tables } = await openVectorFile(fixtures.file('projected.geojson'), 'projected.geojson', GEO, onRead);
    assert.equal(tables[0]!.bbox, null);
    assert.equal(tables[0]!.sourceCrs, 'EPSG:4326');
    const projected = /projected\.geojson names no coordinate reference system.*look projected.*first at feature 1/;
    await refused('projected.geojson', 'unknown_crs', projected, 'projected.geojson', onRead);
    await refused('out_of_range.geojson', 'invalid_file', /out of range.*first at feature 2/, undefined, onRead);
    writeFileSync(
      fixtures.file('infinite.geojson'),
      '{"type":"FeatureCollection","features":[{"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[7,1e309]}}]}',
    );
    await refused(
      'infinite.geojson',
      'invalid_file',
      /feature 1: a coordinate is not a finite number/,
      undefined,
      onRead,
    );
  });

  test('a FeatureCollection whose members were read is not opened by GDAL when they name no CRS, or CRS84', async () => {
    const file = fixtures.file('members.geojson');
    writeFileSync(file, '{"type":"FeatureCollection","features":[');
    const open = (members: Record<string, unknown>) =>
      openVectorFile(file, 'members.geojson', GEO, { positionsCheckedOnRead: true, collectionMembers: members });
    // The file is not valid GeoJSON: GDAL would refuse it; its reader finds that out instead.
    for (const members of [
      { type: 'FeatureCollection' },
      { type: 'FeatureCollection', crs: { type: 'name', properties: { name: 'urn:ogc:def:crs:OGC:1.3:CRS84' } } },
    ]) {
      const [table] = (await open(members)).tables;
      assert.deepEqual(
        { crs: table!.sourceCrs, count: table!.featureCount, fields: table!.fields, label: table!.label },
        { crs: 'EPSG:4326', count: null, fields: null, label: 'members.geojson' },
      );
    }
    // Another CRS, or no FeatureCollection: GDAL inspects it (and refuses it).
    const lv95 = { type: 'FeatureCollection', crs: { type: 'name', properties: { name: 'EPSG:2056' } } };
    await assert.rejects(open(lv95), (error: VectorRejected) => error.code === 'invalid_file');
    await assert.rejects(open({ type: 'Feature' }), (error: VectorRejected) => error.code === 'invalid_file');
  });
});
