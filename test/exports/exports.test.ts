/**
 * `POST /export` and `POST /import`: the whole room as one GeoPackage that GDAL's validator
 * accepts and ogrinfo/gdalinfo read, and the round trip export, import into an empty room,
 * export again. Contract: docs/http-interface.md ("Export, import and clone"), docs/contract-decisions.md
 * ("Export, import, clone").
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import sharp from 'sharp';
import {
  assertError,
  assertOk,
  call,
  createRoom,
  createRoomWithMembers,
  roomHistory,
  scaffold,
  type TestApp,
  type Users,
} from '../helpers.js';
import {
  assertValidGpkg,
  contentOf,
  exported,
  exportRoom,
  fillRoom,
  importFile,
  ogrRows,
  ogrTables,
  scratch,
} from '../support/exports.js';
import { makeUploadFixtures } from '../support/rasters.js';

let t: TestApp;
let users: Users;
let room: string;
let files: ReturnType<typeof scratch>;
let rasters: ReturnType<typeof makeUploadFixtures>;
let filled: Awaited<ReturnType<typeof fillRoom>>;

before(async () => {
  files = scratch();
  rasters = makeUploadFixtures();
  ({ t, users, room } = await scaffold());
  filled = await fillRoom(t.app, room, users.owner.token, rasters.file('grid-2056.tif'));
});
after(async () => {
  await t?.close();
  files?.remove();
  rasters?.remove();
});

describe('export', () => {
  test('is a valid GeoPackage holding every kind of content, with the right counts', async () => {
    const file = files.file('room.gpkg');
    const res = await exportRoom(t.app, room, users.viewer.token, file);
    assert.equal(res.statusCode, 200, res.body.slice(0, 300));
    assert.equal(res.headers['content-type'], 'application/geopackage+sqlite3');
    assert.match(String(res.headers['content-disposition']), new RegExp(`attachment; filename="${room}.gpkg"`));
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assertValidGpkg(file);
    const tables = ogrTables(file);
    assert.equal(tables.get('markers'), 2);
    // A table per kind of drawing: QGIS shows a table's features of one geometry type only.
    assert.equal(tables.get('drawings_polygons'), 1);
    assert.equal(tables.get('drawings_lines'), 1);
    assert.equal(tables.get('drawings_points'), 0);
    assert.equal(tables.has('drawings'), false);
    assert.equal(tables.get('fields_u'), 2, `a table per layer: ${[...tables.keys()]}`);
    assert.equal(tables.get('comments'), 2);
    assert.equal(tables.get('comment_replies'), 1);
    assert.equal(tables.get('slides'), 1);
    assert.equal(tables.get('marker_icons'), 1);
    assert.equal(tables.get('marker_images'), 2);
    assert.equal(tables.get('layers'), 2);
    assert.equal(tables.get('room'), 1);
    assert.equal(tables.has('raster_files'), false, 'no GeoTIFFs unless include_tiffs');
  });

  test('writes markers and layer features with their values and typed columns', async () => {
    const file = files.file('values.gpkg');
    await exported(t.app, room, users.owner.token, file);
    const bridge = ogrRows(file, 'markers').find((m) => m.properties.title === 'Bridge')!;
    assert.deepEqual(bridge.geometry, { type: 'Point', coordinates: [7.44, 46.95] });
    assert.deepEqual(bridge.properties.tags, ['a', 'b'], 'tags as JSON text (GDAL reads it back as the array)');
    assert.equal(bridge.properties.marker_icon_size, 32);
    const features = ogrRows(file, 'fields_u');
    assert.deepEqual(
      features.map((f) => f.properties).sort((a, b) => a.name.localeCompare(b.name)),
      [
        { name: 'east', area: 7, ratio: 1.25 },
        { name: 'west', area: 12, ratio: 0.5 },
      ],
    );
    const info = execFileSync('ogrinfo', ['-ro', '-so', file, 'fields_u'], { encoding: 'utf8' });
    assert.match(info, /area: Integer/);
    assert.match(info, /ratio: Real/);
    assert.match(info, /Extent: \(7\.43\d*, 46\.94\d*\) - \(7\.48\d*, 46\.96\d*\)/);
  });

  test('include_tiffs adds the original GeoTIFF; include_tiles a tile pyramid gdalinfo opens', async () => {
    const file = files.file('tiles.gpkg');
    await exported(t.app, room, users.owner.token, file, '?include_tiffs=true&include_tiles=true');
    assertValidGpkg(file);
    const tables = ogrTables(file);
    assert.equal(tables.get('raster_files'), 1);
    const layers = ogrRows(file, 'layers');
    const raster = layers.find((l) => l.properties.kind === 'raster')!;
    const info = JSON.parse(
      execFileSync('gdalinfo', ['-json', '-oo', `TABLE=${raster.properties.tiles_table}`, file], { encoding: 'utf8' }),
    );
    assert.equal(info.driverShortName, 'GPKG');
    assert.ok(info.bands.length >= 1);
    assert.ok(info.bands[0].overviews?.length >= 1 || info.size[0] <= 256, 'a pyramid: overviews below the full zoom');
  });

  test('refuses a body that is not {} and options that are not booleans', async () => {
    assertError(
      await call(t.app, 'POST', `/api/rooms/${room}/export`, { auth: users.owner.token, body: { everything: true } }),
      400,
      'validation_error',
    );
    assertError(
      await call(t.app, 'POST', `/api/rooms/${room}/export?include_tiffs=maybe`, { auth: users.owner.token, body: {} }),
      400,
      'validation_error',
    );
  });

  test('export-size answers an estimate, the threshold and a recommendation', async () => {
    const body = assertOk(await call(t.app, 'GET', `/api/rooms/${room}/export-size`, { auth: users.viewer.token }));
    assert.equal(body.thresholdBytes, 2 * 1024 ** 3);
    assert.equal(body.recommended, 'sync');
    assert.ok(body.bytes > 1000);
  });
});

describe('import', () => {
  test('restores an export into an empty room; exporting that room gives the same content', async () => {
    const file = files.file('round.gpkg');
    await exported(t.app, room, users.owner.token, file, '?include_tiffs=true');
    const target = await createRoom(t.app, users.owner);
    const res = await importFile(t.app, target, users.owner.token, readFileSync(file));
    const body = assertOk(res);
    assert.deepEqual(body.imported, {
      markers: 2,
      drawings: 2,
      comments: 2,
      replies: 1,
      slides: 1,
      icons: 1,
      images: 2,
      layers: 1,
      rasterLayers: 1,
    });
    assert.deepEqual(
      await contentOf(t.app, target, users.owner.token),
      await contentOf(t.app, room, users.owner.token),
    );
    const again = files.file('again.gpkg');
    await exported(t.app, target, users.owner.token, again, '?include_tiffs=true');
    assertValidGpkg(again);
    assert.deepEqual(ogrTables(again), ogrTables(file));
    const history = await roomHistory(t.app, target, users.owner.token);
    assert.deepEqual(
      history.map((e) => e.type),
      ['room.imported'],
    );
  });

  test('a photo and an icon come back readable under the new room', async () => {
    const target = await createRoom(t.app, users.owner);
    const file = files.file('photo.gpkg');
    await exported(t.app, room, users.owner.token, file);
    assertOk(await importFile(t.app, target, users.owner.token, readFileSync(file)));
    const marker = assertOk(
      await call(t.app, 'GET', `/api/rooms/${target}/markers`, { auth: users.owner.token }),
    ).markers.find((m: any) => m.title === 'Bridge');
    assert.match(marker.imageKey, new RegExp(`^markers/${target}/`));
    const image = await call(
      t.app,
      'GET',
      `/api/rooms/${target}/markers/image?key=${encodeURIComponent(marker.imageKey)}`,
      { auth: users.owner.token },
    );
    assert.equal(image.statusCode, 200, image.body.slice(0, 200));
    const icon = await call(t.app, 'GET', `/api/rooms/${target}/marker-icons/${marker.markerIconId}`, {
      auth: users.owner.token,
    });
    assert.equal(icon.statusCode, 200);
    assert.match(icon.body, /<circle/);
  });

  test("what an import restores is the importer's: authors, photos made again as clean JPEGs, times no later than now", async () => {
    const file = files.file('crafted.gpkg');
    await exported(t.app, room, users.owner.token, file);
    // A crafted export: comments by someone else from the year 3000, a photo that is a PNG
    // (the markers say the owner made them; the editor imports).
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#00ff00' } })
      .png()
      .toBuffer();
    const db = new SQLite(file);
    db.prepare("UPDATE comments SET author_id = 'someone-else', created_at = '3000-01-01T00:00:00.000Z'").run();
    db.prepare("UPDATE marker_images SET data = ? WHERE kind = 'marker-image'").run(png);
    db.close();
    const target = await createRoomWithMembers(t.app, users);
    const before = Date.now();
    assertOk(await importFile(t.app, target, users.editor.token, readFileSync(file)));
    const comments = assertOk(await call(t.app, 'GET', `/api/rooms/${target}/comments`, { auth: users.owner.token }))
      .comments as any[];
    assert.equal(comments.length, 2);
    for (const comment of comments) {
      assert.deepEqual(comment.author, { kind: 'user', id: users.editor.id });
      assert.ok(comment.createdAt <= Date.now() && comment.createdAt >= before, `createdAt ${comment.createdAt}`);
    }
    const markers = assertOk(await call(t.app, 'GET', `/api/rooms/${target}/markers`, { auth: users.owner.token }))
      .markers as any[];
    assert.deepEqual(new Set(markers.map((m) => m.createdBy)), new Set([users.editor.id]));
    const bridge = markers.find((m) => m.title === 'Bridge');
    const image = await call(
      t.app,
      'GET',
      `/api/rooms/${target}/markers/image?key=${encodeURIComponent(bridge.imageKey)}`,
      { auth: users.owner.token },
    );
    assert.equal(image.statusCode, 200);
    assert.equal(image.headers['content-type'], 'image/jpeg');
    assert.deepEqual([...image.rawPayload.subarray(0, 3)], [0xff, 0xd8, 0xff]);
    assert.equal((await sharp(image.rawPayload).metadata()).width, 8);
  });

  test("a raster's GeoTIFF parts repeated (to write far more than the file) are refused, and nothing is imported", async () => {
    const file = files.file('parts.gpkg');
    await exported(t.app, room, users.owner.token, file, '?include_tiffs=true');
    const db = new SQLite(file);
    db.prepare('INSERT INTO raster_files (layer_id, part, data) SELECT layer_id, part, data FROM raster_files').run();
    db.close();
    const target = await createRoom(t.app, users.owner);
    assertError(await importFile(t.app, target, users.owner.token, readFileSync(file)), 400, 'invalid_file');
    assert.equal(
      assertOk(await call(t.app, 'GET', `/api/rooms/${target}/markers`, { auth: users.owner.token })).markers.length,
      0,
    );
    assert.deepEqual(
      assertOk(await call(t.app, 'GET', `/api/layers/${target}`, { auth: users.owner.token })).layers,
      [],
    );
  });

  test('a GeoPackage written by GDAL becomes one vector layer per feature table, reprojected', async () => {
    const src = files.file('src.geojson');
    const gpkg = files.file('gdal.gpkg');
    execFileSync('ogr2ogr', ['-f', 'GeoJSON', src, '/vsistdin/'], {
      input: JSON.stringify({
        type: 'FeatureCollection',
        features: [
          {
            type: 'Feature',
            properties: { kind: 'x' },
            geometry: {
              type: 'LineString',
              coordinates: [
                [7.4, 46.9],
                [7.5, 47.0],
              ],
            },
          },
        ],
      }),
    });
    execFileSync('ogr2ogr', ['-f', 'GPKG', '-t_srs', 'EPSG:2056', '-nln', 'roads', gpkg, src]);
    execFileSync('ogr2ogr', ['-f', 'GPKG', '-update', '-nln', 'rivers', gpkg, src]);
    const target = await createRoom(t.app, users.owner);
    const body = assertOk(await importFile(t.app, target, users.owner.token, readFileSync(gpkg)));
    assert.equal(body.imported.layers, 2);
    const layers = assertOk(await call(t.app, 'GET', `/api/layers/${target}`, { auth: users.owner.token })).layers;
    // Listed oldest first; the page shows the newest on top: the file's first table, roads.
    assert.deepEqual(
      layers.map((l: any) => l.name),
      ['rivers', 'roads'],
    );
    assert.ok(layers[1].createdAt > layers[0].createdAt, 'the first table is the newest');
    const roads = layers.find((l: any) => l.name === 'roads');
    const [feature] = assertOk(
      await call(t.app, 'GET', `/api/layers/${roads.id}/features`, { auth: users.owner.token }),
    ).features;
    assert.ok(
      Math.abs(feature.geometry.coordinates[0][0] - 7.4) < 1e-6 &&
        Math.abs(feature.geometry.coordinates[0][1] - 46.9) < 1e-6,
      JSON.stringify(feature.geometry),
    );
  });

  test('a file that is not a GeoPackage, or a damaged one, is 400 and imports nothing', async () => {
    const target = await createRoom(t.app, users.owner);
    assertError(
      await importFile(t.app, target, users.owner.token, Buffer.from('not a geopackage at all')),
      400,
      'invalid_file',
    );
    const file = files.file('cut.gpkg');
    await exported(t.app, room, users.owner.token, file);
    const whole = readFileSync(file);
    const damaged = Buffer.from(whole);
    damaged.fill(0x5a, 4096, Math.min(whole.length, 4096 * 8));
    const res = await importFile(t.app, target, users.owner.token, damaged);
    assert.equal(res.statusCode, 400, res.body.slice(0, 300));
    assert.equal(res.json().error, 'invalid_file');
    const counts = assertOk(await call(t.app, 'GET', `/api/rooms/${target}/markers`, { auth: users.owner.token }))
      .markers.length;
    assert.equal(counts, 0);
    assert.deepEqual(await roomHistory(t.app, target, users.owner.token), []);
    assertError(await importFile(t.app, target, users.owner.token, whole.subarray(0, 2000)), 400, 'invalid_file');
  });

  test('a file whose tables compute their values (a generated column) is refused before anything reads them', async () => {
    const gpkg = files.file('generated.gpkg');
    await exported(t.app, room, users.owner.token, gpkg);
    execFileSync('/usr/bin/python3', [
      '-c',
      `import sqlite3; c = sqlite3.connect(${JSON.stringify(gpkg)}); c.execute("DROP TABLE maproom_export"); c.execute("CREATE TABLE maproom_export (key TEXT, value TEXT GENERATED ALWAYS AS (printf('%.*c', 600000000, 'x')))"); c.commit()`,
    ]);
    const target = await createRoom(t.app, users.owner);
    assertError(await importFile(t.app, target, users.owner.token, readFileSync(gpkg)), 400, 'invalid_file');
    assertOk(await call(t.app, 'GET', '/api/health'));
  });

  test('needs write: a viewer is refused', async () => {
    assertError(await importFile(t.app, room, users.viewer.token, Buffer.from('x')), 403, 'forbidden');
    void filled;
  });
});
