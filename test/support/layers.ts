import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { assertOk, call, postMultipart, type FormPart, type Response, type TestApp } from '../helpers.js';

/**
 * What the layers*.test.ts files share: the shape of a layer, uploads of GDAL-written files,
 * inline layers, job polling, and looks into the database and the data directory (a layer's
 * own tables, what a refused upload must not leave behind).
 */

/** A vector layer's fields, exactly as docs/contract-decisions.md lists them ("Vector layers in detail"). */
export const LAYER_KEYS = [
  'bbox',
  'createdAt',
  'createdBy',
  'description',
  'featureCount',
  'fields',
  'geometryType',
  'id',
  'name',
  'sizeBytes',
  'source',
  'sourceCrs',
  'sourceFormat',
  'style',
  'updatedAt',
].sort();
export const STYLE_KEYS = ['color', 'fillOpacity', 'opacity', 'strokeWeight', 'visible'];
export const DEFAULT_STYLE = { color: '3388ff', opacity: 1, strokeWeight: 2, fillOpacity: 0.3, visible: true };

export type Layer = Record<string, any> & { id: string; bbox: number[] | null; featureCount: number };
export type Feature = {
  type: 'Feature';
  id: number;
  geometry: { type: string; coordinates: any };
  properties: Record<string, unknown>;
};
export type FeatureCollection = { type: 'FeatureCollection'; features: Feature[]; _metadata: Record<string, any> };

/** A square polygon Feature of `half` degrees around a centre. */
export function squareFeature(lon: number, lat: number, half: number, properties: Record<string, unknown> = {}) {
  const ring = [
    [lon - half, lat - half],
    [lon + half, lat - half],
    [lon + half, lat + half],
    [lon - half, lat + half],
    [lon - half, lat - half],
  ];
  return { type: 'Feature', properties, geometry: { type: 'Polygon', coordinates: [ring] } };
}

/** Two small polygons near Bern: what an inline layer holds unless told otherwise. */
export const TWO_SQUARES = {
  type: 'FeatureCollection',
  features: [squareFeature(7.44, 46.95, 0.01, { name: 'west' }), squareFeature(7.47, 46.95, 0.01, { name: 'east' })],
};

/** `POST /api/layers/upload` of a file on disk (its own name unless `fileName` is given). */
export function uploadFile(
  app: FastifyInstance,
  roomId: string,
  file: string,
  auth: string | undefined,
  fields: Record<string, string> = {},
  fileName = path.basename(file),
): Promise<Response> {
  return uploadBytes(app, roomId, readFileSync(file), fileName, auth, fields);
}

/** `POST /api/layers/upload` of bytes under a file name. */
export function uploadBytes(
  app: FastifyInstance,
  roomId: string,
  data: Buffer | string,
  fileName: string,
  auth: string | undefined,
  fields: Record<string, string> = {},
) {
  const parts: Record<string, FormPart> = { roomName: roomId, ...fields, file: { data, filename: fileName } };
  return postMultipart(app, '/api/layers/upload', parts, auth);
}

/** Uploads a file that must become layers (200 `{layer, layers}`); returns the answer. */
export async function uploadLayers(
  app: FastifyInstance,
  roomId: string,
  file: string,
  auth: string,
  fields: Record<string, string> = {},
) {
  const body = assertOk(await uploadFile(app, roomId, file, auth, fields));
  assert.ok(
    body.layer && Array.isArray(body.layers),
    `an upload answering layers: ${JSON.stringify(body).slice(0, 300)}`,
  );
  return body as { layer: Layer; layers: Layer[] };
}

/** `POST /api/rooms/:roomId/layers` with a FeatureCollection; returns the created layer. */
export async function createInlineLayer(
  app: FastifyInstance,
  roomId: string,
  auth: string,
  body: Record<string, unknown> = {},
): Promise<Layer> {
  const res = await call(app, 'POST', `/api/rooms/${roomId}/layers`, {
    auth,
    body: { name: 'Inline', geojson: TWO_SQUARES, ...body },
  });
  return assertOk(res).layer;
}

/** Polls `GET /api/layers/jobs/:jobId` until the job is `complete` or `error`; returns it. */
export async function settledJob(app: FastifyInstance, jobId: string, auth: string) {
  for (let attempt = 0; attempt < 3000; attempt++) {
    const job = assertOk(await call(app, 'GET', `/api/layers/jobs/${jobId}`, { auth }));
    if (job.stage === 'complete' || job.stage === 'error') return job;
    await sleep(20);
  }
  assert.fail(`job ${jobId} did not finish`);
}

