/**
 * The raster layers benchmark (`BENCH_ONLY=raster npm run bench`; see bench/README.md).
 *
 * For a single-band Float32 GeoTIFF (~1 GB) and a 3-band 8-bit RGB one (~790 MB), both in
 * EPSG:2056 and written by GDAL (bench/data/make_raster_data.py): `gdalwarp -t_srs EPSG:3857
 * -of COG` of the file (the peer), then the same file uploaded to a fresh Maproom through
 * chunked upload until the raster layer is listed, with the service's peak RSS. Then random
 * tiles at zooms 8 to 16, cold (first request) and warm (the same tiles again), against
 * `gdal_translate` cutting and colouring the same windows to PNG from the peer's COG.
 *
 * Environment:
 *   BENCH_RASTER_SCALE=1        side length factor of the generated rasters (BENCH_QUICK=1: 0.25)
 *   BENCH_RASTER_FILES=terrain,rgb   which files
 *   BENCH_RASTER_TILES=500      tiles per file (random zoom 8..16 within the raster's bbox)
 *   BENCH_RASTER_PEER_TILES=100 of those, how many the peer cuts (each is a process start)
 *   BENCH_RASTER_SEED=3857      seed of the random tiles
 */
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  api,
  mb,
  ROOM_ID,
  ROOT,
  RSS_LIMIT_MB,
  setUp,
  startMaproom,
  stopServer,
  TMP,
  TRACE,
  type Row,
  type Server,
} from './harness.js';
import { MERCATOR_HALF } from '../src/geo/raster/tile-window.js';
import { DATA_CACHE, run, timedTool } from './vector-data.js';
import { percentile, randomTile, seededRandom, timedGet } from './vector-reads.js';
import { phaseSummary, uploadAndProcess, type ProcessedUpload } from './vector-upload.js';

const env = process.env;
const SCALE = Number(env.BENCH_RASTER_SCALE ?? (env.BENCH_QUICK === '1' ? 0.25 : 1));
const FILES = (env.BENCH_RASTER_FILES ?? 'terrain,rgb').split(',').map((s) => s.trim()) as RasterKind[];
const TILE_COUNT = Number(env.BENCH_RASTER_TILES ?? 500);
const PEER_TILES = Number(env.BENCH_RASTER_PEER_TILES ?? 100);
const SEED = Number(env.BENCH_RASTER_SEED ?? 3857);
const ZOOMS = [8, 16] as const;
const TIME_RATIO_TARGET = 1.5;
const WARM_P95_TARGET_MS = 30;

type RasterKind = 'terrain' | 'rgb';
const FILE_NAME: Record<RasterKind, string> = { terrain: 'terrain-f32.tif', rgb: 'rgb-u8.tif' };
const DESCRIPTION: Record<RasterKind, string> = { terrain: 'Float32, 1 band', rgb: 'RGB, 3 x 8-bit' };
export type Bbox = [number, number, number, number];

/** The generated inputs, written once per scale and reused while `complete.json` matches them. */
export async function rasterData(): Promise<Record<RasterKind, string>> {
  const dir = path.join(DATA_CACHE, `rasters-${SCALE}`);
  const files = { terrain: path.join(dir, FILE_NAME.terrain), rgb: path.join(dir, FILE_NAME.rgb) };
  const marker = path.join(dir, 'complete.json');
  const sizes = () => ({ terrain: statSync(files.terrain).size, rgb: statSync(files.rgb).size });
  if (existsSync(marker) && existsSync(files.terrain) && existsSync(files.rgb)) {
    if (JSON.stringify(JSON.parse(readFileSync(marker, 'utf8'))) === JSON.stringify(sizes())) return files;
  }
  mkdirSync(dir, { recursive: true });
  console.log(`   writing the rasters (scale ${SCALE}) into ${dir} ...`);
  const made = await run('/usr/bin/python3', [
    path.join(ROOT, 'bench', 'data', 'make_raster_data.py'),
    dir,
    '--scale',
    String(SCALE),
  ]);
  if (made.code !== 0) throw new Error(`make_raster_data.py failed (${made.code}):\n${made.stderr}`);
  writeFileSync(marker, `${JSON.stringify(sizes())}\n`);
  return files;
}

interface PeerIngest {
  seconds: number;
  maxRssMb: number | null;
  cog: string;
}

