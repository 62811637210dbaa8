/**
 * The bulk-import part of the benchmarks (`BENCH_ONLY=bulk`, see bench/README.md): GeoJSON
 * FeatureCollections of 100,000 and 1,000,000 points, each imported by a fresh Maproom through
 * `POST /api/rooms/:roomId/bulk-import`, against the peer `ogr2ogr -f GPKG out.gpkg <file>` on
 * the same file, run just before. The 1M file is imported on PostgreSQL too, when it answers.
 *
 * Targets: at most 1.5x ogr2ogr's time on SQLite, 1.0x on PostgreSQL (COPY); the service's
 * peak RSS during the import under 300 MB on both; its peak at start-up (a sign-up's scrypt
 * included) is reported beside it against the same limit.
 *
 * Environment: BENCH_QUICK=1 (100,000 points only), BENCH_BULK_PG=auto|0|1 (the PostgreSQL
 * row: when reachable, never, or required), PG_ADMIN_URL, BENCH_TRACE, BENCH_CPU_PROF.
 */
import { readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import {
  api,
  label,
  mb,
  RSS_LIMIT_MB,
  ROOM_ID,
  sampleRss,
  setUp,
  sleep,
  startMaproom,
  stopServer,
  TMP,
  TRACE,
  uploadMultipart,
  writePointsGeoJson,
  type Row,
} from './harness.js';
import { timedTool } from './vector-data.js';
import { freshDatabase } from './vector.js';

const env = process.env;
const SIZES = env.BENCH_QUICK === '1' ? [100_000] : [100_000, 1_000_000];
const PG_MODE = env.BENCH_BULK_PG ?? 'auto';
const TIME_RATIO_TARGET = 1.5;
/** The PostgreSQL import (the 1M file, written with COPY) is held to ogr2ogr's own time. */
const PG_TIME_RATIO_TARGET = 1.0;

/** The bench process's own peak RSS, to show that generating and uploading stream. */
let ownPeakRss = 0;

interface BulkResult {
  size: number;
  bytes: number;
  seconds: number;
  uploadSeconds: number;
  idleRss: number;
  peakRss: number;
  hwm: number;
  /** VmHWM before the import (start-up and set-up). */
  startupHwm: number;
  hwmReset: boolean;
  created: number;
}

/** One import by a fresh server (SQLite, or the database `extraEnv` names); checks the count. */
async function bulkImport(size: number, file: string, extraEnv: Record<string, string> = {}): Promise<BulkResult> {
  const on = extraEnv.DATABASE_URL ? ', PostgreSQL' : '';
  const server = await startMaproom(`maproom (bulk ${label(size)}${on})`, extraEnv);
  try {
    const token = await setUp(server.url);
    await sleep(500); // let start-up garbage settle before the idle reading
    const startupHwm = Number(/^VmHWM:\s+(\d+)/m.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))?.[1]) / 1024;
    let phase = 'uploading';
    const csv = TRACE && path.join(TRACE, `rss-${label(size)}${on ? '-pg' : ''}.csv`);
    const rss = sampleRss(server.pid, () => phase, csv);
    const t0 = performance.now();
    const upload = await uploadMultipart(`${server.url}/api/rooms/${ROOM_ID}/bulk-import`, token, {
      field: 'file',
      path: file,
      contentType: 'application/geo+json',
    });
    const uploadSeconds = (performance.now() - t0) / 1000;
    if (upload.status !== 200) throw new Error(`bulk import upload: ${upload.status} ${upload.body}`);
    const { jobId } = JSON.parse(upload.body) as { jobId: string };
    let job: { stage: string; message: string | null; markersCreated?: number };
    let lastMessage = '';
    const deadline = Date.now() + 60 * 60_000;
    for (;;) {
      if (Date.now() > deadline) throw new Error(`bulk import job ${jobId} still ${lastMessage} after an hour`);
      job = await api(server.url, 'GET', `/api/jobs/${jobId}`, { token });
      if (job.stage === 'complete' || job.stage === 'error') break;
      if (job.message && job.message !== lastMessage && process.stdout.isTTY)
        process.stdout.write(`\r   ${job.message}          `);
      lastMessage = job.message ?? '';
      phase = `${job.stage}: ${lastMessage}`;
      await sleep(100);
    }
    const seconds = (performance.now() - t0) / 1000;
    if (process.stdout.isTTY) process.stdout.write('\r');
    const memory = rss.stop();
    if (job.stage !== 'complete') throw new Error(`bulk import job ended in ${job.stage}: ${job.message}`);
    const result: BulkResult = {
      size,
      bytes: statSync(file).size,
      seconds,
      uploadSeconds,
      idleRss: rss.start,
      peakRss: memory.peak,
      hwm: memory.hwm,
      startupHwm,
      hwmReset: memory.hwmReset,
      created: Number(job.markersCreated ?? NaN),
    };
    console.log(
      `   maproom${on}: ${result.seconds.toFixed(1)} s (upload ${result.uploadSeconds.toFixed(1)} s), server RSS idle ${mb(result.idleRss, false)} MB, ` +
        `peak ${mb(result.peakRss, false)} MB (${memory.samples} samples), VmHWM ${mb(result.hwm, false)} MB ` +
        `(${result.hwmReset ? 'reset before the upload; ' : 'not resettable, includes start-up; '}start-up VmHWM ${mb(startupHwm, false)} MB), ` +
        `${result.created} markers created`,
    );
    if (result.created !== size) throw new Error(`expected ${size} markers, the job says ${result.created}`);
    const room = await api<{ counts?: { markers?: number } }>(server.url, 'GET', `/api/rooms/${ROOM_ID}`, { token });
    if (room.counts?.markers !== size)
      throw new Error(`expected ${size} markers in the room, it counts ${room.counts?.markers}`);
    return result;
  } finally {
    await stopServer(server);
  }
}

