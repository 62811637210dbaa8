/**
 * A GeoTIFF's declared size decides where its work is done, not only its bytes: a small file
 * declaring many pixels (width x height x bands over RASTER_SYNC_MAX_PIXELS) answers 202
 * `{jobId}` at once and its job makes it tileable; one over RASTER_MAX_PIXELS (width x height)
 * is 400 `unsupported_raster` naming the bound, at once, with nothing stored. The files are
 * sparse GeoTIFFs written by gdal_create (a few KB declaring millions of pixels).
 * Contract: docs/http-interface.md (Layers and uploads), docs/decisions.md (Raster layers).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { assertError, assertOk, call, createRoom, roomHistory, scaffold, scaffoldSuite } from '../helpers.js';
import { storedState, uploadRaster } from '../support/rasters.js';

let dir: string;

// Low bounds, so that moderate files show the rules quickly.
const SYNC_MAX = 1_000_000;
const MAX = 20_000_000;
const BOUNDS = { rasterSyncMaxPixels: SYNC_MAX, rasterMaxPixels: MAX };

/** A sparse, tiled, georeferenced GeoTIFF of `size` x `size` pixels and `bands` bands. */
function sparse(name: string, size: number, bands = 1): string {
  const file = path.join(dir, name);
  execFileSync('gdal_create', [
    ...['-outsize', String(size), String(size), '-bands', String(bands), '-ot', 'Byte'],
    ...['-a_srs', 'EPSG:4326', '-a_ullr', '7', '47', '8', '46'],
    ...['-co', 'TILED=YES', '-co', 'COMPRESS=DEFLATE', '-co', 'SPARSE_OK=YES', file],
  ]);
  return file;
}

const s = scaffoldSuite(
  {
    users: ['owner'],
    rooms: [],
    config: BOUNDS,
  },
  async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'maproom-pixels-'));
  },
);
after(async () => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function waitForLayerJob(jobId: string) {
  for (let i = 0; i < 3000; i++) {
    const job = assertOk(await call(s.t.app, 'GET', `/api/layers/jobs/${jobId}`, { auth: s.users.owner.token }));
    if (job.stage === 'complete' || job.stage === 'error') return job;
    await sleep(20);
  }
  assert.fail(`job ${jobId} did not finish`);
}

test('a small file declaring many pixels is a job at once: the request stages nothing', async () => {
  const file = sparse('declared-big.tif', 4096);
  assert.ok(statSync(file).size < 64 * 1024, 'a small file');
  // No job runs in this app: what the request itself did stays visible.
  const held = await scaffold({ users: ['owner'], rooms: [], config: BOUNDS, build: { jobWorkers: 0 } });
  try {
    const { app } = held.t;
    const owner = held.users.owner;
    const roomId = await createRoom(app, owner);
    const { jobId } = assertOk(await uploadRaster(app, roomId, owner.token, file), 202);
    assert.match(jobId, /^job-/);
    const job = assertOk(await call(app, 'GET', `/api/layers/jobs/${jobId}`, { auth: owner.token }));
    assert.equal(job.stage, 'queued');
    const state = await storedState(held.t, roomId);
    assert.deepEqual(
      [state.files.map((f) => f.kind), state.layers, state.staged],
      [['queued-upload'], [], []],
      'only the file waiting for its job',
    );
    assert.deepEqual(await roomHistory(app, roomId, owner.token), []);
  } finally {
    await held.t.close();
  }
});

test('the job makes the layer, with the display sent', async () => {
  const roomId = await createRoom(s.t.app, s.users.owner);
  const file = sparse('declared-big-2.tif', 4096);
  const res = await uploadRaster(s.t.app, roomId, s.users.owner.token, file, { display: { colormap: 'gray' } });
  const job = await waitForLayerJob(assertOk(res, 202).jobId);
  assert.equal(job.stage, 'complete', job.message);
  const { rasterLayers } = assertOk(
    await call(s.t.app, 'GET', `/api/rooms/${roomId}/raster-layers`, { auth: s.users.owner.token }),
  );
  assert.deepEqual(
    rasterLayers.map((l: { id: string; display: { colormap: string } }) => [l.id, l.display.colormap]),
    [[job.layerId, 'gray']],
  );
  assert.deepEqual((await storedState(s.t, roomId)).files.map((f) => f.kind).sort(), ['raster-source', 'raster-tiles']);
});

test('bands count: a raster under the bound in one band is processed at once, in four bands it is a job', async () => {
  const roomId = await createRoom(s.t.app, s.users.owner);
  const small = assertOk(await uploadRaster(s.t.app, roomId, s.users.owner.token, sparse('one-band.tif', 600)), 200);
  assert.equal(small.rasterLayer.width, 600);
  const res = await uploadRaster(s.t.app, roomId, s.users.owner.token, sparse('four-bands.tif', 600, 4));
  const job = await waitForLayerJob(assertOk(res, 202).jobId);
  assert.equal(job.stage, 'complete', job.message);
});

test('over RASTER_MAX_PIXELS is 400 at once, naming the bound; nothing is stored or queued', async () => {
  const file = sparse('declared-huge.tif', 32768);
  const roomId = await createRoom(s.t.app, s.users.owner);
  const res = await uploadRaster(s.t.app, roomId, s.users.owner.token, file);
  const body = assertError(res, 400, 'unsupported_raster');
  assert.match(body.message, /32768 x 32768/);
  assert.match(body.message, new RegExp(`at most ${MAX} pixels`));
  assert.deepEqual(await storedState(s.t, roomId), { files: [], layers: [], staged: [] });
  const jobs = await s.t.database.db.selectFrom('jobs').select('id').where('room_id', '=', roomId).execute();
  assert.deepEqual(jobs, []);
});
