/**
 * The layer edits benchmark (`BENCH_ONLY=edits npm run bench`; see bench/README.md, "Layer
 * edits"). A fresh Maproom (SQLite) ingests the GeoPackage of N building footprints
 * (bench/vector-data.ts, N = 1,000,000 by default). Then:
 *
 * - K edits, one at a time: a random feature is moved (about 230 m east) and given a new
 *   `height`, by `PATCH /api/layers/:layerId/features/:featureId`. From the moment the PATCH is
 *   sent, the z14 vector tile at its new place, a small bbox read around it and its OGC item
 *   are each read until they show the new value (and the tile the new place), and a second
 *   client's live channel waits for the `feature.updated` change: the time until each shows it.
 * - Random vector tiles on the quiet layer, then the same tiles while a side loop PATCHes 20
 *   features a second: the ratio of the p95s.
 *
 * Then the remote layer refresh (bench/remote-refresh.ts).
 *
 * Environment:
 *   BENCH_EDITS_COUNT=1000000   polygons (BENCH_QUICK=1: 100,000); e.g. 20000 while developing
 *   BENCH_EDITS_K=50            edits whose visibility is timed
 *   BENCH_EDITS_RATE=20         PATCHes per second beside the tile reads
 *   BENCH_EDITS_QUERIES=600     measured tiles per zoom (after BENCH_VECTOR_WARMUP=10), BENCH_EDITS_ZOOMS=6,10,14
 *   BENCH_EDITS_PARTS=visibility,refresh   which halves to run
 */
import { VectorTile } from '@mapbox/vector-tile';
import { PbfReader } from 'pbf';
import WebSocket from 'ws';
import { DEFAULT_THINNING } from '../src/geo/thinning.js';
import { api, label, ROOM_ID, type Row, type Server, setUp, sleep, startMaproom, stopServer } from './harness.js';
import { runRefreshBench } from './remote-refresh.js';
import { vectorData } from './vector-data.js';
import { measureTiles, percentile, type ReadOptions, seededRandom, timedGet } from './vector-reads.js';
import { ingestByChunks } from './vector-upload.js';

const env = process.env;
const COUNT = Number(env.BENCH_EDITS_COUNT ?? (env.BENCH_QUICK === '1' ? 100_000 : 1_000_000));
const EDITS = Number(env.BENCH_EDITS_K ?? 50);
const RATE = Number(env.BENCH_EDITS_RATE ?? 20);
const PARTS = new Set((env.BENCH_EDITS_PARTS ?? 'visibility,refresh').split(',').map((s) => s.trim()));
const READS: ReadOptions = {
  zooms: (env.BENCH_EDITS_ZOOMS ?? '6,10,14').split(',').map(Number),
  count: Number(env.BENCH_EDITS_QUERIES ?? 600),
  warmup: Number(env.BENCH_VECTOR_WARMUP ?? 10),
  seed: Number(env.BENCH_VECTOR_SEED ?? 2056),
};
const VISIBLE_P95_TARGET_MS = 1000;
const BUSY_RATIO_TARGET = 1.2;
/** A read that has not shown an edit after this long counts as never (and misses the target). */
const GIVE_UP_MS = 10_000;
const TILE_ZOOM = 14;
/** From this zoom on a layer's tiles draw every feature (below it, small ones are thinned). */
const FULL_ZOOM = DEFAULT_THINNING.maxZoom;
/** How far an edit moves a feature: 0.003° of longitude, about 230 m, more than the largest footprint. */
const MOVE = 0.003;

type Polygon = { type: 'Polygon'; coordinates: number[][][] };
type Feature = { id: number; geometry: Polygon; properties: Record<string, unknown> };

const moved = (geometry: Polygon, dLon: number): Polygon => ({
  type: 'Polygon',
  coordinates: geometry.coordinates.map((ring) => ring.map(([lon, lat]) => [lon! + dLon, lat!])),
});
/** The mean of a polygon's outer ring's corners (the closing position left out). */
function centreOf(geometry: Polygon): [number, number] {
  const ring = geometry.coordinates[0]!.slice(0, -1);
  return [ring.reduce((s, p) => s + p[0]!, 0) / ring.length, ring.reduce((s, p) => s + p[1]!, 0) / ring.length];
}
function tileOf(lon: number, lat: number, z: number): [number, number, number] {
  const rad = (lat * Math.PI) / 180;
  const x = Math.floor(((lon + 180) / 360) * 2 ** z);
  const y = Math.floor(((1 - Math.log(Math.tan(rad) + 1 / Math.cos(rad)) / Math.PI) / 2) * 2 ** z);
  return [z, x, y];
}

