/**
 * The remote layer half of the edits benchmark (see bench/README.md, "Layer edits"). A GeoJSON
 * of N building footprints (GDAL's conversion of bench/vector-data.ts's GeoPackage, in
 * EPSG:4326) is served by an HTTP server in this process. A fresh Maproom (SQLite, with
 * OUTBOUND_ALLOW_PRIVATE=true to read from loopback) reads it as a remote layer, then the
 * source changes (1% of the features, then all of them) and the layer is refreshed each time.
 * Each read is timed from its POST until its job is complete, beside the peer
 * `ogr2ogr -f GPKG out.gpkg <the same file>` run just before it; the service's VmHWM is reset
 * before each read.
 *
 * Environment:
 *   BENCH_REFRESH_COUNT=100000   polygons in the source; e.g. 10000 while developing
 */
import { once } from 'node:events';
import { createReadStream, createWriteStream, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { pipeline } from 'node:stream/promises';
import {
  api,
  label,
  mb,
  ROOM_ID,
  RSS_LIMIT_MB,
  type Row,
  type Server,
  setUp,
  sleep,
  startMaproom,
  stopServer,
  TMP,
} from './harness.js';
import { run, timedTool, vectorData } from './vector-data.js';
import { phaseSummary, watchMemory } from './vector-upload.js';

const COUNT = Number(process.env.BENCH_REFRESH_COUNT ?? 100_000);
const TIME_RATIO_TARGET = 1.5;

/**
 * Writes the source and its two changed versions: `every` 100th feature's height raised by
 * 1,000 (1%), and every feature's by 2,000 (so that all differ from the 1% version too).
 * GDAL's GeoJSON holds one feature per line.
 */
async function sources(): Promise<{ base: string; some: string; all: string }> {
  const data = await vectorData(COUNT);
  const base = path.join(TMP, 'remote-base.geojson');
  const converted = await run('ogr2ogr', [
    '-f',
    'GeoJSON',
    '-t_srs',
    'EPSG:4326',
    '-lco',
    'RFC7946=YES',
    base,
    data.gpkg,
  ]);
  if (converted.code !== 0) throw new Error(`ogr2ogr to GeoJSON failed:\n${converted.stderr}`);
  const variant = async (name: string, changes: (index: number) => number) => {
    const file = path.join(TMP, `remote-${name}.geojson`);
    let index = 0;
    async function* lines() {
      for await (const line of createInterface({ input: createReadStream(base), crlfDelay: Infinity })) {
        if (!line.startsWith('{ "type": "Feature"')) {
          yield `${line}\n`;
          continue;
        }
        const raise = changes(index++);
        yield `${raise ? line.replace(/"height": ([\d.]+)/, (_, h: string) => `"height": ${(Number(h) + raise).toFixed(1)}`) : line}\n`;
      }
    }
    await pipeline(lines, createWriteStream(file));
    return file;
  };
  const some = await variant('some', (i) => (i % 100 === 0 ? 1000 : 0));
  const all = await variant('all', () => 2000);
  return { base, some, all };
}

/** A loopback HTTP server answering one address with whichever file `serve` names last. */
async function sourceServer() {
  let file = '';
  const server = createServer((req, res) => {
    if (req.url !== '/buildings.geojson') return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/geo+json', 'content-length': statSync(file).size });
    createReadStream(file).pipe(res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/buildings.geojson`,
    serve: (next: string) => (file = next),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

interface Job {
  stage: string;
  message: string | null;
  layerId?: string;
  added?: number;
  changed?: number;
  removed?: number;
}

/** Polls a job every 100 ms until it ends, noting its stages and messages; throws unless it is complete. */
async function jobEnd(server: Server, token: string, jobId: string) {
  const phases: { phase: string; at: number }[] = [];
  for (;;) {
    const job = await api<Job>(server.url, 'GET', `/api/jobs/${jobId}`, { token });
    if (job.stage === 'error') throw new Error(`remote layer job ended in error: ${job.message}`);
    const end = performance.now();
    if (job.stage === 'complete')
      return {
        job,
        phases: phases.map((p, i) => ({ phase: p.phase, seconds: ((phases[i + 1]?.at ?? end) - p.at) / 1000 })),
      };
    const phase = `${job.stage}: ${(job.message ?? '').replace(/\d[\d,.]*/g, '#')}`;
    if (phases.at(-1)?.phase !== phase) phases.push({ phase, at: end });
    await sleep(100);
  }
}

/** One read of the source by Maproom, beside the peer on the same file just before it. */
async function timedRead(server: Server, token: string, file: string, post: () => Promise<{ jobId: string }>) {
  const out = path.join(TMP, 'remote-peer.gpkg');
  rmSync(out, { force: true });
  const peer = await timedTool('ogr2ogr', ['-f', 'GPKG', out, file]).finally(() => rmSync(out, { force: true }));
  const memory = watchMemory(server.pid);
  const t0 = performance.now();
  const { job, phases } = await jobEnd(server, token, (await post()).jobId);
  const seconds = (performance.now() - t0) / 1000;
  return { job, phases, seconds, peer, memory: memory.stop() };
}

type Read = Awaited<ReturnType<typeof timedRead>>;

function rowsOf(what: string, read: Read): Row[] {
  const ratio = read.seconds / read.peer.seconds;
  const m = read.memory;
  return [
    [
      `remote layer of ${label(COUNT)} polygons, ${what}: POST to job complete (s)`,
      `${read.seconds.toFixed(1)} s`,
      `${read.peer.seconds.toFixed(1)} s (ogr2ogr -f GPKG of the same GeoJSON)`,
      `${ratio.toFixed(2)}x`,
      `<= ${TIME_RATIO_TARGET}x peer`,
      ratio <= TIME_RATIO_TARGET ? 'yes' : 'NO',
    ],
    [
      `remote layer of ${label(COUNT)} polygons, ${what}: peak RSS of the service (MB)`,
      `${mb(m.serviceHwm, false)} MB VmHWM${m.hwmReset ? '' : ' (not resettable: includes start-up)'}; with its child processes ${mb(m.treePeak, false)} MB (sampled)`,
      read.peer.maxRssMb === null ? 'n/a' : `${mb(read.peer.maxRssMb, false)} MB (ogr2ogr max RSS)`,
      'n/a',
      `< ${RSS_LIMIT_MB} MB`,
      m.serviceHwm < RSS_LIMIT_MB && m.hwmReset ? 'yes' : 'NO',
    ],
  ];
}

/** Creates the remote layer, refreshes it after 1% and then all of its source changed; returns the rows. */
export async function runRefreshBench(): Promise<Row[]> {
  console.log(`## Remote layer refresh (${COUNT.toLocaleString('en-US')} polygons)`);
  const files = await sources();
  console.log(`   source GeoJSON ${mb(statSync(files.base).size)} MB, served from this process on loopback`);
  const source = await sourceServer();
  const server = await startMaproom('maproom (remote refresh)', { OUTBOUND_ALLOW_PRIVATE: 'true' });
  const rows: Row[] = [];
  try {
    const token = await setUp(server.url, ['read', 'write', 'upload']);
    source.serve(files.base);
    const created = await timedRead(server, token, files.base, () =>
      api(server.url, 'POST', `/api/rooms/${ROOM_ID}/layers/remote`, {
        token,
        body: { url: source.url, name: 'Buildings', refreshMinutes: null },
      }),
    );
    const layerId = created.job.layerId!;
    const { layers } = await api<{ layers: { id: string; featureCount: number }[] }>(
      server.url,
      'GET',
      `/api/layers/${ROOM_ID}`,
      { token },
    );
    const count = layers.find((l) => l.id === layerId)?.featureCount;
    if (count !== COUNT) throw new Error(`the remote layer has ${count} features, expected ${COUNT}`);
    console.log(`   first read: ${phaseSummary(created.phases)}`);
    rows.push(...rowsOf('first read', created));
    for (const [what, file, expected] of [
      ['refresh, 1% changed', files.some, Math.ceil(COUNT / 100)],
      ['refresh, all changed', files.all, COUNT],
    ] as const) {
      source.serve(file);
      const read = await timedRead(server, token, file, () =>
        api(server.url, 'POST', `/api/layers/${layerId}/refresh`, { token }),
      );
      const { added, changed, removed } = read.job;
      if (changed !== expected || added !== 0 || removed !== 0)
        throw new Error(
          `${what}: the job counted ${JSON.stringify({ added, changed, removed })}, expected ${expected} changed`,
        );
      console.log(`   ${what}: ${phaseSummary(read.phases)}`);
      rows.push(...rowsOf(what, read));
    }
  } finally {
    await stopServer(server);
    await source.close();
  }
  for (const row of rows) console.log(`   ${row[0]}: ${row[1]}; peer ${row[2]}`);
  console.log();
  return rows;
}
