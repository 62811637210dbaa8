/**
 * GeoTIFF uploads over HTTP: a raster layer with its facts and default display, the display
 * sent with the upload (applied, and checked against the raster: 400 naming the key), BigTIFF
 * and any CRS, large files as a job with progress, chunked uploads, hostile files refused with
 * GDAL's reason and nothing stored, the quota, history and live, counts, clear and deletion.
 * Contract: docs/http-interface.md (Layers and uploads; Raster layer and its display settings),
 * docs/contract-decisions.md ("Layers and rasters", "Vector layers in detail"), docs/decisions.md (Raster layers).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  assertError,
  assertOk,
  call,
  createRoom,
  postMultipart,
  roomCounts,
  roomHistory,
  scaffold,
  scaffoldSuite,
} from '../helpers.js';
import { makeUploadFixtures, newRaster, storedState, uploadRaster } from '../support/rasters.js';

let fixtures: ReturnType<typeof makeUploadFixtures>;

const s = scaffoldSuite({}, async () => {
  fixtures = makeUploadFixtures();
});
after(async () => {
  fixtures?.remove();
});

const listRasters = async (roomId: string, auth = s.users.owner.token) =>
  assertOk(await call(s.t.app, 'GET', `/api/rooms/${roomId}/raster-layers`, { auth })).rasterLayers as Record<
    string,
    any
  >[];

async function waitForLayerJob(jobId: string) {
  const progress: number[] = [];
  for (let i = 0; i < 3000; i++) {
    const job = assertOk(await call(s.t.app, 'GET', `/api/layers/jobs/${jobId}`, { auth: s.users.owner.token }));
    progress.push(job.progress);
    if (job.stage === 'complete' || job.stage === 'error') return { job, progress };
    await sleep(20);
  }
  assert.fail(`job ${jobId} did not finish`);
}

describe('a GeoTIFF becomes a raster layer', () => {
  test('a single band in Swiss LV95: facts, statistics, a colormap stretched to them; listed; history', async () => {
    const roomId = await createRoom(s.t.app, s.users.owner);
    const res = await uploadRaster(s.t.app, roomId, s.users.owner.token, fixtures.file('grid-2056.tif'), {
      layerName: 'Grid',
    });
    const { rasterLayer, layer } = assertOk(res);
    assert.equal(layer, null, 'no vector layer');
    assert.match(rasterLayer.id, /^layer-/);
    assert.equal(rasterLayer.name, 'Grid');
    assert.deepEqual(
      {
        width: rasterLayer.width,
        height: rasterLayer.height,
        bands: rasterLayer.bands,
        dataType: rasterLayer.dataType,
        sourceCrs: rasterLayer.sourceCrs,
        nodata: rasterLayer.nodata,
      },
      { width: 40, height: 32, bands: 1, dataType: 'Float32', sourceCrs: 'EPSG:2056', nodata: -9999 },
    );
    // Cell values 0..79, cell 25 is nodata: statistics of the valid pixels.
    assert.equal(rasterLayer.stats.length, 1);
    assert.equal(rasterLayer.stats[0].min, 0);
    assert.equal(rasterLayer.stats[0].max, 79);
    assert.ok(
      Math.abs(rasterLayer.stats[0].mean - (79 * 80) / 2 / 79 + 25 / 79) < 0.6,
      `mean ${rasterLayer.stats[0].mean}`,
    );
    const [west, south, east, north] = rasterLayer.bbox;
    assert.ok(
      west > 7.3 && east < 7.5 && south > 46.9 && north < 47.0 && west < east && south < north,
      `bbox ${rasterLayer.bbox}`,
    );
    const d = rasterLayer.display;
    assert.deepEqual(
      { renderMode: d.renderMode, band: d.band, colormap: d.colormap, opacity: d.opacity },
      { renderMode: 'single', band: 1, colormap: 'viridis', opacity: 1 },
    );
    assert.ok(
      d.vmin >= 0 && d.vmin < 5 && d.vmax > 74 && d.vmax <= 79,
      `stretched to the 2nd-98th percentile: ${d.vmin}..${d.vmax}`,
    );
    assert.ok(
      rasterLayer.sizeBytes > readFileSync(fixtures.file('grid-2056.tif')).length,
      'the original and the tileable file',
    );
    assert.equal(rasterLayer.tileUrl, `/api/rooms/${roomId}/raster-layers/${rasterLayer.id}/tiles/{z}/{x}/{y}.png`);

    assert.deepEqual(await listRasters(roomId), [rasterLayer]);
    const [event] = await roomHistory(s.t.app, roomId, s.users.owner.token);
    assert.deepEqual(
      [event!.type, event!.objectType, event!.objectId],
      ['rasterLayer.created', 'rasterLayer', rasterLayer.id],
    );
    assert.equal((await roomCounts(s.t.app, roomId, s.users.owner.token)).rasterLayers, 1);
    // A raster is no vector layer.
    assert.deepEqual(
      assertOk(await call(s.t.app, 'GET', `/api/layers/${roomId}`, { auth: s.users.owner.token })).layers,
      [],
    );
    const stored = await storedState(s.t, roomId);
    assert.deepEqual(stored.files.map((f) => f.kind).sort(), ['raster-source', 'raster-tiles']);
    assert.ok(stored.files.every((f) => f.key.startsWith(`layers/${roomId}/${rasterLayer.id}/`)));
  });

  test('three 8-bit bands get an RGB composite; WGS84, a BigTIFF and a TIFF without CRS in degrees are placed', async () => {
    const rgb = await newRaster(s.t.app, s.room, s.users.owner.token, fixtures.file('rgb-2056.tif'));
    assert.deepEqual(
      { renderMode: rgb.display.renderMode, rgbBands: rgb.display.rgbBands, bands: rgb.bands, dataType: rgb.dataType },
      { renderMode: 'rgb', rgbBands: [1, 2, 3], bands: 3, dataType: 'Byte' },
    );
    const wgs84 = await newRaster(s.t.app, s.room, s.users.owner.token, fixtures.file('grid-4326.tif'));
    assert.deepEqual([wgs84.bands, wgs84.sourceCrs, wgs84.display.renderMode], [2, 'EPSG:4326', 'single']);
    assert.deepEqual(
      wgs84.bbox.map((v) => Math.round(v * 1000) / 1000),
      [7, 46.96, 7.048, 47],
    );
    const big = await newRaster(s.t.app, s.room, s.users.owner.token, fixtures.file('bigtiff-4326.tif'));
    assert.deepEqual([big.width, big.height, big.sourceCrs], [48, 40, 'EPSG:4326']);
    const assumed = await newRaster(s.t.app, s.room, s.users.owner.token, fixtures.file('nocrs-degrees.tif'));
    assert.equal(assumed.sourceCrs, 'EPSG:4326');
    const int16 = await newRaster(s.t.app, s.room, s.users.owner.token, fixtures.file('int16-2056.tif'));
    assert.deepEqual(
      [int16.dataType, int16.nodata, int16.stats[0].min, int16.stats[0].max],
      ['Int16', null, -300, 490],
    );
  });

  test('the display sent with the upload is applied; a new band gets its own stretch', async () => {
    const layer = await newRaster(s.t.app, s.room, s.users.owner.token, fixtures.file('grid-4326.tif'), {
      band: 2,
      colormap: 'terrain',
      opacity: 0.5,
      reverse: true,
    });
    assert.deepEqual(
      [layer.display.band, layer.display.colormap, layer.display.opacity, layer.display.reverse],
      [2, 'terrain', 0.5, true],
    );
    assert.ok(
      layer.display.vmin >= 1000 && layer.display.vmax <= 1119 && layer.display.vmax > 1100,
      `band 2's stretch: ${layer.display.vmin}..${layer.display.vmax}`,
    );
    const stretched = await newRaster(s.t.app, s.room, s.users.owner.token, fixtures.file('grid-2056.tif'), {
      vmin: 10,
      vmax: 20,
      resampling: 'bilinear',
      nodata: 30,
    });
    assert.deepEqual(
      [stretched.display.vmin, stretched.display.vmax, stretched.display.resampling, stretched.display.nodata],
      [10, 20, 'bilinear', 30],
    );
  });
});

describe('refusals store nothing', () => {
  const refused = async (
    file: string,
    display: unknown,
    status: number,
    code: string,
    field?: string,
    fileName?: string,
  ) => {
    const roomId = await createRoom(s.t.app, s.users.owner);
    const before = await storedState(s.t, roomId);
    const res = await uploadRaster(s.t.app, roomId, s.users.owner.token, fixtures.file(file), { display, fileName });
    const body = assertError(res, status, code);
    if (field)
      assert.ok(
        body.details.some((d: { field: string }) => d.field === field),
        `names ${field}: ${res.body}`,
      );
    assert.doesNotMatch(res.body, /\/tmp\/|maproom-/, 'no path of the service');
    assert.deepEqual(await storedState(s.t, roomId), before, `${file}: nothing stored`);
    assert.deepEqual(await roomHistory(s.t.app, roomId, s.users.owner.token), []);
    return body;
  };

  test('hostile files: not a TIFF, truncated, no georeferencing, a PNG renamed .tif, no CRS in metres', async () => {
    assert.match((await refused('not-a-tiff.tif', undefined, 400, 'invalid_file')).message, /GeoTIFF/);
    assert.match((await refused('truncated.tif', undefined, 400, 'invalid_file')).message, /GeoTIFF|TIFF|pixels/);
    assert.match((await refused('no-georef.tif', undefined, 400, 'invalid_file')).message, /georeferencing/);
    await refused('png-renamed.tif', undefined, 400, 'invalid_file');
    await refused('nocrs-metres.tif', undefined, 400, 'unknown_crs');
    // A TIFF sent under another name is still recognised by its first bytes, and refused alike.
    await refused('no-georef.tif', undefined, 400, 'invalid_file', undefined, 'upload.bin');
  });

  test('a display that does not fit the raster is 400 naming the key', async () => {
    const cases: [unknown, string][] = [
      [{ band: 2 }, 'display.band'],
      [{ colormap: 'rainbowish' }, 'display.colormap'],
      [{ vmin: 5, vmax: 5 }, 'display.vmin'],
      [{ opacity: 1.5 }, 'display.opacity'],
      [{ renderMode: 'rgb' }, 'display.renderMode'],
      [{ rgbBands: [1, 1] }, 'display.rgbBands'],
      [{ colour: 'red' }, 'display.colour'],
      [[1, 2], 'display'],
    ];
    for (const [display, field] of cases) await refused('grid-2056.tif', display, 400, 'validation_error', field);
    await refused('grid-2056.tif', '{not json', 400, 'validation_error', 'display');
    await refused('rgb-2056.tif', { rgbBands: [1, 2, 4] }, 400, 'validation_error', 'display.rgbBands');
  });
});

describe('big files, chunks, quota, deletion', () => {
  test('a file over 5 MB is a job with progress; the layer appears when it is complete', async () => {
    const roomId = await createRoom(s.t.app, s.users.owner);
    const res = await uploadRaster(s.t.app, roomId, s.users.owner.token, fixtures.file('large-2056.tif'), {
      display: { colormap: 'magma' },
    });
    const { jobId } = assertOk(res, 202);
    const { job, progress } = await waitForLayerJob(jobId);
    assert.equal(job.stage, 'complete', job.message);
    assert.deepEqual(
      progress,
      [...progress].sort((a, b) => a - b),
      `progress only grows: ${progress}`,
    );
    assert.equal(job.progress, 100);
    const [layer] = await listRasters(roomId);
    assert.deepEqual([job.layerId, job.layerIds], [layer!.id, [layer!.id]]);
    assert.deepEqual([layer!.width, layer!.display.colormap, layer!.stats[0].max], [1300, 'magma', 168]);
    // The upload waiting for its job is gone; only the layer's two files stay.
    const stored = await storedState(s.t, roomId);
    assert.deepEqual(stored.files.map((f) => f.kind).sort(), ['raster-source', 'raster-tiles']);
  });

  test('a chunked upload goes through the same job', async () => {
    const roomId = await createRoom(s.t.app, s.users.owner);
    const data = readFileSync(fixtures.file('grid-2056.tif'));
    const half = Math.ceil(data.length / 2);
    const parts = [data.subarray(0, half), data.subarray(half)];
    for (const [chunkIndex, chunk] of parts.entries()) {
      assertOk(
        await postMultipart(
          s.t.app,
          '/api/layers/upload-chunk',
          {
            roomName: roomId,
            uploadId: 'raster-chunks-1',
            chunkIndex: String(chunkIndex),
            totalChunks: '2',
            fileName: 'grid.tif',
            chunk: { data: chunk, filename: 'blob' },
          },
          s.users.owner.token,
        ),
      );
    }
    const { jobId } = assertOk(
      await call(s.t.app, 'POST', '/api/layers/process-chunked', {
        auth: s.users.owner.token,
        body: {
          roomName: roomId,
          uploadId: 'raster-chunks-1',
          layerName: 'Chunked',
          fileName: 'grid.tif',
          display: JSON.stringify({ colormap: 'gray' }),
        },
      }),
      202,
    );
    assert.equal((await waitForLayerJob(jobId)).job.stage, 'complete');
    const [layer] = await listRasters(roomId);
    assert.deepEqual([layer!.name, layer!.display.colormap, layer!.width], ['Chunked', 'gray', 40]);
  });

  test('the quota counts both stored files; an upload that does not fit stores nothing', async () => {
    const small = await scaffold({ users: ['owner'], rooms: [], config: { storageQuotaBytes: 9000 } });
    try {
      const roomId = await createRoom(small.t.app, small.users.owner);
      const res = await uploadRaster(small.t.app, roomId, small.users.owner.token, fixtures.file('grid-2056.tif'));
      assertError(res, 413, 'quota_exceeded');
      const db = small.t.database.db;
      assert.deepEqual(await db.selectFrom('stored_files').select('key').execute(), []);
      assert.deepEqual(await db.selectFrom('layers').select('id').execute(), []);
    } finally {
      await small.t.close();
    }
  });

  test('DELETE /api/layers/:layerId and clear remove the row and the files', async () => {
    const roomId = await createRoom(s.t.app, s.users.owner);
    const first = await newRaster(s.t.app, roomId, s.users.owner.token, fixtures.file('grid-2056.tif'));
    const second = await newRaster(s.t.app, roomId, s.users.owner.token, fixtures.file('rgb-2056.tif'));
    assertOk(await call(s.t.app, 'DELETE', `/api/layers/${first.id}`, { auth: s.users.owner.token }));
    assert.deepEqual(
      (await listRasters(roomId)).map((l) => l.id),
      [second.id],
    );
    assert.ok((await storedState(s.t, roomId)).files.every((f) => f.key.includes(second.id)));
    assert.equal((await roomHistory(s.t.app, roomId, s.users.owner.token))[0]!.type, 'rasterLayer.deleted');
    assertError(
      await call(s.t.app, 'GET', `/api/rooms/${roomId}/raster-layers/${first.id}/tiles/0/0/0.png`, {
        auth: s.users.owner.token,
      }),
      404,
      'not_found',
    );
    const cleared = assertOk(await call(s.t.app, 'POST', `/api/rooms/${roomId}/clear`, { auth: s.users.owner.token }));
    assert.equal(cleared.removed.rasterLayers, 1);
    assert.deepEqual(await storedState(s.t, roomId), { files: [], layers: [], staged: [] });
  });
});