const itemUrl = (server: Server, layerId: string, id: number) =>
  `${server.url}/api/rooms/${ROOM_ID}/ogc/collections/${layerId}/items/${id}`;

async function readFeature(server: Server, token: string, layerId: string, id: number): Promise<Feature> {
  return api<Feature>(server.url, 'GET', `/api/rooms/${ROOM_ID}/ogc/collections/${layerId}/items/${id}`, { token });
}

/** What an edit set: the feature, its new geometry's centre and its new height; the zoom whose tiles draw it. */
interface Edit {
  id: number;
  zoom: number;
  centre: [number, number];
  height: number;
}

/** The features of tile z/x/y (none for a 204), decoded. */
async function tileFeatures(server: Server, token: string, layerId: string, [z, x, y]: [number, number, number]) {
  const { status, body } = await timedGet(`${server.url}/api/layers/${layerId}/tiles/${z}/${x}/${y}.mvt`, token);
  if (status === 204) return [];
  if (status !== 200) throw new Error(`tile ${z}/${x}/${y}: ${status} ${body.toString('utf8').slice(0, 300)}`);
  const layer = new VectorTile(new PbfReader(new Uint8Array(body))).layers.features;
  return Array.from({ length: layer?.length ?? 0 }, (_, i) => layer!.feature(i));
}

/**
 * The zoom whose tiles draw the feature: TILE_ZOOM, unless the layer's thinning leaves it out
 * there (a denser neighbour stands for it), then FULL_ZOOM, from which every feature is drawn.
 */
async function zoomShowing(server: Server, token: string, layerId: string, feature: Feature): Promise<number> {
  const tile = tileOf(...centreOf(feature.geometry), TILE_ZOOM);
  const drawn = await tileFeatures(server, token, layerId, tile);
  return drawn.some((f) => f.id === feature.id) ? TILE_ZOOM : FULL_ZOOM;
}

/** Whether the tile at the edit's new place holds the feature with its new height, drawn around that place. */
async function tileShows(server: Server, token: string, layerId: string, edit: Edit): Promise<boolean> {
  const [z, x, y] = tileOf(...edit.centre, edit.zoom);
  for (const feature of await tileFeatures(server, token, layerId, [z, x, y])) {
    if (feature.id !== edit.id || feature.properties.height !== edit.height) continue;
    const ring = (feature.toGeoJSON(x, y, z).geometry as Polygon).coordinates.flat();
    const within = (v: number, values: number[]) => v >= Math.min(...values) - 1e-6 && v <= Math.max(...values) + 1e-6;
    const [lon, lat] = edit.centre;
    return (
      within(
        lon,
        ring.map((p) => p[0]!),
      ) &&
      within(
        lat,
        ring.map((p) => p[1]!),
      )
    );
  }
  return false;
}

async function bboxShows(server: Server, token: string, layerId: string, edit: Edit): Promise<boolean> {
  const [lon, lat] = edit.centre;
  const d = 0.0005;
  const url = `${server.url}/api/layers/${layerId}/features?minLon=${lon - d}&minLat=${lat - d}&maxLon=${lon + d}&maxLat=${lat + d}`;
  const { status, body } = await timedGet(url, token);
  if (status !== 200) throw new Error(`GET ${url}: ${status} ${body.toString('utf8').slice(0, 300)}`);
  const answer = JSON.parse(body.toString('utf8')) as { features?: Feature[] };
  return (answer.features ?? []).some((f) => f.id === edit.id && f.properties.height === edit.height);
}

async function itemShows(server: Server, token: string, layerId: string, edit: Edit): Promise<boolean> {
  const { status, body } = await timedGet(itemUrl(server, layerId, edit.id), token);
  if (status !== 200) throw new Error(`OGC item ${edit.id}: ${status} ${body.toString('utf8').slice(0, 300)}`);
  return (JSON.parse(body.toString('utf8')) as Feature).properties.height === edit.height;
}

/** Reads until `shows` holds; the time since `t0` in ms, or Infinity after GIVE_UP_MS. */
async function until(t0: number, shows: () => Promise<boolean>): Promise<number> {
  while (performance.now() - t0 < GIVE_UP_MS) {
    if (await shows()) return performance.now() - t0;
    await sleep(5);
  }
  return Number.POSITIVE_INFINITY;
}

