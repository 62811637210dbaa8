/**
 * Maproom benchmarks (`npm run bench`; not part of the test suite, see bench/README.md).
 *
 * Compares, on this machine, Maproom's marker read-one and create routes with a bare Fastify
 * hello-world server (the named peer), measures bulk imports of 100,000 and 1,000,000
 * points against ogr2ogr (bench/bulk.ts: wall time and the server's peak RSS), and vector layers (bench/vector.ts: ingest of
 * 1,000,000 polygons against ogr2ogr, bbox queries and vector tiles). Every server is its own
 * child process on 127.0.0.1 with a fresh DATA_DIR (SQLite unless a part says otherwise);
 * autocannon runs here with the same settings for all. Shared helpers: bench/harness.ts.
 *
 * Environment:
 *   BENCH_QUICK=1          skip the 1,000,000-point import, and make the vector part use 100,000 polygons
 *   BENCH_BULK_PG=auto     the 1,000,000-point import on PostgreSQL too: when reachable (auto), never (0), or required (1)
 *   BENCH_ONLY=http,bulk,vector,raster,s3,export,web,live,ogc,webhooks,embed,edits   run only these parts (default: all twelve;
 *                             `catalogs`, part of `web`, also runs alone)
 *   BENCH_VECTOR_*         settings of the vector part: see bench/vector.ts
 *   BENCH_EDITS_*, BENCH_REFRESH_COUNT   settings of the edits part: see bench/layer-edits.ts and bench/remote-refresh.ts
 *   BENCH_DURATION=10      seconds per measured HTTP run (after BENCH_WARMUP=3 s of warm-up)
 *   BENCH_CONNECTIONS=10   autocannon connections (pipelining is 1)
 *   BENCH_ROUNDS=1         measure peer, GET, POST and concurrent creates in turn this many times; report each one's median
 *   BENCH_HTTP_DBS=sqlite,postgres   the databases of the HTTP part (PostgreSQL: a fresh database on PG_ADMIN_URL)
 *   BENCH_SERVER=dist|tsx  run Maproom from dist/ (built first when stale; default) or from src/ with tsx
 *   BENCH_LOG_LEVEL=warn   LOG_LEVEL of the Maproom server
 *   BENCH_CPU_PROF=<dir>   start the Maproom servers with --cpu-prof, profiles written to <dir>
 *   BENCH_NODE_ARGS="..."  more node options for the Maproom servers (experiments, e.g. --import a preload)
 *   BENCH_TRACE=<dir>      write each server's output, and the RSS samples of each import (CSV), to <dir>
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cleanUp, CPU_PROF, fmt, LOG_LEVEL, prepareMaproom, ROOT, type Row } from './harness.js';
import { runBulkBench } from './bulk.js';
import { runExportBench } from './export.js';
import { CONNECTIONS, DURATION, type Load, PIPELINING, ROUNDS, runHttpBench, WARMUP } from './http.js';
import { runOgcBench } from './ogc.js';
import { runLiveBench } from './live-fanout.js';
import { runWebBench } from './web.js';
import { runCatalogsBench } from './catalogs.js';
import { runRasterBench } from './raster.js';
import { runS3Bench } from './s3.js';
import { runVectorBench } from './vector.js';
import { runWebhooksBench } from './webhooks.js';
import { runEmbedBench } from './embed.js';
import { runEditsBench } from './layer-edits.js';

const env = process.env;
const ONLY = new Set(
  (env.BENCH_ONLY ?? 'http,bulk,vector,raster,s3,export,web,live,ogc,webhooks,embed,edits')
    .split(',')
    .map((s) => s.trim()),
);

// ---------------------------------------------------------------- main

async function main() {
  const cpus = os.cpus();
  const fastifyVersion = JSON.parse(readFileSync(path.join(ROOT, 'node_modules/fastify/package.json'), 'utf8')).version;
  const facts = [
    `cores: ${cpus.length} (${cpus[0]?.model.trim() ?? 'unknown CPU'})`,
    `memory: ${(os.totalmem() / 1024 ** 3).toFixed(1)} GB`,
    `node: ${process.version}`,
    `os: ${os.type()} ${os.release()} ${os.arch()}`,
    `fastify: ${fastifyVersion}`,
    `load: autocannon in the bench process, ${CONNECTIONS} connections, pipelining ${PIPELINING}, ` +
      `${WARMUP} s warm-up + ${DURATION} s measured per route${ROUNDS > 1 ? `, ${ROUNDS} rounds (median)` : ''}`,
    `load average at start: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}` +
      (os.loadavg()[0]! > cpus.length / 2
        ? ' !! the machine is busy with other processes: req/s figures will be noisy'
        : ''),
  ];
  console.log('# Maproom benchmarks\n');
  for (const fact of facts) console.log(`- ${fact}`);
  const maproom = prepareMaproom();
  console.log(
    `- maproom: \`${maproom.how}\`, LOG_LEVEL=${LOG_LEVEL}, fresh SQLite DATA_DIR per server` +
      (CPU_PROF ? `, --cpu-prof to ${CPU_PROF}` : '') +
      (env.BENCH_NODE_ARGS ? `, node options: ${env.BENCH_NODE_ARGS}` : ''),
  );
  if (ONLY.has('http'))
    console.log(
      '- peer of the HTTP part: bare Fastify hello-world (`node bench/peer-hello.mjs`), GET / -> {"hello":"world"}',
    );
  if (ONLY.has('bulk'))
    console.log('- peer of the bulk-import part: `ogr2ogr -f GPKG out.gpkg points.geojson` of the same file');
  if (ONLY.has('vector'))
    console.log('- peer of the vector part: `ogr2ogr -f GPKG -t_srs EPSG:4326` of the same file (GDAL from Debian)');
  if (ONLY.has('export'))
    console.log("- peer of the export part: `ogr2ogr -f GPKG` of the export's feature tables into a new GeoPackage");
  if (ONLY.has('ogc'))
    console.log("- peer of the OGC part: `ogr2ogr -f GPKG` of the layer's table in the room's GeoPackage export");
  if (ONLY.has('s3'))
    console.log(
      '- peer of the S3 part: the same service with its files on local disk; S3 is OpenStack Swift on loopback',
    );
  if (ONLY.has('edits'))
    console.log('- peer of the remote layer refresh: `ogr2ogr -f GPKG out.gpkg` of the same GeoJSON');
  if (ONLY.has('raster'))
    console.log(
      '- peers of the raster part: `gdalwarp -t_srs EPSG:3857 -of COG` of the same file; `gdal_translate -of PNG -projwin` of the same tiles',
    );
  console.log();

  const rows: Row[] = [];
  const loads: Load[] = [];
  const missed: string[] = [];

  if (ONLY.has('http')) {
    const http = await runHttpBench();
    rows.push(...http.rows);
    missed.push(...http.missed);
    loads.push(...http.loads);
  }

  if (ONLY.has('bulk')) {
    const bulk = await runBulkBench();
    rows.push(...bulk.rows);
    missed.push(...bulk.missed);
  }
  if (ONLY.has('vector')) {
    const vector = await runVectorBench();
    rows.push(...vector.rows);
    missed.push(...vector.missed);
  }
  if (ONLY.has('raster')) {
    const raster = await runRasterBench();
    rows.push(...raster.rows);
    missed.push(...raster.missed);
  }
  if (ONLY.has('s3')) {
    const s3 = await runS3Bench();
    rows.push(...s3.rows);
    missed.push(...s3.missed);
  }
  if (ONLY.has('export')) {
    const exported = await runExportBench();
    rows.push(...exported.rows);
    missed.push(...exported.missed);
  }
  if (ONLY.has('web') || ONLY.has('catalogs')) {
    const catalogs = await runCatalogsBench();
    rows.push(...catalogs.rows);
    missed.push(...catalogs.missed);
  }
  if (ONLY.has('web')) {
    const web = await runWebBench();
    rows.push(...web.rows);
    missed.push(...web.missed);
  }
  if (ONLY.has('ogc')) {
    const ogc = await runOgcBench();
    rows.push(...ogc.rows);
    missed.push(...ogc.missed);
  }
  if (ONLY.has('embed')) {
    const embed = await runEmbedBench();
    rows.push(...embed.rows);
    missed.push(...embed.missed);
  }
  if (ONLY.has('edits')) {
    const edits = await runEditsBench();
    rows.push(...edits.rows);
    missed.push(...edits.missed);
  }
  if (ONLY.has('webhooks')) {
    const webhooks = await runWebhooksBench();
    rows.push(...webhooks.rows);
    missed.push(...webhooks.missed);
  }
  if (ONLY.has('live')) {
    const live = await runLiveBench();
    rows.push(...live);
    for (const row of live) if (row[5] === 'NO') missed.push(row[0]);
  }

  console.log('## Results\n');
  console.log('| benchmark | maproom | peer | ratio | target | met? |');
  console.log('|---|---|---|---|---|---|');
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
  if (loads.length) {
    const peer = loads[0]!;
    console.log('\n| route | req/s | latency p50 / p99 (ms) | server CPU per request (µs) | CPU per request vs peer |');
    console.log('|---|---|---|---|---|');
    for (const l of loads) {
      console.log(
        `| ${l.label} | ${fmt(l.rps)} | ${Number.isNaN(l.p50) ? 'n/a' : `${l.p50} / ${l.p99}`} | ${fmt(l.cpuPerRequest)} | ${(l.cpuPerRequest / peer.cpuPerRequest).toFixed(1)}x |`,
      );
    }
  }
  console.log(`\n${missed.length ? `Targets missed: ${missed.join('; ')}` : 'All targets met.'}`);
}

process.on('SIGINT', () => void cleanUp().then(() => process.exit(130)));

try {
  await main();
  await cleanUp();
} catch (error) {
  console.error('\nBenchmark failed:', error instanceof Error ? error.stack : error);
  await cleanUp();
  process.exit(1);
}
