/**
 * The vector layers benchmark (`BENCH_ONLY=vector npm run bench`; see bench/README.md).
 *
 * For a GeoPackage and a zipped shapefile of N building footprints in EPSG:2056 written by
 * GDAL (N = 1,000,000 by default): `ogr2ogr -f GPKG -t_srs EPSG:4326` of the file (the peer),
 * then the same file uploaded to a fresh Maproom through chunked upload until the layer is
 * queryable, with the peak RSS of the service. On the GeoPackage's layer: bbox feature
 * queries over random 1024x768 viewports and random vector tiles at zooms 6, 10 and 14.
 * All of it on SQLite, and, when PostgreSQL answers, the GeoPackage's ingest and the reads again
 * on a fresh PostgreSQL database.
 *
 * Environment:
 *   BENCH_VECTOR_COUNT=1000000   polygons per file (BENCH_QUICK=1: 100,000); e.g. 20000 while developing
 *   BENCH_VECTOR_FILES=gpkg,shp  which files to ingest (the reads use the first one's layer)
 *   BENCH_VECTOR_DATA=<dir>      cache of generated files (default bench/.data)
 *   BENCH_VECTOR_QUERIES=200     measured requests per zoom and kind (after BENCH_VECTOR_WARMUP=10)
 *   BENCH_VECTOR_ZOOMS=6,10,14   zooms of the reads
 *   BENCH_VECTOR_SEED=2056       seed of the random viewports and tiles
 *   BENCH_VECTOR_PG=auto|0|1     PostgreSQL rows: when reachable (auto), never, or required
 *   PG_ADMIN_URL=postgres://postgres@127.0.0.1:5432/postgres   where the fresh database is created
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import {
  label,
  mb,
  RSS_LIMIT_MB,
  setUp,
  startMaproom,
  stopServer,
  TMP,
  TRACE,
  type Row,
  type Server,
} from './harness.js';
import { ogr2ogrPeer, vectorData, type PeerRun } from './vector-data.js';
import { measureFeatureQueries, measureTiles, type ReadOptions, type ReadStats } from './vector-reads.js';
import { ingestByChunks, phaseSummary, type IngestResult } from './vector-upload.js';

const env = process.env;
const COUNT = Number(env.BENCH_VECTOR_COUNT ?? (env.BENCH_QUICK === '1' ? 100_000 : 1_000_000));
const FILES = (env.BENCH_VECTOR_FILES ?? 'gpkg,shp').split(',').map((s) => s.trim()) as ('gpkg' | 'shp')[];
const READS: ReadOptions = {
  zooms: (env.BENCH_VECTOR_ZOOMS ?? '6,10,14').split(',').map(Number),
  count: Number(env.BENCH_VECTOR_QUERIES ?? 200),
  warmup: Number(env.BENCH_VECTOR_WARMUP ?? 10),
  seed: Number(env.BENCH_VECTOR_SEED ?? 2056),
};
const PG_MODE = env.BENCH_VECTOR_PG ?? 'auto';
const PG_ADMIN_URL = env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const TIME_RATIO_TARGET = 1.5;
const READ_P95_TARGET_MS = 50;

type Dialect = 'SQLite' | 'PostgreSQL';
/** One input file, and its peer's run once it has been timed. */
type VectorInput = { format: 'gpkg' | 'shp'; path: string; peer?: PeerRun };
const FORMAT = { gpkg: 'GeoPackage', shp: 'zipped shapefile (EPSG:2056)' } as const;

