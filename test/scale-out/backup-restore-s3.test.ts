import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { admin, assertRestored, keepWriting, seedDeployment } from '../support/backups.js';
import { freshDatabase, type Instance, startInstance } from '../support/instances.js';
import { freshRedisUrl, REDIS_TEST_DB } from '../support/redis.js';
import { type S3TestServer, s3TestServer } from '../support/swift.js';

/**
 * Backups of a scaled-out deployment (PostgreSQL, Redis, S3): one taken while two instances
 * take writes, restored into a fresh database and bucket, holds every acknowledged write with
 * its files, and its sessions and room tokens work; scheduled backups run once per time for
 * the deployment, not once per instance.
 */

const scratch = mkdtempSync(path.join(tmpdir(), 'maproom-backups-s3-'));
const running: Instance[] = [];
const drops: (() => Promise<void>)[] = [];
let s3: S3TestServer | undefined;
after(async () => {
  for (const instance of running) await instance.stop();
  for (const drop of drops) await drop();
  await s3?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

/** The settings of a new, empty scaled-out deployment. */
async function deployment(redisDb: number): Promise<Record<string, string>> {
  s3 ??= await s3TestServer();
  const database = await freshDatabase();
  drops.push(database.drop);
  return {
    DATABASE_URL: database.url,
    JWT_SECRET: 'a-shared-test-secret-of-32-characters',
    REDIS_URL: await freshRedisUrl(redisDb),
    S3_BUCKET: await s3.newBucket(),
    S3_ENDPOINT: s3.endpoint,
    S3_FORCE_PATH_STYLE: 'true',
  };
}

async function start(name: string, env: Record<string, string>) {
  const instance = await startInstance(name, env);
  running.push(instance);
  return instance;
}

const completeIn = (dir: string) =>
  existsSync(dir) ? readdirSync(dir).filter((name) => existsSync(path.join(dir, name, 'manifest.json'))) : [];

test('a backup taken under writes restores into a fresh database and bucket; schedules run once', async () => {
  const source = await deployment(REDIS_TEST_DB.backups);
  const scheduled = path.join(scratch, 'scheduled');
  const schedule = { BACKUP_SCHEDULE: '*/2 * * * * *', BACKUP_DIR: scheduled, BACKUP_KEEP: '20' };
  const a = await start('a', { ...source, ...schedule });
  const b = await start('b', { ...source, ...schedule });
  const seed = await seedDeployment(a);
  const writes = keepWriting(b, seed);
  while (writes.acknowledged.length < 20) await sleep(5);
  const began = Date.now();
  const before = writes.acknowledged.filter((write) => write.at <= began).map((write) => write.id);
  const out = path.join(scratch, 'backup');
  const made = await admin(['backup', '--out', out], source);
  await writes.stop();
  assert.equal(made.code, 0, made.stderr);
  assert.match(made.stdout, /A backup of a PostgreSQL deployment/);
  assert.ok(writes.acknowledged.length > before.length, 'writes went on while the backup ran');

  const verified = await admin(['verify', out], {});
  assert.equal(verified.code, 0, verified.stderr);
  assert.match(verified.stdout, /Every checksum matches/);

  const target = await deployment(REDIS_TEST_DB.restoredBackup);
  const restored = await admin(['restore', '--from', out], target);
  assert.equal(restored.code, 0, restored.stderr);
  const again = await admin(['restore', '--from', out], target);
  assert.equal(again.code, 1, 'a second restore finds the deployment no longer empty');
  assert.match(again.stderr, /is not empty/);
  const c = await start('restored', target);
  await assertRestored(c, seed, before);

  // Two instances on one schedule: each time makes one backup (a second would find its folder taken).
  while (completeIn(scheduled).length < 2) await sleep(100);
  for (const instance of [a, b]) assert.doesNotMatch(instance.output(), /scheduled backup.*failed/i);
  const newest = completeIn(scheduled).sort().at(-1)!;
  const check = await admin(['verify', path.join(scheduled, newest)], {});
  assert.equal(check.code, 0, check.stderr);
  assert.match(check.stdout, /A backup of a PostgreSQL deployment/);
});
