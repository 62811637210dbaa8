/**
 * The OGC API – Features benchmark (`BENCH_ONLY=ogc npm run bench`; see bench/README.md).
 *
 * A fresh Maproom (SQLite) ingests the GeoPackage of N building footprints (bench/vector-data.ts,
 * N = 1,000,000 by default); then `ogr2ogr -f GPKG` copies the layer through OAPIF
 * (`OAPIF:<url>` with the room token in GDAL_HTTP_HEADERS, `-oo PAGE_SIZE=...`), timed to
 * its exit: features per second. The peer is `ogr2ogr -f GPKG` of the same features from the
 * room's GeoPackage export (its layer table). Beside them: the latency of a first page and of
 * a page at the end of the layer (keyset paging should make them alike).
 *
 * Environment:
 *   BENCH_OGC_COUNT=1000000        polygons (BENCH_QUICK=1: 100,000); e.g. 20000 while developing
 *   BENCH_OGC_PAGE_SIZES=10000,1000  GDAL's PAGE_SIZE for each OAPIF run
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { label, ROOM_ID, type Row, setUp, startMaproom, stopServer, TMP } from './harness.js';
import { download, featureCounts } from './export.js';
import { timedTool, vectorData } from './vector-data.js';
import { ingestByChunks } from './vector-upload.js';

const env = process.env;
const COUNT = Number(env.BENCH_OGC_COUNT ?? (env.BENCH_QUICK === '1' ? 100_000 : 1_000_000));
const PAGE_SIZES = (env.BENCH_OGC_PAGE_SIZES ?? '10000,1000').split(',').map(Number);
const PAGE_LATENCY_RUNS = 20;
/** OAPIF should read at least this share of the export's features per second. */
const RATE_TARGET = 0.25;

const rate = (seconds: number) => `${Math.round(COUNT / seconds).toLocaleString('en-US')} features/s`;

/** The median time of `runs` GETs of `url` with the token, in milliseconds. */
async function medianMs(url: string, token: string, runs: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`${url}: ${res.status}`);
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)]!;
}

export async function runOgcBench(): Promise<{ rows: Row[]; missed: string[] }> {
  console.log(`## OGC API – Features (${COUNT.toLocaleString('en-US')} polygons)`);
  const data = await vectorData(COUNT);
  const server = await startMaproom('maproom (ogc)');
  const rows: Row[] = [];
  const missed: string[] = [];
  try {
    const token = await setUp(server.url, ['read', 'write', 'upload']);
    const layer = await ingestByChunks(server, token, data.gpkg, COUNT);
    console.log(
      `   layer ${layer.layerId} of ${layer.featureCount} polygons ingested in ${layer.seconds.toFixed(1)} s`,
    );

    const exported = path.join(TMP, 'ogc-export.gpkg');
    await download(server, token, exported);
    const table = [...featureCounts(exported)].find(([, n]) => n === COUNT)?.[0];
    if (!table) throw new Error(`the export has no table of ${COUNT} features: ${[...featureCounts(exported)]}`);
    const peerOut = path.join(TMP, 'ogc-peer.gpkg');
    const peer = await timedTool('ogr2ogr', ['-f', 'GPKG', peerOut, exported, table]);
    rmSync(peerOut, { force: true });
    console.log(`   peer: ogr2ogr of the export's table ${table}: ${peer.seconds.toFixed(1)} s, ${rate(peer.seconds)}`);

    const endpoint = `${server.url}/api/rooms/${ROOM_ID}/ogc`;
    for (const pageSize of PAGE_SIZES) {
      const out = path.join(TMP, `ogc-oapif-${pageSize}.gpkg`);
      const run = await timedTool('ogr2ogr', [
        '-f',
        'GPKG',
        out,
        `OAPIF:${endpoint}`,
        layer.layerId,
        '-oo',
        `PAGE_SIZE=${pageSize}`,
        '--config',
        'GDAL_HTTP_HEADERS',
        `Authorization: Bearer ${token}`,
      ]);
      const copied = [...featureCounts(out).values()][0];
      rmSync(out, { force: true });
      if (copied !== COUNT) throw new Error(`OAPIF copy has ${copied} features, expected ${COUNT}`);
      const ratio = peer.seconds / run.seconds;
      const met = ratio >= RATE_TARGET;
      console.log(
        `   OAPIF, PAGE_SIZE=${pageSize}: ${run.seconds.toFixed(1)} s, ${rate(run.seconds)}, ogr2ogr max RSS ${run.maxRssMb ?? '?'} MB`,
      );
      const name = `ogr2ogr of ${label(COUNT)} polygons through OAPIF, PAGE_SIZE=${pageSize}`;
      rows.push([
        name,
        `${rate(run.seconds)} (${run.seconds.toFixed(1)} s)`,
        `${rate(peer.seconds)} (${peer.seconds.toFixed(1)} s, ogr2ogr of the GeoPackage export)`,
        `${ratio.toFixed(2)}x`,
        `>= ${RATE_TARGET}x the peer's rate`,
        met ? 'yes' : 'NO',
      ]);
      if (!met) missed.push(name);
    }

    const items = `${endpoint}/collections/${layer.layerId}/items?limit=1000`;
    const last = Buffer.from(JSON.stringify([COUNT - 1000, COUNT])).toString('base64url');
    const first = await medianMs(items, token, PAGE_LATENCY_RUNS);
    const deep = await medianMs(`${items}&cursor=${last}`, token, PAGE_LATENCY_RUNS);
    console.log(
      `   a page of 1,000: first ${first.toFixed(1)} ms, last ${deep.toFixed(1)} ms (median of ${PAGE_LATENCY_RUNS})`,
    );
    const alike = deep <= first * 2;
    rows.push([
      'OAPIF page of 1,000 at the end of the layer (ms, median)',
      `${deep.toFixed(1)} ms`,
      `${first.toFixed(1)} ms (the first page)`,
      `${(deep / first).toFixed(2)}x`,
      '<= 2x the first page',
      alike ? 'yes' : 'NO',
    ]);
    if (!alike) missed.push('OAPIF last page');
    rmSync(exported, { force: true });
  } finally {
    await stopServer(server);
  }
  return { rows, missed };
}