/** Polls a job that must end `complete`; returns it. */
export async function completedJob(app: FastifyInstance, jobId: string, auth: string) {
  const job = await settledJob(app, jobId, auth);
  assert.equal(job.stage, 'complete', `job ${jobId}: ${job.message}`);
  return job;
}

/** `GET /api/layers/:layerId/features` with an optional query; returns the FeatureCollection. */
export async function features(
  app: FastifyInstance,
  layerId: string,
  auth?: string,
  query = '',
): Promise<FeatureCollection> {
  return assertOk(await call(app, 'GET', `/api/layers/${layerId}/features${query ? `?${query}` : ''}`, { auth }));
}

/** The room's layers as `GET /api/layers/:roomName` lists them. */
export async function listLayers(app: FastifyInstance, roomId: string, auth?: string): Promise<Layer[]> {
  const body = assertOk(await call(app, 'GET', `/api/layers/${roomId}`, { auth }));
  assert.deepEqual(Object.keys(body), ['layers']);
  return body.layers;
}

/** The storage key naming a layer's own tables (read before the layer is deleted). */
export async function storageKeyOf(t: TestApp, layerId: string): Promise<number> {
  const row = await t.database.db
    .selectFrom('layers')
    .select('storage_key')
    .where('id', '=', layerId)
    .executeTakeFirstOrThrow();
  assert.ok(row.storage_key !== null, 'a vector layer has a storage key');
  return Number(row.storage_key);
}

/** The database tables whose name starts `layer_<key>_` (a layer's features and index). */
export async function tablesOfKey(t: TestApp, key: number): Promise<string[]> {
  const prefix = `layer_${key}_`;
  const query =
    t.database.dialect === 'sqlite'
      ? sql<{
          name: string;
        }>`SELECT name FROM sqlite_master WHERE type = 'table' AND substr(name, 1, ${prefix.length}) = ${prefix}`
      : sql<{
          name: string;
        }>`SELECT tablename AS name FROM pg_tables WHERE left(tablename, ${prefix.length}) = ${prefix}`;
  return (await query.execute(t.database.db)).rows.map((r) => r.name).sort();
}

/** Every layer feature table in the database (any key). */
export async function allFeatureTables(t: TestApp): Promise<string[]> {
  const query =
    t.database.dialect === 'sqlite'
      ? sql<{
          name: string;
        }>`SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'layer\\_%\\_features' ESCAPE '\\'`
      : sql<{ name: string }>`SELECT tablename AS name FROM pg_tables WHERE tablename LIKE 'layer\\_%\\_features'`;
  return (await query.execute(t.database.db)).rows.map((r) => r.name).sort();
}

/** Every file under a folder, as paths relative to it (none when it does not exist). */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
    .sort();
}

/**
 * Everything an upload could leave in a room, and in the service: layer rows (staged ones
 * too) and feature tables, markers (staged too), stored files and chunks, jobs, history, the
 * bytes counted against the owner's quota, and the files of the blob store.
 */
export async function storedState(t: TestApp, roomId: string) {
  const db = t.database.db;
  const count = async (table: 'layers' | 'markers' | 'stored_files' | 'upload_chunks' | 'jobs' | 'history') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .where('room_id', '=', roomId)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const sum = async (table: 'layers' | 'stored_files' | 'upload_chunks', column: 'size_bytes' | 'bytes') =>
    Number(
      (
        await sql<{
          n: number | string | null;
        }>`SELECT sum(${sql.ref(column)}) AS n FROM ${sql.table(table)} WHERE room_id = ${roomId}`.execute(db)
      ).rows[0]?.n ?? 0,
    );
  return {
    layers: await count('layers'),
    featureTables: (await allFeatureTables(t)).length,
    markers: await count('markers'),
    storedFiles: await count('stored_files'),
    chunks: await count('upload_chunks'),
    jobs: await count('jobs'),
    history: await count('history'),
    quotaBytes:
      (await sum('layers', 'size_bytes')) +
      (await sum('stored_files', 'bytes')) +
      (await sum('upload_chunks', 'bytes')),
    files: filesUnder(path.join(t.config.dataDir, 'blobs')),
  };
}

/**
 * The temporary files of uploads still there a moment after the answer (an upload's files
 * are removed just after it is answered, so a short wait is allowed; a leftover stays).
 */
export async function tmpLeftovers(t: TestApp): Promise<string[]> {
  const dir = t.config.tmpDir ?? path.join(t.config.dataDir, 'tmp');
  for (let attempt = 0; attempt < 50 && filesUnder(dir).length > 0; attempt++) await sleep(20);
  return filesUnder(dir);
}
