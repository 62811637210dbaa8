/**
 * Raster tiles read the stored tileable file by byte ranges through the blob store: a tile of
 * a raster of many blocks reads a small part of the file, never the whole file, and never
 * asks for a local copy (which on object storage downloads the whole file).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertOk, call, scaffold, type TestApp, type Users } from '../helpers.js';
import { tileAt } from '../raster-fixtures.js';
import { CountingStore } from '../support/blobs.js';
import { fetchTile, makeUploadFixtures, newRaster, type RasterLayer } from '../support/rasters.js';

let t: TestApp;
let users: Users;
let room: string;
let counting: CountingStore;
let fixtures: ReturnType<typeof makeUploadFixtures>;

before(async () => {
  fixtures = makeUploadFixtures();
  ({ t, users, room } = await scaffold({
    build: {
      wrapBlobStore: (store) => {
        counting = new CountingStore(store);
        return counting.wrap();
      },
    },
  }));
});
after(async () => {
  if (t) await t.close();
  fixtures?.remove();
});

test('a tile reads a small part of a large raster by ranges: no whole file, no local copy', async () => {
  const layer: RasterLayer = await newRaster(t.app, room, users.owner.token, fixtures.file('big-2056.tif'));
  const [lon, lat] = [(layer.bbox[0]! + layer.bbox[2]!) / 2, (layer.bbox[1]! + layer.bbox[3]!) / 2];
  const z = layer.maxZoom;
  const { x, y } = tileAt(lon, lat, z);

  counting.reset();
  await fetchTile(t.app, room, layer.id, z, x, y, users.owner.token);
  assert.deepEqual(counting.whole, [], 'nothing read whole');
  assert.equal(counting.ranges.size, 1, 'one file read');
  const [[key, first]] = [...counting.ranges];
  const size = (await counting.sizeOf(key!))!;
  assert.ok(first! < size / 10, `the first tile read ${first} of ${size} bytes`);

  counting.reset();
  await fetchTile(t.app, room, layer.id, z, x + 1, y, users.owner.token);
  const next = counting.ranges.get(key!) ?? 0;
  assert.ok(next > 0 && next < first!, `the next tile read ${next} bytes: its block only, the file is open`);
  assert.deepEqual(counting.whole, []);
});

test('a repeated point query is answered from memory: the source file is handed to GDAL once', async () => {
  const layer: RasterLayer = await newRaster(t.app, room, users.owner.token, fixtures.file('grid-2056.tif'));
  const [lon, lat] = [(layer.bbox[0]! + layer.bbox[2]!) / 2, (layer.bbox[1]! + layer.bbox[3]!) / 2];
  const point = (x: number) => `/api/rooms/${room}/raster-layers/${layer.id}/point?lon=${x}&lat=${lat}`;
  counting.reset();
  const first = assertOk(await call(t.app, 'GET', point(lon), { auth: users.owner.token }));
  const again = assertOk(await call(t.app, 'GET', point(lon), { auth: users.owner.token }));
  assert.deepEqual(again, first);
  assert.equal(counting.whole.filter((entry) => entry.startsWith('localFile')).length, 1, counting.whole.join(', '));
  assertOk(await call(t.app, 'GET', point(layer.bbox[0]!), { auth: users.owner.token }));
  assert.equal(counting.whole.filter((entry) => entry.startsWith('localFile')).length, 2, 'another point is read');
});
