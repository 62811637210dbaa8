/**
 * The export and import benchmark (`BENCH_ONLY=export npm run bench`; see bench/README.md).
 *
 * One room on a fresh Maproom (SQLite): the vector benchmark's 1,000,000 building footprints
 * (ingested by chunked upload), 10,000 markers (bulk import) and a Float32 GeoTIFF raster.
 * Then `POST /api/rooms/:roomId/export?include_tiffs=true`, saved to disk, timed with the
 * service's peak RSS, against the peer `ogr2ogr -f GPKG` writing the same features (the
 * export's three feature tables) to a new GeoPackage. Then the export imported into a second,
 * empty room (`POST /api/rooms/:roomId/import`), timed with its peak RSS, and its counts checked.
 *
 * Environment:
 *   BENCH_EXPORT_COUNT=1000000   polygons in the layer (BENCH_QUICK=1: 100,000)
 *   BENCH_EXPORT_MARKERS=10000   markers in the room
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import {
  api,
  label,
  mb,
  restartMaproom,
  ROOM_ID,
  ROOT,
  RSS_LIMIT_MB,
  setUp,
  sleep,
  startMaproom,
  stopServer,
  TMP,
  TRACE,
  uploadMultipart,
  writePointsGeoJson,
  type Row,
  type Server,
} from './harness.js';
import { DATA_CACHE, run, timedTool, vectorData } from './vector-data.js';
import { ingestByChunks, uploadAndProcess, watchMemory } from './vector-upload.js';

const env = process.env;
const COUNT = Number(env.BENCH_EXPORT_COUNT ?? (env.BENCH_QUICK === '1' ? 100_000 : 1_000_000));
const MARKERS = Number(env.BENCH_EXPORT_MARKERS ?? 10_000);
const TIME_RATIO_TARGET = 1.2;
const IMPORT_ROOM = 'bench-copy';

type Memory = ReturnType<ReturnType<typeof watchMemory>['stop']>;

/** A small Float32 terrain GeoTIFF in EPSG:2056 (2048 x 2000 pixels, 16 MB), written once by GDAL. */
async function rasterFile(): Promise<string> {
  const dir = path.join(DATA_CACHE, 'rasters-export');
  const file = path.join(dir, 'terrain-f32.tif');
  if (existsSync(file)) return file;
  mkdirSync(dir, { recursive: true });
  const made = await run('/usr/bin/python3', [
    path.join(ROOT, 'bench', 'data', 'make_raster_data.py'),
    dir,
    '--scale',
    '0.125',
    '--only',
    'terrain',
  ]);
  if (made.code !== 0) throw new Error(`make_raster_data.py failed (${made.code}):\n${made.stderr}`);
  return file;
}

/** Bulk-imports `count` markers into the bench room and waits for the job. */
export async function addMarkers(server: Server, token: string, count: number) {
  const file = path.join(TMP, `markers-${count}.geojson`);
  await writePointsGeoJson(file, count);
  const sent = await uploadMultipart(`${server.url}/api/rooms/${ROOM_ID}/bulk-import`, token, {
    field: 'file',
    path: file,
    contentType: 'application/geo+json',
  });
  rmSync(file, { force: true });
  if (sent.status !== 200) throw new Error(`bulk import: ${sent.status} ${sent.body}`);
  const { jobId } = JSON.parse(sent.body) as { jobId: string };
  for (;;) {
    const job = await api<{ stage: string; message: string | null; markersCreated?: number }>(
      server.url,
      'GET',
      `/api/jobs/${jobId}`,
      { token },
    );
    if (job.stage === 'error') throw new Error(`bulk import failed: ${job.message}`);
    if (job.stage === 'complete') {
      if (job.markersCreated !== count)
        throw new Error(`bulk import created ${job.markersCreated} markers, not ${count}`);
      return;
    }
    await sleep(200);
  }
}

