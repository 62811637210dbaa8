/**
 * The service with its files on a real S3 server (OpenStack Swift, test/support/swift.ts):
 * a marker photo, a chunked layer upload (assembled in the bucket, no chunk read whole by the
 * instance), a raster whose tiles read byte ranges, an export artifact; deleting a raster
 * layer, clearing the room, the 24-hour sweep and deleting the room remove the objects, until
 * the bucket is empty. Every object is followed in the bucket itself.
 */
import { execFileSync } from 'node:child_process';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import sharp from 'sharp';
import { tileAt } from '../raster-fixtures.js';
import { assertOk, call, createRoom, postMultipart, scaffold, type TestApp, type Users } from '../helpers.js';
import { CountingStore } from '../support/blobs.js';
import { assertValidGpkg, ogrTables, scratch } from '../support/exports.js';
import { completedJob, listLayers } from '../support/layers.js';
import { fetchTile, makeUploadFixtures, newRaster, type RasterLayer } from '../support/rasters.js';
import { type S3TestServer, s3TestServer } from '../support/swift.js';
import { makeVectorFixtures } from '../vector-fixtures.js';

let server: S3TestServer;
let bucket: string;
let t: TestApp;
let users: Users;
let room: string;
let counting: CountingStore;
let rasters: ReturnType<typeof makeUploadFixtures>;
let vectors: ReturnType<typeof makeVectorFixtures>;
let files: ReturnType<typeof scratch>;

before(async () => {
  server = await s3TestServer();
  bucket = await server.newBucket();
  rasters = makeUploadFixtures();
  vectors = makeVectorFixtures('over5mb');
  files = scratch();
  ({ t, users } = await scaffold({
    rooms: [],
    config: { s3Bucket: bucket, s3Endpoint: server.endpoint, s3ForcePathStyle: true },
    build: {
      wrapBlobStore: (store) => {
        counting = new CountingStore(store);
        return counting.wrap();
      },
    },
  }));
  room = await createRoom(t.app, users.owner);
});
after(async () => {
  await t?.close();
  await server?.stop();
  rasters?.remove();
  vectors?.remove();
  files?.remove();
});

const keys = () => server.keysIn(bucket);
const under = async (prefix: string) => (await keys()).filter((key) => key.startsWith(prefix));

async function objectBytes(key: string): Promise<Buffer> {
  const answer = await server.client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return Buffer.from(await answer.Body!.transformToByteArray());
}

test('a marker photo and its thumbnail are objects in the bucket, served back from it', async () => {
  const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#336699' } })
    .png()
    .toBuffer();
  const form = { image: { data: png, filename: 'a.png' } };
  const photo = assertOk(
    await postMultipart(t.app, `/api/rooms/${room}/markers/upload-image`, form, users.owner.token),
  );
  assert.deepEqual(await under(`markers/${room}/`), [photo.imageKey, photo.thumbnailKey].sort());
  const served = await call(t.app, 'GET', `/api/rooms/${room}/markers/image?key=${photo.imageKey}`, {
    auth: users.owner.token,
  });
  assert.equal(served.statusCode, 200);
  assert.ok(served.rawPayload.equals(await objectBytes(photo.imageKey)), 'the bytes of the object');
});

test('a chunked layer upload is assembled in the bucket: no chunk is read whole by the instance', async () => {
  const file = readFileSync(vectors.file('over_5mb.geojson'));
  // The first chunk is copied inside the store (5 MiB and more), the second is sent.
  const cut = 5 * 1024 ** 2 + 1000;
  assert.ok(file.length > cut, `the fixture has ${file.length} bytes`);
  const chunks = [file.subarray(0, cut), file.subarray(cut)];
  const uploadId = 'upload-s3-chunked';
  for (const [chunkIndex, data] of chunks.entries()) {
    const form = {
      roomName: room,
      uploadId,
      chunkIndex: String(chunkIndex),
      totalChunks: '2',
      fileName: 'big.geojson',
      chunk: { data, filename: 'blob' },
    };
    assertOk(await postMultipart(t.app, '/api/layers/upload-chunk', form, users.owner.token));
  }
  assert.equal((await under(`chunks/${room}/${uploadId}/`)).length, 2, 'the chunks are objects');
  counting.reset();
  const res = await call(t.app, 'POST', '/api/layers/process-chunked', {
    auth: users.owner.token,
    body: { roomName: room, uploadId, fileName: 'big.geojson' },
  });
  assert.equal(res.statusCode, 202, res.body);
  await completedJob(t.app, res.json().jobId, users.owner.token);
  assert.deepEqual(
    counting.whole.filter((entry) => entry.includes('chunks/')),
    [],
    'the chunks were never read whole',
  );
  assert.equal(counting.concats.length, 1, 'assembled by one concat');
  assert.deepEqual(await under(`chunks/${room}/`), [], 'the chunks are gone');
  assert.deepEqual(await under(`uploads/${room}/`), [], 'the assembled file is gone once ingested');
  const layers = await listLayers(t.app, room, users.owner.token);
  assert.deepEqual(
    layers.map((layer) => layer.name),
    ['big'],
  );
  assert.ok(layers[0]!.featureCount > 0);
});

let raster: RasterLayer;

