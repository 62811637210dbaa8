/**
 * The read half of the vector benchmark: bbox feature queries over random map viewports, and
 * random vector tiles, at given zooms over a layer's extent, timed one request at a time from
 * the request until the last byte of the answer (see bench/README.md, "Vector layers").
 */
import type { Server } from './harness.js';

type Bbox = [number, number, number, number];

/** Web Mercator at zoom z in pixels of 256-pixel tiles: the world is 256 * 2^z pixels wide. */
const worldPixels = (z: number) => 256 * 2 ** z;
const MAX_LAT = 85.0511287798066;
const lonToX = (lon: number, z: number) => ((lon + 180) / 360) * worldPixels(z);
const latToY = (lat: number, z: number) => {
  const phi = (Math.max(-MAX_LAT, Math.min(MAX_LAT, lat)) * Math.PI) / 180;
  return ((1 - Math.log(Math.tan(phi) + 1 / Math.cos(phi)) / Math.PI) / 2) * worldPixels(z);
};
const xToLon = (x: number, z: number) => (x / worldPixels(z)) * 360 - 180;
const yToLat = (y: number, z: number) =>
  (Math.atan(Math.sinh(Math.PI * (1 - (2 * y) / worldPixels(z)))) * 180) / Math.PI;
const clamp = (v: number, lo: number, hi: number) => Math.max(lo, Math.min(hi, v));

/** A deterministic random source (so that two runs ask for the same viewports and tiles). */
export function seededRandom(seed: number) {
  let state = seed >>> 0 || 1;
  return () => {
    // xorshift32
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state / 2 ** 32;
  };
}

/**
 * The lon/lat bounds of a `width` x `height` pixel map at zoom z whose centre is uniformly
 * random (in Web Mercator) within `extent`, as a map client would ask for them.
 */
export function randomViewport(extent: Bbox, z: number, random: () => number, width = 1024, height = 768): Bbox {
  const [minLon, minLat, maxLon, maxLat] = extent;
  const cx = lonToX(minLon, z) + random() * (lonToX(maxLon, z) - lonToX(minLon, z));
  const cy = latToY(maxLat, z) + random() * (latToY(minLat, z) - latToY(maxLat, z));
  const world = worldPixels(z);
  const x0 = clamp(cx - width / 2, 0, world);
  const x1 = clamp(cx + width / 2, 0, world);
  const y0 = clamp(cy - height / 2, 0, world);
  const y1 = clamp(cy + height / 2, 0, world);
  return [xToLon(x0, z), yToLat(y1, z), xToLon(x1, z), yToLat(y0, z)];
}

/** A uniformly random tile z/x/y among the tiles that intersect `extent`. */
export function randomTile(extent: Bbox, z: number, random: () => number): [number, number, number] {
  const [minLon, minLat, maxLon, maxLat] = extent;
  const last = 2 ** z - 1;
  const tile = (pixels: number) => clamp(Math.floor(pixels / 256), 0, last);
  const [x0, x1] = [tile(lonToX(minLon, z)), tile(lonToX(maxLon, z))];
  const [y0, y1] = [tile(latToY(maxLat, z)), tile(latToY(minLat, z))];
  return [z, x0 + Math.floor(random() * (x1 - x0 + 1)), y0 + Math.floor(random() * (y1 - y0 + 1))];
}

export interface ReadStats {
  what: 'features' | 'tiles';
  zoom: number;
  count: number;
  p50: number;
  p95: number;
  max: number;
  /** What the answers held, e.g. "mean 812 features, 31 chunk manifests, mean 240 KB". */
  detail: string;
}

/** Nearest-rank percentile of sorted values. */
export const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;

/** GETs a URL and reads the whole answer; the time is from the request to the last byte, in ms. */
export async function timedGet(
  url: string,
  token: string,
): Promise<{ ms: number; status: number; headers: Headers; body: Buffer }> {
  const t0 = performance.now();
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const body = Buffer.from(await res.arrayBuffer());
  return { ms: performance.now() - t0, status: res.status, headers: res.headers, body };
}