/** The peer: `ogr2ogr -f GPKG out.gpkg <file>`, timed from start to exit, with GNU time's max RSS. */
async function ogr2ogr(file: string) {
  const out = path.join(TMP, 'peer-points.gpkg');
  rmSync(out, { force: true });
  const timed = await timedTool('ogr2ogr', ['-f', 'GPKG', out, file]).finally(() => rmSync(out, { force: true }));
  console.log(
    `   peer: ogr2ogr -f GPKG out.gpkg ${path.basename(file)}: ${timed.seconds.toFixed(1)} s, ` +
      `max RSS ${timed.maxRssMb === null ? 'n/a' : `${mb(timed.maxRssMb, false)} MB`}`,
  );
  return timed;
}

function rowsOf(result: BulkResult, peer: { seconds: number; maxRssMb: number | null }, dialect = ''): Row[] {
  const name = `bulk import ${label(result.size)} points, ${mb(result.bytes)} MB GeoJSON`;
  const on = dialect ? ` (${dialect})` : '';
  const ratio = result.seconds / peer.seconds;
  const timeTarget = dialect
    ? { ratio: PG_TIME_RATIO_TARGET, text: `<= ${PG_TIME_RATIO_TARGET.toFixed(1)}x ogr2ogr` }
    : { ratio: TIME_RATIO_TARGET, text: `<= ${TIME_RATIO_TARGET}x peer` };
  const rssOk = result.peakRss < RSS_LIMIT_MB && result.hwm < RSS_LIMIT_MB;
  return [
    [
      `${name} (s)${on}`,
      `${result.seconds.toFixed(1)} s`,
      `${peer.seconds.toFixed(1)} s (ogr2ogr -f GPKG)`,
      `${ratio.toFixed(2)}x`,
      timeTarget.text,
      ratio <= timeTarget.ratio ? 'yes' : 'NO',
    ],
    [
      `${name}: peak RSS of the service during the import (MB)${on}`,
      `${mb(result.peakRss, false)} MB (VmHWM ${mb(result.hwm, false)}, reset before the upload)`,
      peer.maxRssMb === null ? 'n/a' : `${mb(peer.maxRssMb, false)} MB (ogr2ogr max RSS)`,
      'n/a',
      `< ${RSS_LIMIT_MB} MB`,
      rssOk ? 'yes' : 'NO',
    ],
    [
      // Set by the set-up's sign-up: scrypt at PASSWORD_HASH_COST 17 takes 128 MiB while it hashes.
      `${name}: VmHWM of the service at start-up and sign-up (MB)${on}`,
      `${mb(result.startupHwm, false)} MB`,
      'n/a',
      'n/a',
      `< ${RSS_LIMIT_MB} MB`,
      result.startupHwm < RSS_LIMIT_MB ? 'yes' : 'NO',
    ],
  ];
}

export async function runBulkBench(): Promise<{ rows: Row[]; missed: string[] }> {
  console.log('## Bulk import');
  const sampler = setInterval(() => (ownPeakRss = Math.max(ownPeakRss, process.memoryUsage.rss() / 1024 ** 2)), 50);
  sampler.unref();
  const rows: Row[] = [];
  try {
    for (const size of SIZES) {
      const file = path.join(TMP, `points-${label(size)}.geojson`);
      const t = performance.now();
      await writePointsGeoJson(file, size);
      console.log(
        `   generated ${file} (${mb(statSync(file).size)} MB) in ${((performance.now() - t) / 1000).toFixed(1)} s`,
      );
      try {
        const peer = await ogr2ogr(file);
        rows.push(...rowsOf(await bulkImport(size, file), peer));
        if (size === SIZES[SIZES.length - 1]) {
          const database = await freshDatabase(PG_MODE);
          if (database) {
            try {
              rows.push(...rowsOf(await bulkImport(size, file, database.env), peer, 'PostgreSQL'));
            } finally {
              await database.drop();
            }
          }
        }
      } finally {
        rmSync(file, { force: true });
      }
    }
  } finally {
    clearInterval(sampler);
  }
  console.log(`   bench process peak RSS while generating and uploading: ${mb(ownPeakRss, false)} MB\n`);
  return { rows, missed: rows.filter((row) => row[5] === 'NO').map((row) => row[0]) };
}