test('raster tiles read small byte ranges of the object, through the block cache', async () => {
  raster = await newRaster(t.app, room, users.owner.token, rasters.file('big-2056.tif'));
  const tiles = `layers/${room}/${raster.id}/tiles.tif`;
  assert.ok((await keys()).includes(tiles), 'the tileable file is an object');
  const [lon, lat] = [(raster.bbox[0]! + raster.bbox[2]!) / 2, (raster.bbox[1]! + raster.bbox[3]!) / 2];
  const { x, y } = tileAt(lon, lat, raster.maxZoom);

  counting.reset();
  await fetchTile(t.app, room, raster.id, raster.maxZoom, x, y, users.owner.token);
  assert.deepEqual(counting.whole, [], 'nothing read whole, no local copy');
  const first = counting.ranges.get(tiles) ?? 0;
  const size = (await counting.sizeOf(tiles))!;
  assert.ok(first > 0 && first < size / 10, `the first tile read ${first} of ${size} bytes`);

  counting.reset();
  await fetchTile(t.app, room, raster.id, raster.maxZoom, x + 1, y, users.owner.token);
  const next = counting.ranges.get(tiles) ?? 0;
  assert.ok(next > 0 && next < first, `the next tile read ${next} bytes: its blocks only`);
  counting.reset();
  await fetchTile(t.app, room, raster.id, raster.maxZoom, x + 1, y + 1, users.owner.token);
  assert.deepEqual(
    [...counting.ranges.keys()].filter((key) => key !== tiles),
    [],
    'only the tileable file',
  );
});

test('the raster point query reads the source object by ranges (GDAL /vsis3/), answering what GDAL answers for the file', async () => {
  const [lon, lat] = [(raster.bbox[0]! + raster.bbox[2]!) / 2, (raster.bbox[1]! + raster.bbox[3]!) / 2];
  counting.reset();
  const res = await call(t.app, 'GET', `/api/rooms/${room}/raster-layers/${raster.id}/point?lon=${lon}&lat=${lat}`, {
    auth: users.owner.token,
  });
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(counting.whole, [], 'no download of the source');
  const expected = execFileSync(
    'gdallocationinfo',
    ['-valonly', '-wgs84', rasters.file('big-2056.tif'), String(lon), String(lat)],
    {
      encoding: 'utf8',
    },
  )
    .trim()
    .split('\n')
    .map(Number);
  assert.deepEqual(res.json().values, expected);
});

test('an export artifact is an object, served back as a valid GeoPackage', async () => {
  const res = await call(t.app, 'POST', `/api/rooms/${room}/export-jobs`, {
    auth: users.owner.token,
    body: { include_tiffs: true },
  });
  assert.equal(res.statusCode, 202, res.body);
  const { jobId } = res.json();
  for (let i = 0; i < 300; i++) {
    const job = assertOk(
      await call(t.app, 'GET', `/api/rooms/${room}/export-jobs/${jobId}`, { auth: users.owner.token }),
    );
    if (job.status === 'complete') break;
    assert.notEqual(job.status, 'error', JSON.stringify(job));
    await sleep(100);
  }
  assert.deepEqual(await under(`exports/${room}/`), [`exports/${room}/${jobId}.gpkg`]);
  const artifact = await call(t.app, 'GET', `/api/rooms/${room}/export-jobs/${jobId}/artifact`, {
    auth: users.owner.token,
  });
  assert.equal(artifact.statusCode, 200);
  const file = files.file('artifact.gpkg');
  writeFileSync(file, artifact.rawPayload);
  assertValidGpkg(file);
  assert.equal(ogrTables(file).get('raster_files'), 1, 'the raster, read from the bucket');

  // 24 hours later the sweep (at start) removes the artifact, and the chunks of an upload left unfinished.
  const unfinished = {
    roomName: room,
    uploadId: 'upload-s3-unfinished',
    chunkIndex: '0',
    totalChunks: '2',
    fileName: 'late.geojson',
    chunk: { data: Buffer.from('{"type":"FeatureCollection",'), filename: 'blob' },
  };
  assertOk(await postMultipart(t.app, '/api/layers/upload-chunk', unfinished, users.owner.token));
  assert.equal((await under(`chunks/${room}/`)).length, 1);
  const dayAgo = Date.now() - 24 * 3600 * 1000 - 60_000;
  await t.database.db.updateTable('jobs').set({ finished_at: dayAgo }).where('id', '=', jobId).execute();
  await t.database.db.updateTable('upload_chunks').set({ created_at: dayAgo }).execute();
  await t.restart();
  assert.deepEqual(await under(`exports/${room}/`), [], 'the expired artifact is gone');
  assert.deepEqual(await under(`chunks/${room}/`), [], 'the unfinished upload is gone');
});

test('deleting a raster layer, clearing and deleting the room remove their objects: the bucket ends empty', async () => {
  const layerFolder = `layers/${room}/${raster.id}/`;
  assert.ok((await under(layerFolder)).length >= 1);
  assertOk(await call(t.app, 'DELETE', `/api/layers/${raster.id}`, { auth: users.owner.token }));
  assert.deepEqual(await under(layerFolder), [], 'the raster layer files are gone');

  assert.equal((await under(`markers/${room}/`)).length, 2);
  assertOk(await call(t.app, 'POST', `/api/rooms/${room}/clear`, { auth: users.owner.token, body: {} }));
  assert.deepEqual(await under(`markers/${room}/`), [], 'clearing removes the photos');

  // What clearing leaves (none expected) and a chunk of an unfinished upload go with the room.
  const chunk = {
    roomName: room,
    uploadId: 'upload-s3-left',
    chunkIndex: '0',
    totalChunks: '2',
    fileName: 'left.geojson',
    chunk: { data: Buffer.from('{"type":"FeatureCollection",'), filename: 'blob' },
  };
  assertOk(await postMultipart(t.app, '/api/layers/upload-chunk', chunk, users.owner.token));
  assert.notDeepEqual(await keys(), []);
  assertOk(await call(t.app, 'DELETE', `/api/rooms/${room}`, { auth: users.owner.token }));
  assert.deepEqual(await keys(), [], 'the bucket is empty');
});
