import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { assertOk, call, postMultipart, scaffold, type TestApp, type TestUser } from '../helpers.js';

/**
 * Long writes stay invisible until done: while a bulk import inserts its markers in batches,
 * readers see none of them; they all appear in the job's final write, with its history entry.
 */

let t: TestApp;
let owner: TestUser;
let room: string;
before(async () => {
  let users;
  ({ t, users, room } = await scaffold());
  owner = users.owner;
});
after(() => t?.close());

function pointsText(n: number): string {
  const parts: string[] = [];
  for (let i = 0; i < n; i++) {
    parts.push(
      `{"type":"Feature","geometry":{"type":"Point","coordinates":[${(i % 3600) / 10 - 180},${(i % 1700) / 10 - 85}]},"properties":{"title":"p-${i}"}}`,
    );
  }
  return `{"type":"FeatureCollection","features":[${parts.join(',')}]}`;
}

test('readers never see an import half-done: the count goes from none to all in one step', async () => {
  const n = 40_000;
  const res = assertOk(
    await postMultipart(
      t.app,
      `/api/rooms/${room}/bulk-import`,
      { file: { data: pointsText(n), filename: 'p.geojson' } },
      owner.token,
    ),
  );
  const jobId: string = res.jobId;
  const counts = new Set<number>();
  let sawStagedRows = false;
  for (;;) {
    // What a reader is told, then the rows the job has written by now: while the job has
    // not written them all, it cannot have published them, so the reader saw none.
    const listed = assertOk(await call(t.app, 'GET', `/api/rooms/${room}/markers`, { auth: owner.token }))
      .count as number;
    const counted = assertOk(await call(t.app, 'GET', `/api/rooms/${room}`, { auth: owner.token })).counts
      .markers as number;
    const written = Number(
      (
        await t.database.db
          .selectFrom('markers')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('import_job_id', '=', jobId)
          .executeTakeFirstOrThrow()
      ).n,
    );
    counts.add(listed).add(counted);
    const job = assertOk(await call(t.app, 'GET', `/api/jobs/${jobId}`, { auth: owner.token }));
    if (written > 0 && written < n) {
      sawStagedRows = true;
      assert.deepEqual(
        [listed, counted],
        [0, 0],
        `${written} rows written, but readers were shown ${listed} and ${counted}`,
      );
    }
    if (job.stage === 'complete' || job.stage === 'error') {
      assert.equal(job.stage, 'complete', JSON.stringify(job));
      break;
    }
    await sleep(5);
  }
  assert.ok(sawStagedRows, 'the check ran while the job was writing');
  assert.deepEqual(
    [...counts].filter((c) => c !== 0 && c !== n),
    [],
    `counts seen: ${[...counts].join(', ')}`,
  );
  assert.equal(assertOk(await call(t.app, 'GET', `/api/rooms/${room}/markers`, { auth: owner.token })).count, n);
  const [imported] = assertOk(
    await call(t.app, 'GET', `/api/rooms/${room}/history?limit=1`, { auth: owner.token }),
  ).events;
  assert.equal(imported.type, 'room.imported');
  assert.equal(imported.changes.markers, n);
});
