import assert from 'node:assert/strict';
import { geoLimitsOf, loadConfig } from '../../src/config.js';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { GdalError } from '../../src/geo-engine/gdal-process.js';
import { openVectorFile, VectorRejected, type VectorTable } from '../../src/geo-engine/vector-open.js';
import {
  fidRanges,
  geoJsonSeqArguments,
  newStats,
  readFeatures,
  type StreamedFeature,
} from '../../src/geo-engine/vector-stream.js';
import { makeVectorFixtures } from '../vector-fixtures.js';

/** The geo engine's limits under the default settings. */
const GEO = geoLimitsOf(loadConfig({}));

let fixtures: ReturnType<typeof makeVectorFixtures>;
before(() => {
  fixtures = makeVectorFixtures();
  // 3,000 building footprints in LV95 (GeoPackage and zipped shapefile), by the benchmark's own generator.
  const script = fileURLToPath(new URL('../../bench/data/make_vector_data.py', import.meta.url));
  const run = spawnSync('/usr/bin/python3', [script, fixtures.file('buildings'), '3000'], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
});
after(() => fixtures.remove());

async function tableOf(name: string, index = 0): Promise<VectorTable> {
  return (await openVectorFile(fixtures.file(name), name, GEO)).tables[index]!;
}

async function readAll(table: VectorTable, options = {}) {
  const stats = newStats();
  const features: StreamedFeature[] = [];
  for await (const batch of readFeatures(table, GEO, options, stats)) features.push(...batch);
  return { features, stats };
}

/** Metres between two longitude/latitude positions (haversine). */
function metres([lon1, lat1]: number[], [lon2, lat2]: number[]): number {
  const rad = Math.PI / 180;
  const a =
    Math.sin(((lat2! - lat1!) * rad) / 2) ** 2 +
    Math.cos(lat1! * rad) * Math.cos(lat2! * rad) * Math.sin(((lon2! - lon1!) * rad) / 2) ** 2;
  return 2 * 6371008.8 * Math.asin(Math.sqrt(a));
}

describe('readFeatures', () => {
  test('a zipped LV95 shapefile lands within 1 m of where ogr2ogr -t_srs EPSG:4326 puts it', async () => {
    const { features } = await readAll(await tableOf('lv95.zip'));
    const reference = JSON.parse(readFileSync(fixtures.file('lv95_reference.geojson'), 'utf8')) as {
      features: { properties: { name: string }; geometry: { coordinates: number[][][] } }[];
    };
    assert.equal(features.length, 3);
    for (const feature of features) {
      const expected = reference.features.find((f) => f.properties.name === feature.properties.name)!;
      const ring = (feature.geometry.coordinates as number[][][])[0]!;
      for (const position of ring) {
        const nearest = Math.min(...expected.geometry.coordinates[0]!.map((other) => metres(position, other)));
        assert.ok(nearest < 1, `${feature.properties.name}: ${nearest.toFixed(3)} m off`);
      }
      // The bbox is the positions' bbox, in longitude/latitude.
      assert.ok(feature.bbox[0] > 6 && feature.bbox[2] < 9 && feature.bbox[0] < feature.bbox[2]);
    }
  });

  test('each table of a GeoPackage reads on its own, reprojected, with its fids as stable ids', async () => {
    const roads = await readAll(await tableOf('two_tables.gpkg', 0));
    assert.deepEqual(
      roads.features.map((f) => [f.id, f.properties.name, f.geometry.type]),
      [
        [1, 'A1', 'LineString'],
        [2, 'A9', 'LineString'],
      ],
    );
    const parcels = await readAll(await tableOf('two_tables.gpkg', 1));
    assert.equal(parcels.features[0]!.geometry.type, 'MultiPolygon');
    const [lon, lat] = (parcels.features[0]!.geometry.coordinates as number[][][][])[0]![0]![0]!;
    assert.ok(Math.abs(lon! - 7.4386) < 0.001 && Math.abs(lat! - 46.9483) < 0.001, `${lon}, ${lat}`);
  });

  test('GeoJSON properties keep their JSON types; features without geometry are counted and left out', async () => {
    const { features, stats } = await readAll(await tableOf('mixed.geojson'));
    assert.equal(features.length, 2);
    assert.equal(stats.skippedWithoutGeometry, 1);
    assert.deepEqual(features[0]!.properties.tags, ['x', 'y']);
    assert.deepEqual(features[0]!.properties.nested, { k: true });
    // Ids are positions; the file's own id ("a") stays as a property.
    assert.deepEqual(
      features.map((f) => f.id),
      [1, 2],
    );
    assert.equal(features[0]!.properties.id, 'a');
  });

  test('a GeoJSON in longitude/latitude is read from the file itself as ogr2ogr reads it, large features too', async () => {
    // A ring of 30,000 vertices: far more JSON values than a point import takes.
    const ring = Array.from({ length: 30_000 }, (_, i) => {
      const angle = (2 * Math.PI * i) / 30_000;
      return [7.4 + 0.01 * Math.cos(angle), 46.9 + 0.01 * Math.sin(angle)];
    });
    ring.push(ring[0]!);
    const square = [
      [
        [7, 46],
        [7.1, 46],
        [7.1, 46.1],
        [7, 46.1],
        [7, 46],
      ],
    ];
    const collection = {
      type: 'FeatureCollection',
      features: [
        {
          type: 'Feature',
          id: 'a',
          properties: { code: 12, n: 1 },
          geometry: { type: 'Polygon', coordinates: square },
        },
        { type: 'Feature', properties: { code: 'X', n: 2 }, geometry: null },
        {
          type: 'Feature',
          id: 7,
          properties: { code: null, n: 3 },
          geometry: { type: 'Polygon', coordinates: [ring] },
        },
      ],
    };
    writeFileSync(fixtures.file('direct.geojson'), JSON.stringify(collection));
    const table = await tableOf('direct.geojson');
    const direct = await readAll(table);
    // The same file given its CRS is reprojected (to itself) by ogr2ogr.
    const viaGdal = await readAll({ ...table, source: { ...table.source, assignedCrs: 'EPSG:4326' } });
    assert.equal(direct.features.length, 2);
    assert.equal(direct.stats.skippedWithoutGeometry, 1);
    assert.deepEqual(
      direct.features.map((f) => [f.id, f.properties]),
      viaGdal.features.map((f) => [f.id, f.properties]),
    );
    // GDAL types `code` as text (12 and "X"): its number is made text, as ogr2ogr writes it.
    assert.deepEqual(direct.features[0]!.properties, { code: '12', n: 1, id: 'a' });
    const [big, bigViaGdal] = [direct.features[1]!, viaGdal.features[1]!];
    const coordinates = (feature: StreamedFeature) => (feature.geometry.coordinates as number[][][])[0]!;
    assert.equal(coordinates(big).length, 30_001);
    assert.equal(coordinates(bigViaGdal).length, 30_001);
    assert.ok(coordinates(big).every((p, i) => metres(p, coordinates(bigViaGdal)[i]!) < 0.05));
    assert.deepEqual(big.bbox, direct.features[1]!.bbox);
  });

  test('a GeoJSON read from the file refuses a broken feature naming the file, and stops when aborted', async () => {
    writeFileSync(
      fixtures.file('broken.geojson'),
      '{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[7,46]},"properties":{}},{"type":"Feature","geometry":{"type":"Point","coordinates":[7,46]},"properties":{}}]}',
    );
    const table = await tableOf('broken.geojson');
    const broken = { ...table, source: { ...table.source, gdalPath: fixtures.file('broken-copy.geojson') } };
    writeFileSync(
      fixtures.file('broken-copy.geojson'),
      '{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[7,46]}},{"type":"Feature","geometry":nope}]}',
    );
    await assert.rejects(readAll(broken), (error: unknown) => {
      assert.ok(error instanceof VectorRejected);
      assert.equal(error.code, 'invalid_file');
      assert.match(error.message, /^broken\.geojson: The file is not valid JSON \(Feature 2/);
      return true;
    });
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(
      readAll(table, { signal: controller.signal }),
      (error: unknown) => error instanceof GdalError && error.failure === 'aborted',
    );
  });

  test('shapefile ids are record numbers from 1, GeoPackage ids its fids', async () => {
    const shapefile = await readAll(await tableOf('lv95.zip'));
    assert.deepEqual(
      shapefile.features.map((f) => f.id),
      [1, 2, 3],
    );
    const csv = await readAll(await tableOf('points_latlon.csv'));
    assert.deepEqual(
      csv.features.map((f) => f.id),
      [1, 2],
    );
  });

  test('CSV rows become points; a row without valid coordinates is refused naming its row', async () => {
    const latlon = await readAll(await tableOf('points_latlon.csv'));
    assert.deepEqual(
      latlon.features.map((f) => f.geometry.coordinates),
      [
        [7.4474, 46.948],
        [8.5417, 47.3769],
      ],
    );
    assert.deepEqual(latlon.features[0]!.properties, { name: 'Bern', height: 540 });
    const semicolon = await readAll(await tableOf('points_semicolon.csv'));
    assert.deepEqual(semicolon.features[1]!.geometry.coordinates, [6.6323, 46.5197]);
    const wkt = await readAll(await tableOf('lines_wkt.csv'));
    assert.equal(wkt.features[0]!.geometry.type, 'LineString');
    await assert.rejects(readAll(await tableOf('bad_coordinates.csv')), (error: unknown) => {
      assert.ok(error instanceof VectorRejected);
      assert.equal(error.code, 'invalid_file');
      assert.match(error.message, /row 2: no valid coordinates/);
      return true;
    });
  });

  test('a table read in two FID ranges by two ogr2ogr processes gives the same features', async () => {
    for (const name of ['buildings/buildings.gpkg', 'buildings/buildings.shp.zip']) {
      const table = await tableOf(name);
      assert.equal(fidRanges(table, 2).length, 2, name);
      const whole = await readAll(table);
      const halves = await readAll(table, { parts: 2, batchSize: 100 });
      assert.equal(whole.features.length, 3000, name);
      const byId = (list: StreamedFeature[]) => new Map(list.map((f) => [f.id, JSON.stringify(f)]));
      assert.deepEqual(byId(halves.features), byId(whole.features), name);
    }
  });

  test('ogr2ogr reprojects, or assigns WGS84 to a file that has no CRS, and filters FID ranges', async () => {
    const table = await tableOf('buildings/buildings.gpkg');
    assert.deepEqual(geoJsonSeqArguments(table).slice(-5), [
      '-t_srs',
      'EPSG:4326',
      '-preserve_fid',
      '-lco',
      'COORDINATE_PRECISION=7',
    ]);
    assert.ok(geoJsonSeqArguments({ ...table, crsAssumed: true }).includes('-a_srs'));
    assert.deepEqual(geoJsonSeqArguments(table, [1, 1500]).slice(-2), ['-where', '"fid" >= 1 AND "fid" <= 1500']);
    assert.deepEqual(fidRanges(table, 2), [
      [1, 1500],
      [1501, 3000],
    ]);
    assert.deepEqual(fidRanges({ ...table, fidRange: null }, 2), [undefined]);
  });

  test('aborting, or stopping the loop, kills ogr2ogr', async () => {
    const table = await tableOf('buildings/buildings.shp.zip');
    const controller = new AbortController();
    await assert.rejects(
      (async () => {
        for await (const _batch of readFeatures(table, GEO, { signal: controller.signal, batchSize: 10 }))
          controller.abort();
      })(),
      (error: unknown) => error instanceof GdalError && error.failure === 'aborted',
    );
    for await (const _batch of readFeatures(table, GEO, { batchSize: 10 })) break;
    const running = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => line.includes(fixtures.dir) && line.includes('ogr2ogr'));
    assert.deepEqual(running, []);
  });

  test('a VRT posing as a shapefile is never read, even when handed straight to the stream', async () => {
    const table = { ...(await tableOf('lv95.zip')), name: 'passwd' };
    const source = {
      ...table.source,
      gdalPath: `/vsizip/${fixtures.file('vrt_as_shp.zip')}/passwd.shp`,
      label: 'vrt_as_shp.zip/passwd.shp',
    };
    await assert.rejects(readAll({ ...table, source }), (error: unknown) => {
      assert.ok(error instanceof VectorRejected);
      assert.doesNotMatch(error.message, /root:|\/bin\/|\/tmp\//);
      return true;
    });
  });
});
