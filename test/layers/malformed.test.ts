/**
 * Malformed files on both layer upload routes (`POST /api/layers/upload`, and a chunked upload's
 * `POST /api/layers/process-chunked`): a GeoJSON coordinate too large for a double (`1e309`,
 * which GDAL reads as Infinity), a GeoPackage whose `gpkg_contents` is broken (GDAL's reason
 * holds its own SQL), a zip of symlinks. Each is 400 with the decided code and a reason that
 * names the caller's file, never GDAL's SQL or one of our internal names; nothing is stored.
 * A bulk marker import of the same coordinate ends its job in `error` naming the feature.
 * Contract: docs/contract-decisions.md ("Vector layers in detail": refusals), docs/decisions.md (Uploads).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import {
  assertError,
  assertOk,
  call,
  issueToken,
  labelled,
  postMultipart,
  scaffold,
  type TestApp,
  type Users,
} from '../helpers.js';
import { storedState, tmpLeftovers, uploadBytes } from '../support/layers.js';

let t: TestApp;
let users: Users;
let room: string;
let uploader: { token: string; id: string };
let dir: string;

const INFINITE = `{"type":"FeatureCollection","features":[
{"type":"Feature","properties":{"n":1},"geometry":{"type":"Point","coordinates":[7,46]}},
{"type":"Feature","properties":{"n":2},"geometry":{"type":"Point","coordinates":[1e309,46]}}]}`;

/** A GeoPackage whose gpkg_contents lost its table_name column: GDAL's reason quotes its SQL. */
function brokenGpkg(): Buffer {
  const geojson = path.join(dir, 'one.geojson');
  const gpkg = path.join(dir, 'broken.gpkg');
  execFileSync('sh', ['-c', `printf '%s' "$1" > "$2"`, 'sh', INFINITE.replace('1e309', '8'), geojson]);
  execFileSync('ogr2ogr', ['-f', 'GPKG', gpkg, geojson]);
  execFileSync('/usr/bin/python3', [
    '-c',
    'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("ALTER TABLE gpkg_contents RENAME COLUMN table_name TO tn"); c.commit()',
    gpkg,
  ]);
  return readFileSync(gpkg);
}

/** A zip whose shapefile parts are symlinks to /etc/passwd. */
function symlinkZip(): Buffer {
  const zip = path.join(dir, 'links.zip');
  execFileSync('/usr/bin/python3', [
    '-c',
    `import stat, sys, zipfile
z = zipfile.ZipFile(sys.argv[1], 'w')
for name in ('a.shp', 'a.shx', 'a.dbf'):
    info = zipfile.ZipInfo(name)
    info.create_system = 3
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    z.writestr(info, '/etc/passwd')
z.close()`,
    zip,
  ]);
  return readFileSync(zip);
}

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'malformed-'));
  ({ t, users, room } = await scaffold());
  uploader = await issueToken(t.app, users.owner, room, ['upload']);
});
after(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** No answer may show GDAL's SQL, a path of ours, or one of our internal names. */
function assertNothingInternal(message: string, label: string) {
  for (const secret of ['sqlite3_get_table', 'SELECT', t.config.dataDir, '/tmp/', 'assembled-', 'upload-', 'job-']) {
    assert.ok(!message.includes(secret), `${label}: the answer shows ${secret}: ${message}`);
  }
  assert.doesNotMatch(message, /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-/, `${label}: a uuid in ${message}`);
}

let uploadCounter = 0;

/** Sends `data` as a chunked upload of two chunks, then processes it. */
async function chunked(data: Buffer, fileName: string) {
  const uploadId = `malformed-${uploadCounter++}`;
  const half = Math.ceil(data.length / 2);
  for (const [chunkIndex, part] of [data.subarray(0, half), data.subarray(half)].entries()) {
    assertOk(
      await postMultipart(
        t.app,
        '/api/layers/upload-chunk',
        {
          roomName: room,
          uploadId,
          chunkIndex: String(chunkIndex),
          totalChunks: '2',
          fileName,
          chunk: { data: part, filename: 'blob' },
        },
        uploader.token,
      ),
    );
  }
  return call(t.app, 'POST', '/api/layers/process-chunked', {
    auth: uploader.token,
    body: { roomName: room, uploadId, fileName },
  });
}

describe('malformed files are 400 with the reason, on both upload routes, and nothing is stored', () => {
  // [what, file name, bytes, code, words the message must hold]
  const cases = (): [string, string, Buffer, string, RegExp][] => [
    [
      'a GeoJSON coordinate of 1e309',
      'far away.geojson',
      Buffer.from(INFINITE),
      'invalid_file',
      /feature 2: a coordinate is not a finite number/,
    ],
    ['a GeoPackage with a broken gpkg_contents', 'my broken.gpkg', brokenGpkg(), 'invalid_file', /my broken\.gpkg/],
    ['a zip of symlinks', 'links.zip', symlinkZip(), 'invalid_zip', /link/],
    [
      'a truncated GeoJSON',
      'cut short.geojson',
      Buffer.from(INFINITE.slice(0, 80)),
      'invalid_file',
      /cut short\.geojson/,
    ],
  ];

  test('POST /api/layers/upload', async () => {
    const before = await storedState(t, room);
    for (const [what, fileName, data, code, reason] of cases()) {
      const res = await uploadBytes(t.app, room, data, fileName, users.owner.token);
      labelled(what, () => {
        const body = assertError(res, 400, code);
        assert.match(body.message, reason);
        assertNothingInternal(res.body, what);
      });
    }
    assert.deepEqual(await storedState(t, room), before);
    assert.deepEqual(await tmpLeftovers(t), []);
  });

  test('POST /api/layers/process-chunked', async () => {
    const before = await storedState(t, room);
    for (const [what, fileName, data, code, reason] of cases()) {
      const res = await chunked(data, fileName);
      labelled(what, () => {
        const body = assertError(res, 400, code);
        assert.match(body.message, reason);
        assertNothingInternal(res.body, what);
      });
    }
    assert.deepEqual(await storedState(t, room), before);
    assert.deepEqual(await tmpLeftovers(t), []);
  });
});

test('a bulk marker import with a coordinate of 1e309 ends in error naming the feature; nothing imported', async () => {
  const res = await postMultipart(
    t.app,
    `/api/rooms/${room}/bulk-import`,
    { file: { data: INFINITE, filename: 'far.geojson' } },
    users.owner.token,
  );
  const { jobId } = assertOk(res);
  let job: Record<string, unknown> = {};
  for (let i = 0; i < 300; i++) {
    job = assertOk(await call(t.app, 'GET', `/api/jobs/${jobId}`, { auth: users.owner.token }));
    if (job.stage === 'complete' || job.stage === 'error') break;
    await sleep(50);
  }
  assert.equal(job.stage, 'error', JSON.stringify(job));
  assert.match(String(job.message), /Feature 2\b/);
  assert.equal((await storedState(t, room)).markers, 0);
});
