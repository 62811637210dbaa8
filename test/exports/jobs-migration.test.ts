/**
 * Migration 0007: the rows of `export_jobs` move into the job queue's `jobs` and read through
 * the export-jobs answer exactly as before (status words, size, times, error, expiry); the
 * queue's `export-<uuid>` rows that ran them give way; other jobs are untouched.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Kysely } from 'kysely';
import { migrateToLatest } from '../../src/db/migrations/index.js';
import type { Tables } from '../../src/db/tables.js';
import type { JobRow } from '../../src/infra/job-queue.js';
import { ExportJobsRepository } from '../../src/modules/exports/export-jobs.repository.js';
import { presentExportJob } from '../../src/modules/exports/exports.presenter.js';
import { TEST_DB } from '../helpers.js';
import { databaseAt } from '../support/migration-db.js';

const DAY = 24 * 3600 * 1000;
const now = Date.now();
const ids = {
  pending: '11111111-1111-4111-8111-111111111111',
  running: '22222222-2222-4222-8222-222222222222',
  complete: '33333333-3333-4333-8333-333333333333',
  expired: '44444444-4444-4444-8444-444444444444',
  failed: '55555555-5555-4555-8555-555555555555',
  due: '66666666-6666-4666-8666-666666666666',
};

let db: Kysely<any>;
let drop: () => Promise<void>;

before(async () => {
  ({ db, drop } = await databaseAt('0006_layer_fields_export_jobs'));
});
after(() => drop());

const exportJob = (id: string, status: string, fields: Record<string, unknown> = {}) => ({
  id,
  room_id: 'room-00001',
  status,
  include_tiffs: 0,
  include_tiles: 0,
  bytes: null,
  error: null,
  artifact_key: null,
  created_at: now - 3 * DAY,
  started_at: null,
  finished_at: null,
  ...fields,
});

const queueRow = (id: string, kind: string, stage: string, fields: Record<string, unknown> = {}) => ({
  id,
  room_id: 'room-00001',
  kind,
  stage,
  progress: 0,
  message: null,
  payload: '{}',
  result: null,
  actor_kind: 'token',
  actor_id: 'token-1',
  attempts: 0,
  created_at: now - 3 * DAY,
  updated_at: now - 3 * DAY,
  ...fields,
});

test('export jobs move into the jobs table and answer as before', async () => {
  await db.insertInto('rooms').values({ id: 'room-00001', created_by: 'user-1', created_at: now }).execute();
  await db
    .insertInto('export_jobs')
    .values([
      exportJob(ids.pending, 'pending', { include_tiffs: 1 }),
      exportJob(ids.running, 'running', { started_at: now - 60_000 }),
      exportJob(ids.complete, 'complete', {
        include_tiles: 1,
        bytes: 1234,
        artifact_key: `exports/room-00001/${ids.complete}.gpkg`,
        started_at: now - 3_700_000,
        finished_at: now - 3_600_000,
      }),
      exportJob(ids.expired, 'expired', { bytes: 99, started_at: now - 2 * DAY - 5, finished_at: now - 2 * DAY }),
      exportJob(ids.failed, 'error', {
        error: 'The export failed; try again',
        started_at: now - DAY - 9,
        finished_at: now - DAY,
      }),
      exportJob(ids.due, 'complete', {
        bytes: 5,
        artifact_key: `exports/room-00001/${ids.due}.gpkg`,
        started_at: now - DAY - 70_000,
        finished_at: now - DAY - 60_000,
      }),
    ])
    .execute();
  await db
    .insertInto('jobs')
    .values([
      queueRow(`export-${ids.pending}`, 'room-export', 'queued', { payload: `{"exportJobId":"${ids.pending}"}` }),
      queueRow(`export-${ids.running}`, 'room-export', 'queued', { attempts: 2 }),
      queueRow('bulk-import-abc', 'bulk-import', 'complete', { result: '{"markersCreated":3}', progress: 100 }),
    ])
    .execute();

  await migrateToLatest(db, TEST_DB);

  const rows = (await db.selectFrom('jobs').selectAll().execute()) as JobRow[];
  assert.deepEqual(rows.map((r) => r.id).sort(), ['bulk-import-abc', ...Object.values(ids)].sort());
  const byId = new Map(rows.map((r) => [r.id, r]));
  const bulk = byId.get('bulk-import-abc')!;
  assert.equal(bulk.kind, 'bulk-import');
  assert.equal(bulk.result, '{"markersCreated":3}');
  const answer = (id: string) => presentExportJob(byId.get(id)!);

  assert.deepEqual(answer(ids.pending), {
    jobId: ids.pending,
    status: 'pending',
    bytes: null,
    startedAt: null,
    finishedAt: null,
    expiresAt: null,
  });
  assert.deepEqual(answer(ids.running), {
    jobId: ids.running,
    status: 'running',
    bytes: null,
    startedAt: now - 60_000,
    finishedAt: null,
    expiresAt: null,
  });
  assert.deepEqual(answer(ids.complete), {
    jobId: ids.complete,
    status: 'complete',
    bytes: 1234,
    startedAt: now - 3_700_000,
    finishedAt: now - 3_600_000,
    expiresAt: now - 3_600_000 + DAY,
  });
  assert.deepEqual(answer(ids.expired), {
    jobId: ids.expired,
    status: 'expired',
    bytes: 99,
    startedAt: now - 2 * DAY - 5,
    finishedAt: now - 2 * DAY,
    expiresAt: null,
  });
  assert.deepEqual(answer(ids.failed), {
    jobId: ids.failed,
    status: 'error',
    bytes: null,
    error: 'The export failed; try again',
    startedAt: now - DAY - 9,
    finishedAt: now - DAY,
    expiresAt: null,
  });
  // Finished over 24 hours ago: expired at once, its artifact left for the sweep.
  assert.equal(answer(ids.due).status, 'expired');

  // As jobs: the options are the payload, the asker kept where the queue knew it.
  const pending = byId.get(ids.pending)!;
  assert.equal(pending.kind, 'room-export');
  assert.equal(pending.stage, 'queued');
  assert.equal(pending.attempts, 0);
  assert.deepEqual(JSON.parse(pending.payload), { includeTiffs: true, includeTiles: false });
  assert.deepEqual([pending.actor_kind, pending.actor_id], ['token', 'token-1']);
  const complete = byId.get(ids.complete)!;
  assert.deepEqual(JSON.parse(complete.payload), { includeTiffs: false, includeTiles: true });
  assert.deepEqual([complete.actor_kind, complete.actor_id], ['user', 'user-1']);
  // Interrupted while running: the queue resumes it, counting the attempts it made.
  const running = byId.get(ids.running)!;
  assert.equal(running.stage, 'processing');
  assert.equal(running.attempts, 2);

  const exportJobs = new ExportJobsRepository(db as unknown as Kysely<Tables>);
  assert.deepEqual(
    (await exportJobs.artifactsFinishedBefore(now - DAY)).map((r) => r.id),
    [ids.due],
  );
  assert.deepEqual(
    (await exportJobs.notStarted('room-00001')).map((r) => r.id),
    [ids.pending],
  );
  await assert.rejects(db.selectFrom('export_jobs').selectAll().execute());
});
