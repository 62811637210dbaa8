import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { LOCK_SPACE } from '../../src/db/database-lock.js';
import { StagedJobs } from '../../src/db/staged-jobs.js';
import { assertOk, call, scaffold, type TestApp, type TestUser } from '../helpers.js';
import { TWO_SQUARES, uploadBytes } from '../support/layers.js';
import { makeUploadFixtures, newRaster } from '../support/rasters.js';

/**
 * A synchronous upload or import cut off mid-way (the process stopped) leaves a `staged_jobs`
 * row whose stage no job will resume: the next start undoes it (layers with their feature
 * tables, rasters with their files, imported markers) and removes the row; nothing of it is
 * ever visible. The stopped request is simulated: rows a finished upload wrote are put back
 * under a stage id that is no job's, as an upload still staging would have left them.
 */

let t: TestApp;
let owner: TestUser;
let room: string;
let rasters: ReturnType<typeof makeUploadFixtures>;
before(async () => {
  let users;
  ({ t, users, room } = await scaffold());
  owner = users.owner;
  rasters = makeUploadFixtures();
});
after(async () => {
  rasters?.remove();
  await t?.close();
});

async function tableExists(name: string): Promise<boolean> {
  const { rows } =
    t.database.dialect === 'sqlite'
      ? await sql<{ n: number }>`SELECT count(*) AS n FROM sqlite_master WHERE name = ${name}`.execute(t.database.db)
      : await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_tables WHERE tablename = ${name}`.execute(
          t.database.db,
        );
  return Number(rows[0]!.n) > 0;
}

test('a restart undoes the staging of a synchronous upload or import that a stopped process left', async () => {
  const stageId = 'import-0b7c4d0e-0000-4000-8000-000000000001';
  const vector = assertOk(await uploadBytes(t.app, room, JSON.stringify(TWO_SQUARES), 'squares.geojson', owner.token))
    .layer as { id: string };
  const raster = await newRaster(t.app, room, owner.token, rasters.file('grid-2056.tif'));
  const marker = assertOk(
    await call(t.app, 'POST', `/api/rooms/${room}/markers`, {
      auth: owner.token,
      body: { latitude: 46.95, longitude: 7.44, title: 'imported' },
    }),
    201,
  ).marker as { id: string };
  const db = t.database.db;
  const layerRows = await db.selectFrom('layers').selectAll().where('id', 'in', [vector.id, raster.id]).execute();
  const storageKey = Number(layerRows.find((r) => r.id === vector.id)!.storage_key);
  const rasterFiles = await db
    .selectFrom('stored_files')
    .select('key')
    .where('key', 'like', `%${raster.id}%`)
    .execute();
  assert.ok(rasterFiles.length > 0, 'the raster has stored files');
  assert.ok(await tableExists(`layer_${storageKey}_features`));

  // What a stopped synchronous import leaves: its rows tagged with its stage, and the stage registered.
  await db.insertInto('staged_jobs').values({ job_id: stageId, room_id: room, created_at: Date.now() }).execute();
  await db.updateTable('layers').set({ job_id: stageId }).where('id', 'in', [vector.id, raster.id]).execute();
  await db.updateTable('markers').set({ import_job_id: stageId }).where('id', '=', marker.id).execute();
  const hidden = assertOk(await call(t.app, 'GET', `/api/rooms/${room}`, { auth: owner.token })).counts;

  await t.restart();

  const after = t.database.db;
  assert.deepEqual(await after.selectFrom('staged_jobs').selectAll().execute(), [], 'no staged_jobs row is left');
  assert.deepEqual(
    await after.selectFrom('layers').select('id').where('id', 'in', [vector.id, raster.id]).execute(),
    [],
    'the staged layers are gone',
  );
  assert.equal(await tableExists(`layer_${storageKey}_features`), false, 'the feature table is dropped');
  assert.equal(await tableExists(`layer_${storageKey}_index`), false, 'the feature index is dropped');
  assert.deepEqual(await after.selectFrom('markers').select('id').where('id', '=', marker.id).execute(), []);
  assert.deepEqual(
    await after.selectFrom('stored_files').select('key').where('key', 'like', `%${raster.id}%`).execute(),
    [],
    "the raster's files no longer count in the quota",
  );
  for (const { key } of rasterFiles)
    assert.equal(existsSync(path.join(t.config.dataDir, 'blobs', key)), false, `${key} is removed from disk`);

  // Nothing became visible: the room reads as it did while the stage was hidden.
  const counts = assertOk(await call(t.app, 'GET', `/api/rooms/${room}`, { auth: owner.token })).counts;
  assert.deepEqual(counts, hidden);
  const layers = assertOk(await call(t.app, 'GET', `/api/layers/${room}`, { auth: owner.token }));
  assert.equal(JSON.stringify(layers).includes(vector.id), false);
  assert.equal(JSON.stringify(layers).includes(raster.id), false);
});

test('the stage of a job that has ended (and will not resume) is undone too', async () => {
  const db = t.database.db;
  const jobId = '0b7c4d0e-0000-4000-8000-000000000002';
  await db.insertInto('staged_jobs').values({ job_id: jobId, room_id: room, created_at: Date.now() }).execute();
  await db
    .insertInto('jobs')
    .values({
      id: jobId,
      room_id: room,
      kind: 'room-export',
      stage: 'complete',
      progress: 100,
      message: 'done',
      payload: '{}',
      result: null,
      artifact_key: null,
      actor_kind: 'user',
      actor_id: owner.id,
      attempts: 1,
      created_at: Date.now(),
      updated_at: Date.now(),
      started_at: Date.now(),
      finished_at: Date.now(),
    })
    .execute();
  await t.restart();
  assert.deepEqual(await t.database.db.selectFrom('staged_jobs').selectAll().execute(), []);
});

test('a stage of an instance still running is left alone; one whose instance is gone is undone', async () => {
  const { db, instances } = t.database;
  const staged = new StagedJobs(db, instances);
  const stage = (n: number, instance: number | null) =>
    db
      .insertInto('staged_jobs')
      .values({ job_id: `import-0b7c4d0e-0000-4000-8000-00000000001${n}`, room_id: room, created_at: 0, instance })
      .returning('job_id')
      .executeTakeFirstOrThrow()
      .then((row) => row.job_id);
  const live = await instances.live();
  let goneNumber = 7;
  while (live.has(goneNumber)) goneNumber++;
  const mine = await stage(1, instances.self);
  const gone = await stage(2, goneNumber);
  // On PostgreSQL, another running instance: a session holding its number's lock.
  let other: pg.Client | undefined;
  let theirs: string | undefined;
  if (t.database.dialect === 'postgres') {
    other = new pg.Client({ connectionString: t.config.databaseUrl });
    await other.connect();
    await other.query('SELECT pg_advisory_lock($1, $2)', [LOCK_SPACE, goneNumber + 1]);
    theirs = await stage(3, goneNumber + 1);
  }
  try {
    const interrupted = await staged.interrupted();
    assert.ok(interrupted.includes(gone), 'the stage of an instance that is gone is undone');
    assert.ok(!interrupted.includes(mine), "this instance's own stage is left");
    if (theirs) {
      assert.ok(!interrupted.includes(theirs), "a running instance's stage is left");
      await other!.end();
      other = undefined;
      assert.ok((await staged.interrupted()).includes(theirs), 'and undone once that instance is gone');
    }
  } finally {
    await other?.end();
    await db.deleteFrom('staged_jobs').where('created_at', '=', 0).execute();
  }
});
