import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { uniqueEmail, uniqueRoomId } from '../helpers.js';
import { freshDatabase, type Instance, request, startInstance } from '../support/instances.js';
import { freshRedisUrl, REDIS_TEST_DB } from '../support/redis.js';

/**
 * A real job on BullMQ whose instance is killed (SIGKILL) mid-way: the next worker takes it
 * back within 60 s (BullMQ's stall detection, not a reset at start) and its rerun undoes the
 * killed attempt's staged markers first, so the room ends with every point exactly once and
 * one `room.imported` entry. One instance at a time on the database: several need S3 too.
 */

const n = 100_000;
const instances: Instance[] = [];
const dataDir = mkdtempSync(path.join(tmpdir(), 'maproom-killed-'));
let drop: (() => Promise<void>) | undefined;
after(async () => {
  for (const instance of instances) await instance.stop('SIGKILL');
  await drop?.();
  rmSync(dataDir, { recursive: true, force: true });
});

function pointsText(count: number): string {
  const parts: string[] = [];
  for (let i = 0; i < count; i++)
    parts.push(
      JSON.stringify({
        type: 'Feature',
        geometry: { type: 'Point', coordinates: [7 + (i % 1000) / 1000, 46 + i / n] },
        properties: { title: `p-${i}` },
      }),
    );
  return `{"type":"FeatureCollection","features":[${parts.join(',')}]}`;
}

/** Polls the job until `done` holds; fails after `ms` (a deadline). */
async function jobWhen(instance: Instance, jobId: string, token: string, done: (job: any) => boolean, ms: number) {
  const deadline = Date.now() + ms;
  for (;;) {
    const job = await request(instance, 'GET', `/api/jobs/${jobId}`, { auth: token });
    assert.equal(job.status, 200, JSON.stringify(job.body));
    if (done(job.body)) return job.body;
    if (Date.now() > deadline) throw new Error(`job ${jobId} is still ${JSON.stringify(job.body)}`);
    await sleep(20);
  }
}

test('an import whose instance is killed is taken back within 60 s and finished with every point once', async () => {
  const database = await freshDatabase();
  drop = database.drop;
  const env = {
    DATABASE_URL: database.url,
    JWT_SECRET: 'a-shared-test-secret-of-32-characters',
    REDIS_URL: await freshRedisUrl(REDIS_TEST_DB.jobQueue),
    DATA_DIR: dataDir, // the uploaded file outlives the killed instance (S3 in a deployment)
  };
  const first = await startInstance('first', env);
  instances.push(first);
  const signup = await request(first, 'POST', '/api/auth/signup', {
    body: { email: uniqueEmail('killed'), password: 'correct horse battery' },
  });
  assert.equal(signup.status, 201, JSON.stringify(signup.body));
  const token = signup.body.token as string;
  const roomId = uniqueRoomId();
  assert.equal((await request(first, 'POST', `/api/rooms/${roomId}`, { auth: token, body: {} })).status, 200);
  const form = new FormData();
  form.append('file', new Blob([pointsText(n)], { type: 'application/geo+json' }), 'points.geojson');
  const started = await fetch(`${first.url}/api/rooms/${roomId}/bulk-import`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  assert.equal(started.status, 200);
  const { jobId } = (await started.json()) as { jobId: string };

  // Markers are being inserted (staged, unseen): kill the instance.
  await jobWhen(first, jobId, token, (job) => job.stage === 'processing' && job.progress > 40, 180_000);
  await first.stop('SIGKILL');
  const killedAt = Date.now();

  const second = await startInstance('second', env);
  instances.push(second);
  // Taken back: the row shows a second attempt (the answer of the API does not show attempts).
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    for (;;) {
      const { rows } = await client.query('SELECT attempts, stage FROM jobs WHERE id = $1', [jobId]);
      if (rows[0].attempts >= 2 || rows[0].stage !== 'processing') break;
      assert.ok(Date.now() - killedAt <= 60_000, `not taken back within 60 s of the kill: ${JSON.stringify(rows[0])}`);
      await sleep(50);
    }
  } finally {
    await client.end();
  }
  const done = await jobWhen(second, jobId, token, (job) => job.stage === 'complete' || job.stage === 'error', 180_000);
  assert.equal(done.stage, 'complete', JSON.stringify(done));
  assert.equal(done.markersCreated, n);
  const list = await request(second, 'GET', `/api/rooms/${roomId}/markers`, { auth: token });
  assert.equal(list.body.count, n);
  assert.equal(new Set((list.body.markers as { title: string }[]).map((m) => m.title)).size, n, 'every point once');
  const history = await request(second, 'GET', `/api/rooms/${roomId}/history`, { auth: token });
  assert.equal((history.body.events as { type: string }[]).filter((e) => e.type === 'room.imported').length, 1);
});
