import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { type Database, openDatabase } from '../../src/db/database.js';
import { adminQuery, buildTestApp, PG_ADMIN_URL, TEST_DB } from '../helpers.js';

/**
 * Who may share a PostgreSQL database (docs/decisions.md, "Who may share a database"): an
 * instance without Redis and S3 runs alone (it refuses to start beside another, and none
 * starts beside it); scale-out instances share it, each known to be running by its own lock.
 */

describe('the PostgreSQL database lock', { skip: TEST_DB !== 'postgres' && 'a PostgreSQL rule' }, () => {
  // Not made: opening a PostgreSQL database does not use the data directory.
  const dataDir = path.join(tmpdir(), `maproom-pglock-${randomBytes(6).toString('hex')}`);
  const dbName = `maproom_test_${randomBytes(6).toString('hex')}`;
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${dbName}`;
  const common = {
    dataDir,
    databaseUrl: url.toString(),
    jwtSecret: 'a-shared-test-secret-of-32-characters',
    logLevel: 'silent' as const,
  };
  const alone = loadConfig({}, common);
  // Scale-out settings; opening the database does not reach Redis or S3.
  const scaleOut = loadConfig({}, { ...common, redisUrl: 'redis://127.0.0.1:6379/11', s3Bucket: 'maproom-test' });
  const opened: Database[] = [];
  const open = async (config: typeof alone) => {
    const database = await openDatabase(config);
    opened.push(database);
    return database;
  };
  const refusedAlone =
    /Another Maproom instance is using the PostgreSQL database maproom_test_\w+;.*need REDIS_URL and S3/;
  const refusedShared = /A Maproom instance without REDIS_URL or S3 \(S3_BUCKET\) is using the PostgreSQL database/;

  before(() => adminQuery(`CREATE DATABASE ${dbName}`));
  after(async () => {
    for (const database of opened) await database.close();
    await adminQuery(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('an instance without Redis and S3 runs alone: a second one of either kind is refused', async () => {
    const first = await open(alone);
    await assert.rejects(openDatabase(alone), refusedAlone);
    await assert.rejects(openDatabase(scaleOut), refusedShared);
    await first.close();
    // Gone with its connection: the next one starts.
    await (await open(alone)).close();
  });

  test('scale-out instances share the database, each seen running; none without Redis starts beside them', async () => {
    const a = await open(scaleOut);
    const b = await open(scaleOut);
    assert.notEqual(a.instances.self, b.instances.self);
    const live = await a.instances.live();
    assert.ok(live.has(a.instances.self) && live.has(b.instances.self), JSON.stringify([...live]));
    await assert.rejects(openDatabase(alone), refusedAlone);
    await a.close();
    assert.equal((await b.instances.live()).has(a.instances.self), false, 'a closed instance is no longer running');
    await b.close();
  });

  test('a broken lock connection is reported, and the database no longer answers the probes', async () => {
    const database = await open(alone);
    const lost: Error[] = [];
    database.onLockLost((error) => lost.push(error));
    await database.ping();
    await adminQuery(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${dbName}' AND application_name = 'maproom lock'`,
    );
    for (let waited = 0; !lost.length && waited < 10_000; waited += 50) await sleep(50);
    assert.equal(lost.length, 1);
    await assert.rejects(database.ping());
    await database.close();
  });

  test('the service refuses to start beside another without REDIS_URL, saying why', async () => {
    const t = await buildTestApp();
    try {
      await assert.rejects(buildApp(t.config), refusedAlone);
    } finally {
      await t.close();
    }
  });
});