interface Sample {
  ms: number;
  /** Features in the answer (features route) or bytes (tiles). */
  features: number;
  manifest: boolean;
  empty: boolean;
  bytes: number;
}

function statsOf(what: ReadStats['what'], zoom: number, samples: Sample[]): ReadStats {
  const sorted = samples.map((s) => s.ms).sort((a, b) => a - b);
  const mean = (pick: (s: Sample) => number) => samples.reduce((n, s) => n + pick(s), 0) / Math.max(1, samples.length);
  const kb = `mean ${(mean((s) => s.bytes) / 1024).toFixed(0)} KB, largest ${(Math.max(...samples.map((s) => s.bytes)) / 1024).toFixed(0)} KB`;
  const detail =
    what === 'features'
      ? `mean ${mean((s) => s.features).toFixed(0)} features, ${samples.filter((s) => s.manifest).length} of ${samples.length} answered by the chunk manifest, ` +
        `${samples.filter((s) => s.empty).length} empty, ${kb}`
      : `${samples.filter((s) => s.empty).length} of ${samples.length} empty (204), ${kb}`;
  return {
    what,
    zoom,
    count: samples.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    max: sorted.at(-1)!,
    detail,
  };
}

export interface ReadOptions {
  zooms: number[];
  /** Measured requests per zoom. */
  count: number;
  /** Requests per zoom before the measured ones (not counted): first calls, caches. */
  warmup: number;
  seed: number;
}

/**
 * `GET /api/layers/:layerId/features` with the bbox of random 1024x768 viewports at each zoom
 * (`zoom` given, so geometries are simplified as a map client would get them).
 */
export async function measureFeatureQueries(
  server: Server,
  token: string,
  layerId: string,
  extent: Bbox,
  options: ReadOptions,
): Promise<ReadStats[]> {
  const out: ReadStats[] = [];
  for (const zoom of options.zooms) {
    const random = seededRandom(options.seed + zoom);
    const samples: Sample[] = [];
    for (let i = 0; i < options.warmup + options.count; i++) {
      const [minLon, minLat, maxLon, maxLat] = randomViewport(extent, zoom, random).map((v) => v.toFixed(6));
      const url = `${server.url}/api/layers/${layerId}/features?minLon=${minLon}&minLat=${minLat}&maxLon=${maxLon}&maxLat=${maxLat}&zoom=${zoom}`;
      const { ms, status, body } = await timedGet(url, token);
      if (status !== 200) throw new Error(`GET ${url}: ${status} ${body.toString('utf8').slice(0, 300)}`);
      if (i < options.warmup) continue;
      const answer = JSON.parse(body.toString('utf8')) as {
        features?: unknown[];
        _metadata?: { complete?: boolean; directChunks?: unknown[] };
      };
      const manifest = answer._metadata?.complete === false;
      const features = answer.features?.length ?? 0;
      samples.push({ ms, features, manifest, empty: !manifest && features === 0, bytes: body.length });
    }
    out.push(statsOf('features', zoom, samples));
  }
  return out;
}

/** `GET /api/layers/:layerId/tiles/:z/:x/:y.mvt` for random tiles that intersect the layer's extent. */
export async function measureTiles(
  server: Server,
  token: string,
  layerId: string,
  extent: Bbox,
  options: ReadOptions,
): Promise<ReadStats[]> {
  const out: ReadStats[] = [];
  for (const zoom of options.zooms) {
    const random = seededRandom(options.seed * 7 + zoom);
    const samples: Sample[] = [];
    for (let i = 0; i < options.warmup + options.count; i++) {
      const [z, x, y] = randomTile(extent, zoom, random);
      const url = `${server.url}/api/layers/${layerId}/tiles/${z}/${x}/${y}.mvt`;
      const { ms, status, body } = await timedGet(url, token);
      if (status !== 200 && status !== 204)
        throw new Error(`GET ${url}: ${status} ${body.toString('utf8').slice(0, 300)}`);
      if (i < options.warmup) continue;
      samples.push({ ms, features: 0, manifest: false, empty: status === 204, bytes: body.length });
    }
    out.push(statsOf('tiles', zoom, samples));
  }
  return out;
}