/** A second client on the room's live channel: when each `feature.updated` arrived, by the height it set. */
async function liveListener(server: Server, token: string) {
  const ws = new WebSocket(
    `${server.url.replace(/^http/, 'ws')}/api/rooms/${ROOM_ID}/live?access_token=${encodeURIComponent(token)}`,
  );
  const arrivals = new Map<number, number>();
  const waiting = new Map<number, (at: number) => void>();
  let hello!: () => void;
  const ready = new Promise<void>((resolve) => (hello = resolve));
  ws.on('error', () => undefined);
  ws.on('message', (raw) => {
    const at = performance.now();
    const message = JSON.parse(String(raw)) as { type: string; data?: { feature?: Feature } };
    if (message.type === 'hello') hello();
    if (message.type !== 'feature.updated') return;
    const height = Number(message.data?.feature?.properties.height);
    arrivals.set(height, at);
    waiting.get(height)?.(at);
  });
  await Promise.race([ready, sleep(10_000).then(() => Promise.reject(new Error('no hello on the live channel')))]);
  return {
    /** When the change that set `height` arrived (it may have come before the PATCH's answer), or never. */
    arrival(height: number): Promise<number> {
      const seen = arrivals.get(height);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(Number.POSITIVE_INFINITY), GIVE_UP_MS);
        waiting.set(height, (at) => {
          clearTimeout(timer);
          resolve(at);
        });
      });
    },
    close: () => ws.terminate(),
  };
}

const stats = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    max: sorted.at(-1)!,
    never: sorted.filter((v) => v === Infinity).length,
  };
};
const ms = (v: number) => (Number.isFinite(v) ? `${v.toFixed(0)} ms` : 'never');

/** K edits one at a time, each followed by the reads and the live channel until they show it. */
async function measureVisibility(server: Server, token: string, layerId: string): Promise<Row[]> {
  const live = await liveListener(server, token);
  const random = seededRandom(4242);
  const zooms: number[] = [];
  const times = {
    tile: [] as number[],
    bbox: [] as number[],
    item: [] as number[],
    live: [] as number[],
    patch: [] as number[],
  };
  try {
    for (let i = 0; i < EDITS; i++) {
      const id = 1 + Math.floor(random() * COUNT);
      const before = await readFeature(server, token, layerId, id);
      const geometry = moved(before.geometry, MOVE);
      const zoom = await zoomShowing(server, token, layerId, before);
      const edit: Edit = { id, zoom, centre: centreOf(geometry), height: 10_000 + i + 0.25 };
      zooms.push(zoom);
      const arrival = live.arrival(edit.height);
      const t0 = performance.now();
      await api(server.url, 'PATCH', `/api/layers/${layerId}/features/${id}`, {
        token,
        body: { geometry, properties: { height: edit.height } },
      });
      times.patch.push(performance.now() - t0);
      const [tile, bbox, item, arrived] = await Promise.all([
        until(t0, () => tileShows(server, token, layerId, edit)),
        until(t0, () => bboxShows(server, token, layerId, edit)),
        until(t0, () => itemShows(server, token, layerId, edit)),
        arrival,
      ]);
      times.tile.push(tile);
      times.bbox.push(bbox);
      times.item.push(item);
      times.live.push(Math.max(0, arrived - t0));
    }
  } finally {
    live.close();
  }
  const thinned = zooms.filter((z) => z !== TILE_ZOOM).length;
  const what = {
    tile: `z${TILE_ZOOM} vector tile at its new place${thinned ? ` (z${FULL_ZOOM} for the ${thinned} thinned out at z${TILE_ZOOM})` : ''}`,
    bbox: 'bbox features read around it',
    item: 'OGC item',
    live: "second client's live channel (feature.updated)",
  } as const;
  const patch = stats(times.patch);
  console.log(`   ${EDITS} edits: PATCH answered in p50 ${ms(patch.p50)}, p95 ${ms(patch.p95)}, max ${ms(patch.max)}`);
  return (Object.keys(what) as (keyof typeof what)[]).map((key) => {
    const s = stats(times[key]);
    console.log(`   ${what[key]}: p50 ${ms(s.p50)}, p95 ${ms(s.p95)}, max ${ms(s.max)}, never shown ${s.never}`);
    return [
      `edit of one feature in ${label(COUNT)} polygons, until the ${what[key]} shows it (ms, p50 / p95 of ${EDITS})`,
      `${ms(s.p50)} / ${ms(s.p95)}${s.never ? ` (${s.never} never within ${GIVE_UP_MS / 1000} s)` : ''}`,
      'n/a',
      'n/a',
      `p95 <= ${VISIBLE_P95_TARGET_MS} ms`,
      s.p95 <= VISIBLE_P95_TARGET_MS ? 'yes' : 'NO',
    ] satisfies Row;
  });
}

