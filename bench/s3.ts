/**
 * Files on S3 (`BENCH_ONLY=s3 npm run bench`; see bench/README.md, "Files on S3").
 *
 * A real S3 server on loopback (OpenStack Swift with s3api, scripts/swift-s3.py) and two
 * Maprooms side by side: one with its files on S3 (S3_BUCKET), one on local disk, as
 * deployed. The raster benchmark's Float32 GeoTIFF (~1 GB, written by GDAL) goes through
 * chunked upload to each, the service's peak RSS watched; then the same random tiles from
 * both, cold (first request) and warm (the same tiles again), with the rendered-tile cache
 * off on both so that a warm tile is drawn again from blocks in the block cache.
 *
 * Environment:
 *   BENCH_S3_TILES=300                tiles (random zoom 8..16 within the raster's bbox)
 *   BENCH_S3_BLOCK_CACHE_MB=512       RASTER_BLOCK_CACHE_BYTES of both servers: the warm pass's blocks fit
 */
import { statSync } from 'node:fs';
import { type S3TestServer, s3TestServer } from '../test/support/swift.js';
import { api, mb, ROOM_ID, RSS_LIMIT_MB, type Row, type Server, setUp, startMaproom, stopServer } from './harness.js';
import { ourTiles, randomTiles, type RasterLayer, rasterData, type TileStats } from './raster.js';
import { phaseSummary, type ProcessedUpload, uploadAndProcess } from './vector-upload.js';

const env = process.env;
const TILES = Number(env.BENCH_S3_TILES ?? 300);
const BLOCK_CACHE_BYTES = Number(env.BENCH_S3_BLOCK_CACHE_MB ?? 512) * 1024 ** 2;
const WARM_RATIO_TARGET = 2;

interface Measured {
  upload: ProcessedUpload;
  cold: TileStats;
  warm: TileStats;
}

/** One Maproom (its files where `files` says): the file through chunked upload, then the tiles twice. */
async function measure(name: string, file: string, files: Record<string, string>): Promise<Measured> {
  let server: Server | undefined;
  try {
    server = await startMaproom(name, {
      ...files,
      RASTER_TILE_CACHE_BYTES: '0',
      RASTER_BLOCK_CACHE_BYTES: String(BLOCK_CACHE_BYTES),
    });
    const token = await setUp(server.url, ['read', 'upload']);
    const upload = await uploadAndProcess(server, token, file);
    const m = upload.memory;
    console.log(
      `   ${name}: ${upload.seconds.toFixed(1)} s until listed (${upload.chunks} chunks, upload ${upload.uploadSeconds.toFixed(1)} s); ` +
        `VmHWM ${mb(m.serviceHwm, false)} MB (reset: ${m.hwmReset}), with child processes ${mb(m.treePeak, false)} MB (sampled)\n` +
        `   phases: ${phaseSummary(upload.phases)}`,
    );
    const { rasterLayers } = await api<{ rasterLayers: RasterLayer[] }>(
      server.url,
      'GET',
      `/api/rooms/${ROOM_ID}/raster-layers`,
      { token },
    );
    const layer = rasterLayers.find((l) => l.id === upload.job.layerId);
    if (!layer) throw new Error(`the room does not list raster ${upload.job.layerId}`);
    const tiles = randomTiles(layer.bbox, TILES);
    const cold = await ourTiles(server, token, layer, tiles);
    const warm = await ourTiles(server, token, layer, tiles);
    console.log(`   ${name}: tiles cold ${ms(cold)}, warm ${ms(warm)} over ${tiles.length} (${cold.empty} empty)`);
    return { upload, cold, warm };
  } finally {
    if (server) await stopServer(server);
  }
}

const ms = (s: TileStats) => `${s.p50.toFixed(1)} / ${s.p95.toFixed(1)} ms`;

/** Runs the S3 benchmark; returns its table rows and the names of the rows that missed their target. */
export async function runS3Bench(): Promise<{ rows: Row[]; missed: string[] }> {
  console.log('## Files on S3 (OpenStack Swift on loopback) against local disk');
  const { terrain: file } = await rasterData();
  const label = `Float32 GeoTIFF ${(statSync(file).size / 2 ** 20).toFixed(0)} MB`;
  let swift: S3TestServer | undefined;
  try {
    swift = await s3TestServer();
    const bucket = await swift.newBucket();
    console.log(`   Swift at ${swift.endpoint}, bucket ${bucket}; ${label}`);
    const s3 = await measure('maproom (S3)', file, {
      S3_BUCKET: bucket,
      S3_ENDPOINT: swift.endpoint,
      S3_FORCE_PATH_STYLE: 'true',
      AWS_ACCESS_KEY_ID: env.AWS_ACCESS_KEY_ID!,
      AWS_SECRET_ACCESS_KEY: env.AWS_SECRET_ACCESS_KEY!,
    });
    const disk = await measure('maproom (disk)', file, {});
    const ratio = s3.warm.p95 / disk.warm.p95;
    const hwm = s3.upload.memory.serviceHwm;
    return summary(label, s3, disk, ratio, hwm);
  } finally {
    await swift?.stop();
  }
}

function summary(label: string, s3: Measured, disk: Measured, ratio: number, hwm: number) {
  const rows: Row[] = [
    [
      `raster tile warm from S3, ${label} (p50 / p95)`,
      ms(s3.warm),
      `${ms(disk.warm)} (local disk)`,
      `${ratio.toFixed(2)}x`,
      `p95 <= ${WARM_RATIO_TARGET}x disk`,
      ratio <= WARM_RATIO_TARGET ? 'yes' : 'NO',
    ],
    [
      `raster tile cold from S3, ${label} (p50 / p95)`,
      ms(s3.cold),
      `${ms(disk.cold)} (local disk)`,
      'n/a',
      'none',
      'n/a',
    ],
    [
      `chunked upload to S3 and ingest, ${label}: peak RSS of the service (MB)`,
      `${mb(hwm, false)} MB VmHWM; with its child processes (GDAL) ${mb(s3.upload.memory.treePeak, false)} MB (sampled)`,
      `${mb(disk.upload.memory.serviceHwm, false)} MB (local disk)`,
      'n/a',
      `< ${RSS_LIMIT_MB} MB`,
      hwm < RSS_LIMIT_MB ? 'yes' : 'NO',
    ],
    [
      `chunked upload to S3 and ingest, ${label} (s)`,
      `${s3.upload.seconds.toFixed(1)} s (upload ${s3.upload.uploadSeconds.toFixed(1)} s)`,
      `${disk.upload.seconds.toFixed(1)} s (local disk)`,
      `${(s3.upload.seconds / disk.upload.seconds).toFixed(2)}x`,
      'none',
      'n/a',
    ],
  ];
  console.log();
  return { rows, missed: rows.filter((row) => row[5] === 'NO').map((row) => row[0]) };
}