/** The peer: `gdalwarp -t_srs EPSG:3857 -of COG <input> out.tif`, timed from start to exit; the COG is kept for the peer's tiles. */
async function gdalwarpPeer(input: string): Promise<PeerIngest> {
  const cog = path.join(TMP, `peer-${path.basename(input)}`);
  rmSync(cog, { force: true });
  const args = ['-q', '-t_srs', 'EPSG:3857', '-of', 'COG', input, cog];
  const { seconds, maxRssMb } = await timedTool('gdalwarp', args);
  return { seconds, maxRssMb, cog };
}

export interface RasterLayer {
  id: string;
  bbox: Bbox;
  display: Record<string, unknown>;
  stats: { min: number; max: number }[];
  tileUrl: string;
}

export interface TileStats {
  p50: number;
  p95: number;
  empty: number;
  meanBytes: number;
}

function statsOf(times: number[], empty: number, bytes: number): TileStats {
  const sorted = [...times].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p95: percentile(sorted, 95), empty, meanBytes: bytes / times.length };
}

/** Maproom's tiles, one request at a time, timed to the last byte. */
export async function ourTiles(
  server: Server,
  token: string,
  layer: RasterLayer,
  tiles: [number, number, number][],
): Promise<TileStats> {
  const times: number[] = [];
  let empty = 0;
  let bytes = 0;
  for (const [z, x, y] of tiles) {
    const url =
      server.url + layer.tileUrl.replace('{z}', String(z)).replace('{x}', String(x)).replace('{y}', String(y));
    const res = await timedGet(url, token);
    times.push(res.ms);
    if (res.status !== 200 || res.headers.get('content-type') !== 'image/png')
      throw new Error(`tile ${z}/${x}/${y}: ${res.status} ${res.body.toString().slice(0, 200)}`);
    if (res.headers.get('x-tile-empty') === '1') empty++;
    bytes += res.body.length;
  }
  return statsOf(times, empty, bytes);
}

/**
 * The peer's tiles: `gdal_translate -of PNG -projwin <tile in EPSG:3857> -outsize 256 256` from
 * the peer's COG, stretched to bytes (`-scale vmin vmax 0 255 -ot Byte`) for the single band
 * (GDAL has no colormap in gdal_translate; the stretch is the part of the colouring it can do).
 */
async function peerTiles(
  cog: string,
  kind: RasterKind,
  layer: RasterLayer,
  tiles: [number, number, number][],
): Promise<TileStats> {
  const times: number[] = [];
  let bytes = 0;
  const out = path.join(TMP, 'peer-tile.png');
  const display = layer.display as { vmin?: number; vmax?: number };
  const stretch =
    kind === 'terrain'
      ? [
          '-scale',
          String(display.vmin ?? layer.stats[0]!.min),
          String(display.vmax ?? layer.stats[0]!.max),
          '0',
          '255',
          '-ot',
          'Byte',
        ]
      : ['-b', '1', '-b', '2', '-b', '3'];
  for (const [z, x, y] of tiles) {
    const size = (2 * MERCATOR_HALF) / 2 ** z;
    const ulx = -MERCATOR_HALF + x * size;
    const uly = MERCATOR_HALF - y * size;
    const args = [
      '-q',
      '-of',
      'PNG',
      '-projwin',
      String(ulx),
      String(uly),
      String(ulx + size),
      String(uly - size),
      '-outsize',
      '256',
      '256',
      ...stretch,
      cog,
      out,
    ];
    const started = performance.now();
    const result = await run('gdal_translate', args);
    times.push(performance.now() - started);
    // A window partly outside the raster is still cut (GDAL pads it); wholly outside is an error we count as empty.
    if (result.code === 0) bytes += statSync(out).size;
  }
  rmSync(out, { force: true });
  rmSync(`${out}.aux.xml`, { force: true });
  return statsOf(times, 0, bytes);
}

/** Random tiles: a uniformly random zoom from 8 to 16, then a random tile of it within the bbox. */
export function randomTiles(bbox: Bbox, count: number): [number, number, number][] {
  const random = seededRandom(SEED);
  return Array.from({ length: count }, () =>
    randomTile(bbox, ZOOMS[0] + Math.floor(random() * (ZOOMS[1] - ZOOMS[0] + 1)), random),
  );
}