async function adminQuery(sql: string) {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * A fresh PostgreSQL database for one server, or null when PostgreSQL does not answer (and may
 * be skipped): `mode` is `auto`, `0` (never) or `1` (required).
 */
export async function freshDatabase(
  mode = PG_MODE,
): Promise<{ env: Record<string, string>; drop: () => Promise<void> } | null> {
  if (mode === '0') return null;
  const name = `maproom_bench_${randomBytes(5).toString('hex')}`;
  try {
    await adminQuery(`CREATE DATABASE ${name}`);
  } catch (error) {
    if (mode === '1') throw error;
    console.log(
      `   PostgreSQL rows skipped: ${PG_ADMIN_URL.replace(/:[^:@/]*@/, ':***@')} did not answer (${(error as Error).message})`,
    );
    return null;
  }
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: url.toString(), JWT_SECRET: randomBytes(32).toString('base64url') },
    drop: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

const size = `${label(COUNT)} polygons`;

function ingestRows(dialect: Dialect, format: keyof typeof FORMAT, result: IngestResult, peer: PeerRun): Row[] {
  const on = dialect === 'SQLite' ? '' : ` (${dialect})`;
  const ratio = result.seconds / peer.seconds;
  const m = result.memory;
  const rssOk = m.serviceHwm < RSS_LIMIT_MB && m.hwmReset;
  return [
    [
      `vector ingest ${size}, ${FORMAT[format]} ${mb(result.bytes)} MB: time until queryable (s)${on}`,
      `${result.seconds.toFixed(1)} s (upload ${result.uploadSeconds.toFixed(1)} s)`,
      `${peer.seconds.toFixed(1)} s (ogr2ogr -f GPKG -t_srs EPSG:4326)`,
      `${ratio.toFixed(2)}x`,
      `<= ${TIME_RATIO_TARGET}x peer`,
      ratio <= TIME_RATIO_TARGET ? 'yes' : 'NO',
    ],
    [
      `vector ingest ${size}, ${FORMAT[format]}: peak RSS of the service (MB)${on}`,
      `${mb(m.serviceHwm, false)} MB VmHWM of the service process${m.hwmReset ? '' : ' (not resettable: includes start-up)'}; ` +
        `with its child processes (GDAL) ${mb(m.treePeak, false)} MB (sampled)`,
      peer.maxRssMb === null ? 'n/a' : `${mb(peer.maxRssMb, false)} MB (ogr2ogr max RSS)`,
      'n/a',
      `< ${RSS_LIMIT_MB} MB`,
      rssOk ? 'yes' : 'NO',
    ],
  ];
}

function readRows(dialect: Dialect, stats: ReadStats[]): Row[] {
  const on = dialect === 'SQLite' ? '' : ` (${dialect})`;
  return stats.map((s) => [
    `${s.what === 'features' ? 'bbox features (1024x768 viewport)' : 'vector tile'} z${s.zoom}, ${size} (ms, p50 / p95)${on}`,
    `${s.p50.toFixed(1)} / ${s.p95.toFixed(1)} ms`,
    'n/a',
    'n/a',
    `p95 < ${READ_P95_TARGET_MS} ms`,
    s.p95 < READ_P95_TARGET_MS ? 'yes' : 'NO',
  ]);
}

function logIngest(format: string, result: IngestResult, peer: PeerRun) {
  const m = result.memory;
  console.log(
    `   maproom: ${result.seconds.toFixed(1)} s until queryable (${result.chunks} chunk(s), upload ${result.uploadSeconds.toFixed(1)} s), ` +
      `${result.featureCount} features, bbox ${result.bbox.map((v) => v.toFixed(4)).join(',')}\n` +
      `   memory: service RSS before ${mb(m.startRss, false)} MB, VmHWM ${mb(m.serviceHwm, false)} MB (reset before the upload: ${m.hwmReset}); ` +
      `child processes: ${m.childNames || 'none seen'}, together at most ${mb(m.childrenPeak, false)} MB, largest ${mb(m.largestChildHwm, false)} MB; ` +
      `service + processes at most ${mb(m.treePeak, false)} MB (sampled every 50 ms)\n` +
      `   phases: ${phaseSummary(result.phases)}\n` +
      `   peer (${format}): ${peer.seconds.toFixed(1)} s${peer.maxRssMb === null ? '' : `, max RSS ${mb(peer.maxRssMb, false)} MB`}: \`${peer.command}\``,
  );
}

function logReads(stats: ReadStats[]) {
  for (const s of stats) {
    console.log(
      `   ${s.what} z${s.zoom}: p50 ${s.p50.toFixed(1)} ms, p95 ${s.p95.toFixed(1)} ms, max ${s.max.toFixed(1)} ms over ${s.count}; ${s.detail}`,
    );
  }
}

/** Ingests the files on one database, each on a fresh server (comparable RSS), and reads on the first one's layer. */
async function onDatabase(
  dialect: Dialect,
  files: VectorInput[],
  extraEnv: () => Promise<{ env: Record<string, string>; drop: () => Promise<void> } | null>,
) {
  const rows: Row[] = [];
  for (const [index, file] of files.entries()) {
    const database = await extraEnv();
    if (database === null && dialect === 'PostgreSQL') return rows;
    let server: Server | undefined;
    try {
      server = await startMaproom(`maproom (vector ${file.format}, ${dialect})`, database?.env);
      const token = await setUp(server.url, ['read', 'upload']);
      // The peer runs just before the first ingest of its file, so that both meet the same machine load.
      if (!file.peer) {
        file.peer = await ogr2ogrPeer(file.path, TMP);
        console.log(`   peer: ${file.peer.command}: ${file.peer.seconds.toFixed(1)} s`);
      }
      const peer = file.peer;
      console.log(`   ${dialect}: ingest of ${path.basename(file.path)}`);
      const csv = TRACE && path.join(TRACE, `rss-vector-${file.format}-${dialect}.csv`);
      const result = await ingestByChunks(server, token, file.path, COUNT, csv);
      logIngest(FORMAT[file.format], result, peer);
      rows.push(...ingestRows(dialect, file.format, result, peer));
      if (index === 0) {
        console.log(`   ${dialect}: reads on that layer (${READS.count} per zoom after ${READS.warmup} not counted)`);
        const features = await measureFeatureQueries(server, token, result.layerId, result.bbox, READS);
        const tiles = await measureTiles(server, token, result.layerId, result.bbox, READS);
        logReads([...features, ...tiles]);
        rows.push(...readRows(dialect, [...features, ...tiles]));
      }
    } finally {
      if (server) await stopServer(server);
      await database?.drop();
    }
  }
  return rows;
}

/** Runs the vector benchmark; returns its table rows and the names of the rows that missed their target. */
export async function runVectorBench(): Promise<{ rows: Row[]; missed: string[] }> {
  console.log(`## Vector layers (${COUNT.toLocaleString('en-US')} polygons)`);
  const data = await vectorData(COUNT);
  const files: VectorInput[] = FILES.map((format) => ({ format, path: format === 'gpkg' ? data.gpkg : data.shpZip }));
  const rows = await onDatabase('SQLite', files, async () => null);
  rows.push(...(await onDatabase('PostgreSQL', files.slice(0, 1), freshDatabase)));
  console.log();
  return { rows, missed: rows.filter((row) => row[5] === 'NO').map((row) => row[0]) };
}