/** POSTs the export and streams the answer into `file`; throws unless it is 200. */
export function download(server: Server, token: string, file: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${server.url}/api/rooms/${ROOM_ID}/export?include_tiffs=true`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    });
    req.on('response', (res) => {
      if (res.statusCode !== 200) {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => reject(new Error(`export: ${res.statusCode} ${body}`)));
        return;
      }
      pipeline(res, createWriteStream(file)).then(resolve, reject);
    });
    req.on('error', reject);
    req.end('{}');
  });
}

/** Feature counts of a GeoPackage's feature tables (those with a geometry), by `ogrinfo -so` (GDAL reads the file, not us). */
export function featureCounts(file: string): Map<string, number> {
  const out = spawnSync('ogrinfo', ['-ro', '-so', '-al', file], { encoding: 'utf8', maxBuffer: 64 * 1024 ** 2 });
  if (out.status !== 0) throw new Error(`ogrinfo ${file}: ${out.stderr}`);
  const counts = new Map<string, number>();
  for (const block of out.stdout.split(/^Layer name: /m).slice(1)) {
    const geometry = /^Geometry: (.+)$/m.exec(block)?.[1];
    const count = /^Feature Count: (\d+)$/m.exec(block)?.[1];
    if (geometry && geometry !== 'None' && count) counts.set(block.slice(0, block.indexOf('\n')).trim(), Number(count));
  }
  return counts;
}

/** The peer: `ogr2ogr -f GPKG out.gpkg <export> <feature tables>`, timed start to exit, with GNU time's max RSS. */
async function ogr2ogrPeer(input: string, tables: string[]) {
  const out = path.join(TMP, 'peer-export.gpkg');
  rmSync(out, { force: true });
  const args = ['-f', 'GPKG', out, input, ...tables];
  const { seconds, maxRssMb } = await timedTool('ogr2ogr', args);
  const bytes = statSync(out).size;
  rmSync(out, { force: true });
  return { seconds, bytes, maxRssMb, command: `ogr2ogr -f GPKG out.gpkg export.gpkg ${tables.join(' ')}` };
}

async function timed<T>(
  server: Server,
  csv: string | undefined,
  work: () => Promise<T>,
): Promise<{ value: T; seconds: number; memory: Memory }> {
  const watch = watchMemory(server.pid, csv);
  const started = performance.now();
  try {
    const value = await work();
    return { value, seconds: (performance.now() - started) / 1000, memory: watch.stop() };
  } catch (error) {
    watch.stop();
    throw error;
  }
}

const memoryLine = (m: Memory) =>
  `service RSS before ${mb(m.startRss, false)} MB, VmHWM ${mb(m.serviceHwm, false)} MB (reset before: ${m.hwmReset}); child processes ${m.childNames || 'none seen'}, largest ${mb(m.largestChildHwm, false)} MB`;

/** Runs the export benchmark; returns its table rows and the names of the rows that missed their target. */
export async function runExportBench(): Promise<{ rows: Row[]; missed: string[] }> {
  console.log(
    `## Export and import (${COUNT.toLocaleString('en-US')} polygons, ${MARKERS.toLocaleString('en-US')} markers, a raster)`,
  );
  const data = await vectorData(COUNT);
  const raster = await rasterFile();
  let server = await startMaproom('maproom (export)');
  const rows: Row[] = [];
  try {
    const token = await setUp(server.url, ['read', 'write', 'upload']);
    const layer = await ingestByChunks(server, token, data.gpkg, COUNT);
    console.log(`   room filled: layer of ${layer.featureCount} polygons in ${layer.seconds.toFixed(1)} s`);
    await addMarkers(server, token, MARKERS);
    const rasterJob = await uploadAndProcess(server, token, raster);
    console.log(
      `   ${MARKERS} markers and a raster (${mb(statSync(raster).size)} MB) added (raster in ${rasterJob.seconds.toFixed(1)} s)`,
    );
    // A fresh process on the same data, so that the export's memory is the export's alone.
    server = await restartMaproom(server);

    const file = path.join(TMP, 'export.gpkg');
    const exported = await timed(server, TRACE && path.join(TRACE, 'rss-export.csv'), () =>
      download(server, token, file),
    );
    const counts = featureCounts(file);
    const layerTable = [...counts.keys()].find((name) => name !== 'markers' && !name.startsWith('drawings'));
    if (!layerTable || counts.get(layerTable) !== COUNT || counts.get('markers') !== MARKERS) {
      throw new Error(
        `the export's feature tables are ${JSON.stringify([...counts])}, expected ${COUNT} features and ${MARKERS} markers`,
      );
    }
    console.log(
      `   export: ${exported.seconds.toFixed(1)} s, ${mb(statSync(file).size)} MB; ${memoryLine(exported.memory)}`,
    );
    const peer = await ogr2ogrPeer(file, [...counts.keys()]);
    console.log(
      `   peer: \`${peer.command}\`: ${peer.seconds.toFixed(1)} s, ${mb(peer.bytes)} MB${peer.maxRssMb === null ? '' : `, max RSS ${mb(peer.maxRssMb, false)} MB`}`,
    );

    const { token: session } = await api<{ token: string }>(server.url, 'POST', '/api/auth/login', {
      body: { email: 'bench@example.com', password: 'bench-password-1' },
    });
    await api(server.url, 'POST', `/api/rooms/${IMPORT_ROOM}`, { token: session, body: { name: 'Imported copy' } });
    server = await restartMaproom(server);
    const imported = await timed(server, TRACE && path.join(TRACE, 'rss-import.csv'), async () => {
      const sent = await uploadMultipart(`${server.url}/api/rooms/${IMPORT_ROOM}/import`, session, {
        field: 'file',
        path: file,
        contentType: 'application/geopackage+sqlite3',
      });
      if (sent.status !== 200) throw new Error(`import: ${sent.status} ${sent.body}`);
      return JSON.parse(sent.body) as { imported: { markers: number; layers: number; rasterLayers: number } };
    });
    const got = imported.value.imported;
    if (got.markers !== MARKERS || got.layers !== 1 || got.rasterLayers !== 1)
      throw new Error(`the import restored ${JSON.stringify(got)}`);
    const { layers } = await api<{ layers: { featureCount: number }[] }>(
      server.url,
      'GET',
      `/api/layers/${IMPORT_ROOM}`,
      { token: session },
    );
    if (layers[0]?.featureCount !== COUNT)
      throw new Error(`the imported layer has ${layers[0]?.featureCount} features, not ${COUNT}`);
    console.log(
      `   import into an empty room: ${imported.seconds.toFixed(1)} s (${JSON.stringify(got)}); ${memoryLine(imported.memory)}`,
    );
    rmSync(file, { force: true });

    const ratio = exported.seconds / peer.seconds;
    const room = `${label(COUNT)} polygons + ${label(MARKERS)} markers + raster`;
    const rss = (m: Memory) =>
      `${mb(m.serviceHwm, false)} MB VmHWM${m.hwmReset ? '' : ' (not reset: includes start-up)'}; GDAL children at most ${mb(m.largestChildHwm, false)} MB`;
    rows.push(
      [
        `export ${room}, include_tiffs (s)`,
        `${exported.seconds.toFixed(1)} s`,
        `${peer.seconds.toFixed(1)} s (ogr2ogr -f GPKG, the feature tables)`,
        `${ratio.toFixed(2)}x`,
        `<= ${TIME_RATIO_TARGET}x peer`,
        ratio <= TIME_RATIO_TARGET ? 'yes' : 'NO',
      ],
      [
        `export ${room}: peak RSS of the service (MB)`,
        rss(exported.memory),
        peer.maxRssMb === null ? 'n/a' : `${mb(peer.maxRssMb, false)} MB (ogr2ogr max RSS)`,
        'n/a',
        `< ${RSS_LIMIT_MB} MB`,
        exported.memory.serviceHwm < RSS_LIMIT_MB && exported.memory.hwmReset ? 'yes' : 'NO',
      ],
      [
        `import of that export into an empty room (s)`,
        `${imported.seconds.toFixed(1)} s`,
        `${layer.seconds.toFixed(1)} s (our own ingest of the layer's file)`,
        'n/a',
        'none',
        'n/a',
      ],
      [
        `import: peak RSS of the service (MB)`,
        rss(imported.memory),
        'n/a',
        'n/a',
        `< ${RSS_LIMIT_MB} MB`,
        imported.memory.serviceHwm < RSS_LIMIT_MB && imported.memory.hwmReset ? 'yes' : 'NO',
      ],
    );
  } finally {
    await stopServer(server);
  }
  console.log();
  return { rows, missed: rows.filter((row) => row[5] === 'NO').map((row) => row[0]) };
}
