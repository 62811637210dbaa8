/**
 * The `maproom` command line with files and live changes, run as a process against a
 * listening service: uploads (a zipped shapefile and a GeoTIFF in one call, and a 60 MB file
 * in chunks that resumes after the command is killed), export checked with GDAL's ogrinfo,
 * import and clone, and `watch` printing changes, also across a restart of the service.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, statSync, writeFileSync, writeSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { makeRasterFixtures } from '../raster-fixtures.js';
import { call, createRoom, issueToken, type TestApp, type TestUser } from '../helpers.js';
import { type CliOptions, type CliWorld, cliRoomId, cliWorld, runCli, startCli } from '../support/cli.js';
import { makeVectorFixtures } from '../vector-fixtures.js';

let t: TestApp;
let owner: TestUser;
let room: string;
let url: string;
let token: string;
let home: string;
let world: CliWorld;
let vectors: ReturnType<typeof makeVectorFixtures>;
let rasters: ReturnType<typeof makeRasterFixtures>;

const cli = (args: string[], options: Partial<CliOptions> = {}) =>
  runCli(args, { url, configHome: home, token, ...options });

before(async () => {
  world = await cliWorld();
  ({ t, owner, url, home } = world);
  room = await createRoom(t.app, owner, cliRoomId());
  ({ token } = await issueToken(t.app, owner, room, ['read', 'write', 'upload']));
  vectors = makeVectorFixtures();
  rasters = makeRasterFixtures();
});

after(async () => {
  await world?.close();
  vectors?.remove();
  rasters?.remove();
});

const layersOf = async (roomId: string) => {
  const vector = (await call(t.app, 'GET', `/api/layers/${roomId}`, { auth: owner.token })).json().layers;
  const raster = (await call(t.app, 'GET', `/api/rooms/${roomId}/raster-layers`, { auth: owner.token })).json()
    .rasterLayers;
  return { vector, raster };
};

describe('upload', () => {
  test('a zipped shapefile and a GeoTIFF in one call become a vector and a raster layer', async () => {
    const run = await cli(['upload', room, vectors.file('lv95.zip'), rasters.file('grid-2056.tif')]);
    assert.equal(run.code, 0, run.stderr);
    const { vector, raster } = await layersOf(room);
    assert.equal(vector.length, 1);
    assert.equal(raster.length, 1);
    assert.equal(vector[0].featureCount, 3);
    assert.equal(
      run.stdout,
      `${vectors.file('lv95.zip')}: vector layer ${vector[0].id} "${vector[0].name}"\n` +
        `${rasters.file('grid-2056.tif')}: raster layer ${raster[0].id} "${raster[0].name}"\n`,
    );
    const listed = JSON.parse((await cli(['--json', 'layers', room])).stdout);
    assert.deepEqual(
      listed.map((l: { id: string; kind: string }) => [l.id, l.kind]),
      [
        [vector[0].id, 'vector'],
        [raster[0].id, 'raster'],
      ],
    );
  });

  test('--name, --style and --as reach the layer; a refused file exits 1 with the service message', async () => {
    const run = await cli([
      '--json',
      'upload',
      room,
      vectors.file('lv95_lines.zip'),
      '--name',
      'Roads',
      '--style',
      '{"color":"d03030"}',
    ]);
    assert.equal(run.code, 0, run.stderr);
    const [uploaded] = JSON.parse(run.stdout).uploaded;
    assert.equal(uploaded.layers[0].name, 'Roads');
    const layer = (await layersOf(room)).vector.find((l: { id: string }) => l.id === uploaded.layerIds[0]);
    assert.equal(layer.style.color, 'd03030');
    // --as layer: a file of points is a point layer, not markers.
    const points = await cli(['--json', 'upload', room, vectors.file('points_latlon.csv'), '--as', 'layer']);
    assert.equal(points.code, 0, points.stderr);
    const [pointLayer] = JSON.parse(points.stdout).uploaded;
    assert.equal(pointLayer.markersCreated, undefined);
    assert.equal(pointLayer.layers.length, 1);
    const refused = await cli(['upload', room, rasters.file('not-a-tiff.tif')]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^maproom: /m);
  });

  test('an interrupted 60 MB upload resumes: only the chunks not acknowledged are sent again', async () => {
    const file = path.join(home, 'padded.geojson');
    paddedGeoJson(file, 60 * 1024 * 1024);
    const env = { MAPROOM_CHUNK_BYTES: String(5 * 1024 * 1024) };
    let chunkRequests = 0;
    t.app.server.on('request', (request) => {
      if (request.url === '/api/layers/upload-chunk') chunkRequests++;
    });

    const first = startCli(['upload', room, file, '--name', 'Padded'], { url, configHome: home, token, env });
    await first.waitFor('stderr', /chunk 1 of 12 sent/);
    first.child.kill('SIGKILL');
    await first.done;
    const sentBefore = chunkRequests;
    assert.ok(sentBefore < 12, `the kill came after every chunk (${sentBefore})`);

    chunkRequests = 0;
    const second = await cli(['upload', room, file, '--name', 'Padded'], { env });
    assert.equal(second.code, 0, second.stderr);
    const resumed = Number(/Resuming: (\d+) of 12 chunks already sent/.exec(second.stderr)?.[1]);
    assert.ok(resumed >= 1 && resumed <= sentBefore, `${resumed} resumed, ${sentBefore} sent before`);
    assert.equal(chunkRequests, 12 - resumed);
    const layer = (await layersOf(room)).vector.find((l: { name: string }) => l.name === 'Padded');
    assert.equal(layer.featureCount, 1);
    assert.match(second.stdout, new RegExp(`vector layer ${layer.id} "Padded"`));
  });

  test('a resume state that does not describe the file (edited, damaged) is not trusted: the whole file is sent', async () => {
    const file = path.join(home, 'tampered.geojson');
    paddedGeoJson(file, 51 * 1024 * 1024);
    const chunk = 5 * 1024 * 1024;
    const env = { MAPROOM_CHUNK_BYTES: String(chunk) };
    const own = await createRoom(t.app, owner, cliRoomId()); // the export below counts this room's layers
    // The state file of this upload (its key: service, room, path, size, modification time), saying the
    // file has 2 chunks of which the first is sent, when it has 11.
    const info = statSync(file);
    const key = [url, own, path.resolve(file), info.size, info.mtimeMs].join('\n');
    const stateFile = path.join(home, 'maproom', 'uploads', `${createHash('sha256').update(key).digest('hex')}.json`);
    mkdirSync(path.dirname(stateFile), { recursive: true });
    const uploadId = randomUUID().replace(/-/g, '');
    writeFileSync(stateFile, JSON.stringify({ uploadId, totalChunks: 2, chunkBytes: chunk, sent: [0] }));
    let chunkRequests = 0;
    const count = (request: { url?: string }) => {
      if (request.url === '/api/layers/upload-chunk') chunkRequests++;
    };
    t.app.server.on('request', count);
    try {
      const run = await cli(['upload', own, file, '--name', 'Tampered'], { env, token: owner.token });
      assert.equal(run.code, 0, run.stderr);
      assert.doesNotMatch(run.stderr, /Resuming/);
      assert.equal(chunkRequests, 11);
      const layer = (await layersOf(own)).vector.find((l: { name: string }) => l.name === 'Tampered');
      assert.equal(layer.featureCount, 1);
      assert.equal(existsSync(stateFile), false);
    } finally {
      t.app.server.off('request', count);
    }
  });
});

describe('export, import and clone', () => {
  test('export writes a GeoPackage ogrinfo reads; import and clone bring it into new rooms', async () => {
    await call(t.app, 'POST', `/api/rooms/${room}/markers`, {
      auth: token,
      body: { latitude: 46.9, longitude: 7.4, title: 'Bern' },
    });
    const file = path.join(home, 'room.gpkg');
    const run = await cli(['export', room, '-o', file]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, new RegExp(`^Wrote ${file} \\(\\d+ kB\\)\\n$`));
    const info = execFileSync('ogrinfo', ['-ro', '-q', '-so', file], { encoding: 'utf8' });
    assert.match(info, /markers \(Point\)/);
    const bern = execFileSync('ogrinfo', ['-ro', '-q', file, '-sql', 'SELECT title FROM markers'], {
      encoding: 'utf8',
    });
    assert.match(bern, /title \(String\) = Bern/);

    const imported = cliRoomId();
    const importRun = await cli(['--json', 'import', imported, file, '--create'], { token: owner.token });
    assert.equal(importRun.code, 0, importRun.stderr);
    assert.equal(JSON.parse(importRun.stdout).imported.markers, 1);
    // The room's vector layers so far: lv95.zip, lv95_lines.zip, points_latlon.csv (--as layer), the padded file.
    assert.equal((await layersOf(imported)).vector.length, 4);

    const cloned = cliRoomId();
    const manifest = `${url}/api/rooms/${room}/export-manifest`;
    const cloneRun = await cli(['clone', manifest, cloned, '--create'], { token: owner.token });
    assert.equal(cloneRun.code, 0, cloneRun.stderr);
    assert.equal(cloneRun.stdout, `Cloned ${room} into ${cloned} (5 layers)\n`);
    const { vector, raster } = await layersOf(cloned);
    assert.deepEqual([vector.length, raster.length], [4, 1]);
  });
});

describe('watch', () => {
  test('prints the changes made meanwhile, one JSON line each, and catches up after the service restarts', async () => {
    const watch = startCli(['watch', room], { url, configHome: home, token });
    try {
      await watch.waitFor('stderr', /Watching .* from version \d+/);
      const first = await call(t.app, 'POST', `/api/rooms/${room}/markers`, {
        auth: token,
        body: { latitude: 1, longitude: 2, title: 'Live' },
      });
      const live = JSON.parse((await watch.waitFor('stdout', /^.*"Live".*$/m))[0]);
      assert.equal(live.type, 'marker.created');
      assert.equal(live.objectId, first.json().marker.id);

      // The service goes away; a change is made before it listens again, which the watch then catches up on.
      const { port } = t.app.server.address() as AddressInfo;
      await t.restart();
      const missed = await call(t.app, 'POST', `/api/rooms/${room}/markers`, {
        auth: token,
        body: { latitude: 1, longitude: 2, title: 'Missed' },
      });
      await t.app.listen({ port, host: '127.0.0.1' });
      const caught = JSON.parse((await watch.waitFor('stdout', /^.*"Missed".*$/m))[0]);
      assert.equal(caught.objectId, missed.json().marker.id);
      assert.equal(caught.version, live.version + 1);
      assert.match(watch.stderr(), /Connection lost/);
      const lines = watch
        .stdout()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      assert.deepEqual(
        lines.map((l) => l.data.title),
        ['Live', 'Missed'],
      );
    } finally {
      watch.child.kill();
      await watch.done;
    }
  });

  test('a room it may not read exits 1 with the service message', async () => {
    const run = await cli(['watch', cliRoomId()], { token: owner.token });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /^maproom: /);
  });
});

/** A GeoJSON of one polygon padded with whitespace to `bytes` (valid JSON that GDAL reads at once). */
function paddedGeoJson(file: string, bytes: number) {
  const head = JSON.stringify({
    type: 'FeatureCollection',
    features: [
      {
        type: 'Feature',
        properties: { name: 'a' },
        geometry: {
          type: 'Polygon',
          coordinates: [
            [
              [7, 46],
              [7.1, 46],
              [7.1, 46.1],
              [7, 46],
            ],
          ],
        },
      },
    ],
  }).slice(0, -1);
  const fd = openSync(file, 'w');
  writeSync(fd, head);
  const block = Buffer.alloc(1024 * 1024, ' ');
  for (let left = bytes - head.length - 1; left > 0; left -= block.length)
    writeSync(fd, block, 0, Math.min(left, block.length));
  writeSync(fd, '}');
  closeSync(fd);
}