/** PATCHes RATE features a second (in turn from a pool, each moved back and forth) until stopped. */
function editLoop(server: Server, token: string, layerId: string, pool: Feature[]) {
  let running = true;
  let sent = 0;
  let failed = 0;
  let skipped = 0;
  let inFlight = 0;
  const latencies: number[] = [];
  const started = performance.now();
  const done = (async () => {
    for (let n = 0; running; n++) {
      const due = started + (n * 1000) / RATE;
      if (due > performance.now()) await sleep(due - performance.now());
      if (!running) break;
      // An answer slower than a second leaves its slot unused rather than piling requests up.
      if (inFlight >= RATE) {
        skipped++;
        continue;
      }
      const feature = pool[n % pool.length]!;
      const round = Math.floor(n / pool.length);
      const body = {
        geometry: moved(feature.geometry, round % 2 === 0 ? 0.0001 : 0),
        properties: { height: 20_000 + n },
      };
      inFlight++;
      sent++;
      const t0 = performance.now();
      api(server.url, 'PATCH', `/api/layers/${layerId}/features/${feature.id}`, { token, body })
        .then(() => latencies.push(performance.now() - t0))
        .catch(() => failed++)
        .finally(() => inFlight--);
    }
    while (inFlight > 0) await sleep(10);
  })();
  return async () => {
    running = false;
    await done;
    const seconds = (performance.now() - started) / 1000;
    return { sent, failed, skipped, rate: (sent - failed) / seconds, patch: stats(latencies) };
  };
}

/** Random tiles on the quiet layer, then the same tiles while the edit loop runs. */
async function measureBusyTiles(
  server: Server,
  token: string,
  layerId: string,
  bbox: [number, number, number, number],
): Promise<Row[]> {
  const random = seededRandom(99);
  const pool: Feature[] = [];
  for (let i = 0; i < 100; i++) pool.push(await readFeature(server, token, layerId, 1 + Math.floor(random() * COUNT)));
  // The same tiles are read once before, not counted, so that both measured passes find the
  // database's pages in memory alike (the first pass would otherwise pay for the disk).
  await measureTiles(server, token, layerId, bbox, READS);
  const quiet = await measureTiles(server, token, layerId, bbox, READS);
  const stop = editLoop(server, token, layerId, pool);
  await sleep(1000);
  const busy = await measureTiles(server, token, layerId, bbox, READS);
  const loop = await stop();
  const edits = `${loop.rate.toFixed(1)} edits/s (PATCH p95 ${ms(loop.patch.p95)}${loop.failed ? `, ${loop.failed} failed` : ''}${loop.skipped ? `, ${loop.skipped} slots skipped` : ''})`;
  console.log(`   beside the tile reads: ${loop.sent} PATCHes, ${edits}`);
  return quiet.map((q, i) => {
    const b = busy[i]!;
    const ratio = b.p95 / q.p95;
    console.log(
      `   tiles z${q.zoom}: quiet p50 ${q.p50.toFixed(1)} / p95 ${q.p95.toFixed(1)} ms; during edits p50 ${b.p50.toFixed(1)} / p95 ${b.p95.toFixed(1)} ms; ${q.detail}`,
    );
    const met = ratio <= BUSY_RATIO_TARGET && loop.failed === 0 && loop.rate >= RATE * 0.9;
    return [
      `vector tile z${q.zoom} p95 during ${RATE} edits/s, ${label(COUNT)} polygons (ms)`,
      `${b.p95.toFixed(1)} ms at ${edits}`,
      `${q.p95.toFixed(1)} ms (the quiet layer)`,
      `${ratio.toFixed(2)}x`,
      `<= ${BUSY_RATIO_TARGET}x quiet`,
      met ? 'yes' : 'NO',
    ] satisfies Row;
  });
}

/** Runs the edits benchmark; returns its table rows and the names of the rows that missed their target. */
export async function runEditsBench(): Promise<{ rows: Row[]; missed: string[] }> {
  const rows: Row[] = [];
  if (PARTS.has('visibility')) {
    console.log(`## Layer edits (${COUNT.toLocaleString('en-US')} polygons)`);
    const data = await vectorData(COUNT);
    const server = await startMaproom('maproom (edits)');
    try {
      const token = await setUp(server.url, ['read', 'write', 'upload']);
      const layer = await ingestByChunks(server, token, data.gpkg, COUNT);
      console.log(`   layer of ${layer.featureCount} polygons ingested in ${layer.seconds.toFixed(1)} s`);
      rows.push(...(await measureVisibility(server, token, layer.layerId)));
      rows.push(...(await measureBusyTiles(server, token, layer.layerId, layer.bbox)));
    } finally {
      await stopServer(server);
    }
    console.log();
  }
  if (PARTS.has('refresh')) rows.push(...(await runRefreshBench()));
  return { rows, missed: rows.filter((row) => row[5] === 'NO').map((row) => row[0]) };
}
