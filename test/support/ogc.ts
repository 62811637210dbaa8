import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { assertOk, call } from '../helpers.js';
import { completedJob, type Layer, uploadFile } from './layers.js';

const SCRIPT = fileURLToPath(new URL('../fixtures/make_ogc_fixture.py', import.meta.url));
const run = promisify(execFile);

/** `parcels.gpkg` of `count` tilted quadrilaterals with fields of every type (fixtures/make_ogc_fixture.py), in a temporary folder. */
export function makeParcels(count: number): { file: string; remove(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'maproom-ogc-'));
  const made = spawnSync('/usr/bin/python3', [SCRIPT, dir, String(count)], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`make_ogc_fixture.py failed: ${made.stderr}`);
  return { file: path.join(dir, 'parcels.gpkg'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Uploads a file that becomes one layer, waiting for its job when the upload answers one. */
export async function uploadOneLayer(app: FastifyInstance, roomId: string, file: string, auth: string): Promise<Layer> {
  const body = assertOk(await uploadFile(app, roomId, file, auth, { layerName: 'Parcels' }));
  if (body.layer) return body.layer as Layer;
  await completedJob(app, body.jobId, auth);
  const { layers } = assertOk(await call(app, 'GET', `/api/layers/${roomId}`, { auth }));
  return layers.find((layer: Layer) => layer.name === 'Parcels');
}

/** GDAL's options that send a bearer credential, or none. */
export const bearer = (token?: string) =>
  token ? ['--config', 'GDAL_HTTP_HEADERS', `Authorization: Bearer ${token}`] : [];

/** Runs ogrinfo or ogr2ogr; answers stdout (stderr too when it fails). */
export async function gdal(tool: 'ogrinfo' | 'ogr2ogr', args: string[]): Promise<{ ok: boolean; out: string }> {
  try {
    const { stdout } = await run(tool, args, { maxBuffer: 256 * 1024 * 1024 });
    return { ok: true, out: stdout };
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string };
    return { ok: false, out: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

export type GeoJsonFeature = { id?: unknown; geometry: { coordinates: unknown }; properties: Record<string, unknown> };

/** A vector source (a file, or `OAPIF:url` with its options) as GeoJSON features, read by ogr2ogr. */
export async function readFeatures(source: string, options: string[] = []): Promise<GeoJsonFeature[]> {
  const { ok, out } = await gdal('ogr2ogr', ['-f', 'GeoJSON', '/vsistdout/', source, ...options]);
  assert.ok(ok, `ogr2ogr read ${source}: ${out.slice(0, 500)}`);
  return (JSON.parse(out) as { features: GeoJsonFeature[] }).features;
}