function logIngest(kind: RasterKind, result: ProcessedUpload, peer: PeerIngest) {
  const m = result.memory;
  console.log(
    `   maproom: ${result.seconds.toFixed(1)} s until listed (${result.chunks} chunk(s), upload ${result.uploadSeconds.toFixed(1)} s); ` +
      `VmHWM ${mb(m.serviceHwm, false)} MB (reset: ${m.hwmReset}); child processes ${m.childNames || 'none seen'}, largest ${mb(m.largestChildHwm, false)} MB\n` +
      `   phases: ${phaseSummary(result.phases)}\n` +
      `   peer (${FILE_NAME[kind]}): gdalwarp -t_srs EPSG:3857 -of COG: ${peer.seconds.toFixed(1)} s` +
      (peer.maxRssMb === null ? '' : `, max RSS ${mb(peer.maxRssMb, false)} MB`),
  );
}

const ms = (s: TileStats) => `${s.p50.toFixed(1)} / ${s.p95.toFixed(1)} ms`;

async function benchFile(kind: RasterKind, file: string): Promise<Row[]> {
  const label = `${DESCRIPTION[kind]}, ${(statSync(file).size / 2 ** 20).toFixed(0)} MB`;
  console.log(`   ${FILE_NAME[kind]} (${label})`);
  let server: Server | undefined;
  try {
    server = await startMaproom(`maproom (raster ${kind})`);
    const token = await setUp(server.url, ['read', 'upload']);
    const peer = await gdalwarpPeer(file);
    const csv = TRACE && path.join(TRACE, `rss-raster-${kind}.csv`);
    const result = await uploadAndProcess(server, token, file, csv);
    logIngest(kind, result, peer);
    const { rasterLayers } = await api<{ rasterLayers: RasterLayer[] }>(
      server.url,
      'GET',
      `/api/rooms/${ROOM_ID}/raster-layers`,
      { token },
    );
    const layer = rasterLayers.find((l) => l.id === result.job.layerId);
    if (!layer) throw new Error(`the room does not list raster ${result.job.layerId}`);
    const tiles = randomTiles(layer.bbox, TILE_COUNT);
    const cold = await ourTiles(server, token, layer, tiles);
    const warm = await ourTiles(server, token, layer, tiles);
    const peerSample = tiles.slice(0, PEER_TILES);
    const peerCold = await peerTiles(peer.cog, kind, layer, peerSample);
    const peerWarm = await peerTiles(peer.cog, kind, layer, peerSample);
    rmSync(peer.cog, { force: true });
    console.log(
      `   tiles z${ZOOMS[0]}-${ZOOMS[1]}: cold ${ms(cold)}, warm ${ms(warm)} over ${tiles.length} (${cold.empty} empty, mean ${(cold.meanBytes / 1024).toFixed(1)} KB); ` +
        `peer cold ${ms(peerCold)}, warm ${ms(peerWarm)} over ${peerSample.length}`,
    );
    const ratio = result.seconds / peer.seconds;
    const hwm = result.memory.serviceHwm;
    return [
      [
        `raster ingest, ${label} (s)`,
        `${result.seconds.toFixed(1)} s`,
        `${peer.seconds.toFixed(1)} s (gdalwarp -of COG)`,
        `${ratio.toFixed(2)}x`,
        `<= ${TIME_RATIO_TARGET}x`,
        ratio <= TIME_RATIO_TARGET ? 'yes' : 'NO',
      ],
      [
        `raster ingest peak RSS, ${label} (MB)`,
        `${mb(hwm, false)} MB`,
        peer.maxRssMb === null ? 'n/a' : `${mb(peer.maxRssMb, false)} MB`,
        'n/a',
        `< ${RSS_LIMIT_MB} MB`,
        hwm < RSS_LIMIT_MB ? 'yes' : 'NO',
      ],
      [`raster tile cold, ${label} (p50 / p95)`, ms(cold), `${ms(peerCold)} (gdal_translate)`, 'n/a', 'none', 'n/a'],
      [
        `raster tile warm, ${label} (p50 / p95)`,
        ms(warm),
        `${ms(peerWarm)} (gdal_translate)`,
        'n/a',
        `p95 < ${WARM_P95_TARGET_MS} ms`,
        warm.p95 < WARM_P95_TARGET_MS ? 'yes' : 'NO',
      ],
    ];
  } finally {
    if (server) await stopServer(server);
  }
}

/** Runs the raster benchmark; returns its table rows and the names of the rows that missed their target. */
export async function runRasterBench(): Promise<{ rows: Row[]; missed: string[] }> {
  console.log(`## Raster layers (scale ${SCALE})`);
  const data = await rasterData();
  const rows: Row[] = [];
  for (const kind of FILES) rows.push(...(await benchFile(kind, data[kind])));
  console.log();
  return { rows, missed: rows.filter((row) => row[5] === 'NO').map((row) => row[0]) };
}
