import assert from 'node:assert/strict';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import SQLite from 'better-sqlite3';
import { startInstance } from './instances.js';

/**
 * What app/crash.test.ts needs: a real service process on a data directory that outlives it,
 * killed with SIGKILL at a moment read from its SQLite file, started again on the same
 * directory, and the checks that nothing it was doing is half-visible afterwards.
 */

/** Guards against hangs (not timing assertions). */
const SETTLE_MS = 300_000;

export interface Service {
  url: string;
  /** SIGKILL, and wait until the process is gone. */
  kill(): Promise<void>;
  output(): string;
}

/** Starts `src/server.ts` on `dataDir` (SQLite) and resolves once it listens. */
export async function startService(dataDir: string, env: Record<string, string> = {}): Promise<Service> {
  const instance = await startInstance('crash', { DATA_DIR: dataDir, ...env });
  return { url: instance.url, output: instance.output, kill: () => instance.stop('SIGKILL') };
}

/** A read-only look into the service's SQLite file (never a write: the service owns it). */
export function peek<T>(dataDir: string, query: string, ...params: unknown[]): T[] {
  const file = path.join(dataDir, 'maproom.db');
  if (!existsSync(file)) return [];
  const db = new SQLite(file, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 2000');
    return db.prepare(query).all(...params) as T[];
  } finally {
    db.close();
  }
}

/**
 * Polls the SQLite file until `query` returns a row, then SIGKILLs the service; fails when
 * `done()` says the work ended first (the file was too small for the kill to land mid-way).
 */
export async function killWhen(service: Service, dataDir: string, query: string, done: () => boolean) {
  for (let attempt = 0; attempt < 60_000; attempt++) {
    let rows: unknown[] = [];
    try {
      rows = peek(dataDir, query);
    } catch {
      // the file is being created or is busy: look again
    }
    if (rows.length > 0) {
      await service.kill();
      return rows[0];
    }
    assert.ok(!done(), `the work ended before "${query}" was seen: the kill did not land mid-way`);
    await sleep(2);
  }
  assert.fail(`never saw ${query}`);
}

/** JSON over HTTP, or a multipart form. */
export async function http(
  service: Service,
  method: string,
  url: string,
  options: { auth?: string; body?: unknown; form?: FormData } = {},
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${service.url}${url}`, {
    method,
    headers: {
      ...(options.auth && { authorization: `Bearer ${options.auth}` }),
      ...(options.body !== undefined && { 'content-type': 'application/json' }),
    },
    body: options.form ?? (options.body !== undefined ? JSON.stringify(options.body) : undefined),
  });
  const text = await response.text();
  try {
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  } catch {
    return { status: response.status, body: text };
  }
}

/** Waits until no job is queued or processing (a restarted service resumes them); returns every job. */
export async function settledJobs(dataDir: string) {
  type Job = { id: string; kind: string; stage: string; message: string | null };
  for (let waited = 0; waited < SETTLE_MS; waited += 100) {
    const open = peek<Job>(dataDir, "SELECT id FROM jobs WHERE stage IN ('queued', 'processing')");
    if (open.length === 0) return peek<Job>(dataDir, 'SELECT id, kind, stage, message FROM jobs');
    await sleep(100);
  }
  assert.fail('jobs never ended after the restart');
}

/** Every file under `dir` (none when it does not exist). */
export function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath ?? (entry as unknown as { path: string }).path, entry.name));
}

/**
 * Nothing half-visible in a settled data directory: no stage left (no staged_jobs row, no
 * layer or marker of a failed job), every job `complete` or `error`, every vector layer's feature
 * table holding its feature count, no feature table without its layer, every stored file on
 * disk at its counted size and no blob uncounted, and no temporary file.
 */
export function assertWhole(dataDir: string) {
  const q = <T>(sql: string) => peek<T>(dataDir, sql);
  assert.deepEqual(q('SELECT job_id FROM staged_jobs'), [], 'no stage is left');
  // A layer or marker keeps the id of the job that made it; none may be left by a job that failed.
  const failed = "(SELECT id FROM jobs WHERE stage = 'error')";
  assert.deepEqual(q(`SELECT id, job_id FROM layers WHERE job_id IN ${failed}`), [], 'no layer of a failed job');
  assert.deepEqual(q(`SELECT id FROM markers WHERE import_job_id IN ${failed}`), [], 'no marker of a failed job');
  assert.deepEqual(
    q("SELECT id, stage FROM jobs WHERE stage NOT IN ('complete', 'error')"),
    [],
    'every job ended complete or error',
  );

  const layers = q<{ id: string; storage_key: number | null; feature_count: number; size_bytes: number }>(
    'SELECT id, storage_key, feature_count, size_bytes FROM layers WHERE storage_key IS NOT NULL',
  );
  const tables = new Set(
    q<{ name: string }>(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'layer\\_%\\_features' ESCAPE '\\'",
    ).map((t) => t.name),
  );
  for (const layer of layers) {
    const table = `layer_${layer.storage_key}_features`;
    assert.ok(tables.has(table), `layer ${layer.id} has its feature table`);
    const [{ n }] = q<{ n: number }>(`SELECT count(*) AS n FROM "${table}"`) as [{ n: number }];
    assert.equal(n, layer.feature_count, `layer ${layer.id}: its table holds its feature count`);
    assert.ok(layer.size_bytes > 0, `layer ${layer.id} counts in the quota`);
    tables.delete(table);
  }
  assert.deepEqual([...tables], [], 'no feature table without its layer (uncounted in the quota)');

  const blobs = path.join(dataDir, 'blobs');
  const stored = q<{ key: string; bytes: number }>('SELECT key, bytes FROM stored_files');
  for (const { key, bytes } of stored) {
    const file = path.join(blobs, key);
    assert.ok(existsSync(file), `stored file ${key} is on disk`);
    assert.equal(statSync(file).size, bytes, `stored file ${key} has its counted size`);
  }
  // Export artifacts are the service's own (kept 24 hours, outside the quota), named by their job.
  const artifacts = q<{ key: string }>('SELECT artifact_key AS key FROM jobs WHERE artifact_key IS NOT NULL');
  const chunks = q<{ key: string }>('SELECT file_key AS key FROM upload_chunks');
  const known = new Set([...stored, ...artifacts, ...chunks].map((s) => path.join(blobs, s.key)));
  const tmp = path.join(blobs, '.tmp');
  const unknown = filesUnder(blobs).filter((f) => !f.startsWith(`${tmp}/`) && !known.has(f));
  assert.deepEqual(unknown, [], 'no blob that nothing names (uncounted, never removed)');
  assert.deepEqual(filesUnder(tmp), [], 'nothing left in blobs/.tmp');
  assert.deepEqual(filesUnder(path.join(dataDir, 'tmp')), [], 'nothing left in DATA_DIR/tmp');
}
