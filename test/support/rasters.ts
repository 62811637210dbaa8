import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { assertOk, call, postMultipart, type Response, type TestApp } from '../helpers.js';
import { decodeTile, makeRasterFixtures, tileAt, where } from '../raster-fixtures.js';

/**
 * What the raster tests share: GeoTIFFs written by GDAL (test/fixtures/rasters.py and
 * raster_uploads.py) in one temporary folder, uploads through HTTP, tiles fetched and
 * decoded, and matplotlib's own colours as the expected ones.
 */

const SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'raster_uploads.py');
const PYTHON = '/usr/bin/python3';

/** Every raster fixture in one temporary folder; `remove()` deletes it. */
export function makeUploadFixtures() {
  const fixtures = makeRasterFixtures();
  execFileSync(PYTHON, [SCRIPT, 'make', fixtures.dir]);
  return fixtures;
}

/** Uploads a GeoTIFF (`file` is a fixture path) through POST /api/layers/upload. */
export function uploadRaster(
  app: FastifyInstance,
  roomId: string,
  auth: string | undefined,
  file: string,
  fields: { layerName?: string; display?: unknown; fileName?: string } = {},
) {
  const form: Record<string, string | { data: Buffer; filename: string }> = {
    roomName: roomId,
    file: { data: readFileSync(file), filename: fields.fileName ?? path.basename(file) },
  };
  if (fields.layerName) form.layerName = fields.layerName;
  if (fields.display !== undefined)
    form.display = typeof fields.display === 'string' ? fields.display : JSON.stringify(fields.display);
  return postMultipart(app, '/api/layers/upload', form, auth);
}

/** Uploads a small GeoTIFF that must become a raster layer; returns the layer. */
export async function newRaster(app: FastifyInstance, roomId: string, auth: string, file: string, display?: unknown) {
  const body = assertOk(await uploadRaster(app, roomId, auth, file, { display }));
  assert.equal(body.layer, null);
  return body.rasterLayer as RasterLayer;
}

export interface RasterLayer {
  id: string;
  name: string;
  display: Record<string, any>;
  bands: number;
  maxZoom: number;
  minZoom: number;
  bbox: number[];
  [key: string]: any;
}

export const tilePath = (roomId: string, layerId: string, z: number, x: number, y: number) =>
  `/api/rooms/${roomId}/raster-layers/${layerId}/tiles/${z}/${x}/${y}.png`;

/** GET of a tile that must be a PNG; returns the answer and its pixels. */
export async function fetchTile(
  app: FastifyInstance,
  roomId: string,
  layerId: string,
  z: number,
  x: number,
  y: number,
  auth?: string,
) {
  const res = await call(app, 'GET', tilePath(roomId, layerId, z, x, y), { auth });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.headers['content-type'], 'image/png');
  return { res, tile: await decodeTile(res.rawPayload) };
}

/**
 * The colour a map shows over the centre of source pixel (col, row) of `file` at zoom `z`:
 * GDAL/PROJ put the pixel on the map (raster-fixtures.ts `where`), the tile holding it is
 * fetched through HTTP.
 */
export async function colourOverPixel(
  app: FastifyInstance,
  roomId: string,
  layerId: string,
  file: string,
  z: number,
  col: number,
  row: number,
  auth?: string,
) {
  const [[lon, lat]] = where(file, [[col, row]]);
  const { x, y, px, py } = tileAt(lon!, lat!, z);
  const { tile } = await fetchTile(app, roomId, layerId, z, x, y, auth);
  return tile.at(px, py);
}

/** A source position in the middle of a 4 x 4 pixel cell (the fixtures' cells share one value). */
export const cellCentre = (cellCol: number, cellRow: number): [number, number] => [cellCol * 4 + 2, cellRow * 4 + 2];

/** matplotlib's colours (RGBA bytes) of `values` in colormap `name` stretched from vmin to vmax. */
export function mplColours(name: string, vmin: number, vmax: number, values: number[]): number[][] {
  return JSON.parse(
    execFileSync(PYTHON, [SCRIPT, 'colour', name, String(vmin), String(vmax), ...values.map(String)], {
      encoding: 'utf8',
    }),
  );
}

/** PATCHes a raster's display; returns the answer. */
export const patchDisplay = (
  app: FastifyInstance,
  roomId: string,
  layerId: string,
  body: unknown,
  auth?: string,
): Promise<Response> => call(app, 'PATCH', `/api/rooms/${roomId}/raster-layers/${layerId}/display`, { auth, body });

/** The room's stored files and layer rows (to see that a refusal stored nothing). */
export async function storedState(t: TestApp, roomId: string) {
  const db = t.database.db;
  const files = await db
    .selectFrom('stored_files')
    .select(['key', 'kind'])
    .where('room_id', '=', roomId)
    .orderBy('key')
    .execute();
  const layers = await db
    .selectFrom('layers')
    .select(['id', 'job_id'])
    .where('room_id', '=', roomId)
    .orderBy('id')
    .execute();
  const staged = await db.selectFrom('staged_jobs').select('job_id').where('room_id', '=', roomId).execute();
  return { files, layers, staged };
}
