import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, openAsBlob, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { TEST_DB, uniqueEmail, uniqueRoomId } from '../helpers.js';
import { assertWhole, http, killWhen, peek, type Service, settledJobs, startService } from '../support/crash.js';

/**
 * The real service process, SIGKILLed in the middle of a layer ingest (a synchronous upload
 * and a queued one), an export and an import, then started again on the same data
 * directory: nothing of the interrupted work is half-visible (no staged layer, no partial
 * feature table, nothing outside the quota), every job ends `complete` or `error`, and no
 * temporary file is left. The kill lands at a moment read from the service's SQLite file.
 */

/** Polygons (not points, which would become markers) in a grid around Bern. */
function squares(count: number) {
  const features = Array.from({ length: count }, (_, i) => {
    const lon = 7 + (i % 500) * 0.002;
    const lat = 46 + Math.floor(i / 500) * 0.002;
    const ring = [
      [lon, lat],
      [lon + 0.001, lat],
      [lon + 0.001, lat + 0.001],
      [lon, lat + 0.001],
      [lon, lat],
    ];
    return `{"type":"Feature","properties":{"n":${i},"name":"square ${i}"},"geometry":{"type":"Polygon","coordinates":[${JSON.stringify(ring)}]}}`;
  });
  return `{"type":"FeatureCollection","features":[${features.join(',\n')}]}`;
}

/** Sizes that keep the work going long enough to be seen (and killed) mid-way. */
const SYNC_FEATURES = 24_000; // under 5 MB: processed inside the request
const QUEUED_FEATURES = 150_000; // over 5 MB: a job

let work: string;
let dataDir: string;
let service: Service;
let auth: string;
let room: string;
const files: Record<'sync' | 'queued' | 'gpkg', string> = { sync: '', queued: '', gpkg: '' };

async function upload(file: string, name: string) {
  const form = new FormData();
  form.append('roomName', room);
  form.append('file', await openAsBlob(file), name);
  return http(service, 'POST', '/api/layers/upload', { auth, form });
}

/** A request expected to be cut off by the kill: whether it was answered yet, and how it ended. */
function cutOff(pending: Promise<unknown>) {
  let answered = false;
  const outcome = pending.then(
    (answer) => {
      answered = true;
      return `answered: ${JSON.stringify(answer).slice(0, 300)}`;
    },
    () => {
      answered = true;
      return 'cut off';
    },
  );
  return { answered: () => answered, outcome };
}

/** Starts the service again on the same data directory, waits for the resumed jobs, and checks it is whole. */
async function restartAndCheck() {
  service = await startService(dataDir);
  const jobs = await settledJobs(dataDir);
  assertWhole(dataDir);
  const listed = await http(service, 'GET', `/api/layers/${room}`, { auth });
  assert.equal(listed.status, 200);
  const counts = (await http(service, 'GET', `/api/rooms/${room}`, { auth })).body.counts;
  const layers = listed.body.layers ?? listed.body;
  assert.equal(counts.layers, layers.length, 'the room counts what it lists');
  return { jobs, layers: layers as { id: string; featureCount: number }[] };
}

describe('SIGKILL during an ingest, an export and an import', {
  skip: TEST_DB !== 'sqlite' && 'crash tests run on one database (SQLite): the kill points are read from its file',
}, () => {
  before(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'maproom-crash-'));
    dataDir = path.join(work, 'data');
    files.sync = path.join(work, 'sync.geojson');
    files.queued = path.join(work, 'queued.geojson');
    files.gpkg = path.join(work, 'import.gpkg');
    writeFileSync(files.sync, squares(SYNC_FEATURES));
    writeFileSync(files.queued, squares(QUEUED_FEATURES));
    execFileSync('ogr2ogr', ['-f', 'GPKG', files.gpkg, files.queued, '-nln', 'squares']);
    service = await startService(dataDir);
    const signup = await http(service, 'POST', '/api/auth/signup', {
      body: { email: uniqueEmail('crash'), password: 'correct horse' },
    });
    assert.equal(signup.status, 201, JSON.stringify(signup.body));
    auth = signup.body.token;
    room = uniqueRoomId();
    assert.equal((await http(service, 'POST', `/api/rooms/${room}`, { auth, body: {} })).status, 200);
  });
  after(async () => {
    await service?.kill();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  test('a synchronous upload killed while it stages leaves nothing', async () => {
    const request = cutOff(upload(files.sync, 'sync.geojson'));
    await killWhen(
      service,
      dataDir,
      'SELECT job_id FROM staged_jobs WHERE job_id NOT IN (SELECT id FROM jobs)',
      request.answered,
    );
    assert.equal(await request.outcome, 'cut off');
    const { layers } = await restartAndCheck();
    assert.deepEqual(layers, [], 'the interrupted upload made no layer');
  });

  test('a queued layer ingest killed mid-way is resumed or ends in error, whole', async () => {
    const res = await upload(files.queued, 'queued.geojson');
    assert.equal(res.status, 202, JSON.stringify(res.body));
    const { jobId } = res.body;
    await killWhen(
      service,
      dataDir,
      `SELECT id FROM jobs WHERE id = '${jobId}' AND stage = 'processing' AND progress > 0`,
      () => peek(dataDir, `SELECT id FROM jobs WHERE id = ? AND stage IN ('complete', 'error')`, jobId).length > 0,
    );
    const { jobs, layers } = await restartAndCheck();
    const job = jobs.find((j) => j.id === jobId)!;
    assert.ok(['complete', 'error'].includes(job.stage), job.stage);
    if (job.stage === 'complete')
      assert.deepEqual(
        layers.map((l) => l.featureCount),
        [QUEUED_FEATURES],
      );
    else assert.deepEqual(layers, []);
  });

  test('an export job killed mid-way is resumed or ends in error, with no artifact half-written', async () => {
    const layersBefore = (await http(service, 'GET', `/api/layers/${room}`, { auth })).body;
    if ((layersBefore.layers ?? layersBefore).length === 0) {
      // The ingest before ended in error: give the export something to write.
      const res = await upload(files.queued, 'queued.geojson');
      assert.equal(res.status, 202);
      await settledJobs(dataDir);
    }
    const res = await http(service, 'POST', `/api/rooms/${room}/export-jobs`, { auth, body: {} });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    const { jobId } = res.body;
    await killWhen(
      service,
      dataDir,
      `SELECT id FROM jobs WHERE id = '${jobId}' AND stage = 'processing'`,
      () => peek(dataDir, `SELECT id FROM jobs WHERE id = ? AND stage IN ('complete', 'error')`, jobId).length > 0,
    );
    const { jobs } = await restartAndCheck();
    const job = jobs.find((j) => j.id === jobId)!;
    assert.ok(['complete', 'error'].includes(job.stage), job.stage);
    const artifact = await fetch(`${service.url}/api/rooms/${room}/export-jobs/${jobId}/artifact`, {
      headers: { authorization: `Bearer ${auth}` },
    });
    if (job.stage === 'complete') {
      assert.equal(artifact.status, 200);
      const gpkg = path.join(work, 'export.gpkg');
      writeFileSync(gpkg, Buffer.from(await artifact.arrayBuffer()));
      execFileSync('ogrinfo', ['-q', '-ro', gpkg]); // a whole GeoPackage: GDAL opens it
    } else {
      assert.ok(artifact.status >= 400 && artifact.status < 500, String(artifact.status));
      await artifact.arrayBuffer();
    }
  });

  test('an import killed while it stages leaves nothing', async () => {
    const before = (await http(service, 'GET', `/api/layers/${room}`, { auth })).body;
    const layersBefore = (before.layers ?? before) as { id: string; featureCount: number }[];
    const form = new FormData();
    form.append('file', await openAsBlob(files.gpkg), 'import.gpkg');
    const request = cutOff(http(service, 'POST', `/api/rooms/${room}/import`, { auth, form }));
    await killWhen(
      service,
      dataDir,
      `SELECT l.id FROM layers l JOIN staged_jobs s ON s.job_id = l.job_id WHERE l.feature_count > 0 OR l.storage_key IS NOT NULL`,
      request.answered,
    );
    assert.equal(await request.outcome, 'cut off');
    const { layers } = await restartAndCheck();
    assert.deepEqual(
      layers.map((l) => [l.id, l.featureCount]),
      layersBefore.map((l) => [l.id, l.featureCount]),
      'the room holds what it held before the import',
    );
  });
});
