import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { loadConfig, sqlitePathOf } from '../../src/config.js';
import { openDatabase } from '../../src/db/database.js';
import { TEST_DB } from '../helpers.js';

// SQLite's checkpoints (the write-ahead log copied into the database file, with an fsync) run in
// a worker thread of their own, not in the commit of whichever request came at the wrong moment.
// The service's connection never checkpoints; the file still receives every commit soon after.
test('commits reach the database file through the background checkpointer, not the committing connection', {
  skip: TEST_DB !== 'sqlite' && 'SQLite only',
}, async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'maproom-checkpoint-'));
  const file = sqlitePathOf(loadConfig({}, { dataDir }));
  const database = await openDatabase(loadConfig({}, { dataDir, logLevel: 'silent' }));
  try {
    await sql`create table probe (n integer)`.execute(database.db);
    for (let n = 1; n <= 50; n++) await sql`insert into probe values (${n})`.execute(database.db);
    const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(database.db);
    assert.equal(rows[0]!.wal_autocheckpoint, 0, "the service's connection leaves checkpoints to the worker");
    // The database file alone (without its -wal) holds the rows once a checkpoint ran.
    const alone = path.join(dataDir, 'alone.db');
    let count = 0;
    for (let attempt = 0; attempt < 50 && count < 50; attempt++) {
      await sleep(100);
      copyFileSync(file, alone);
      const copy = new SQLite(alone, { readonly: true });
      try {
        const table = copy.prepare("select 1 from sqlite_master where name = 'probe'").get();
        count = table ? (copy.prepare('select count(*) as n from probe').get() as { n: number }).n : 0;
      } catch (error) {
        // Copied while a checkpoint was writing the file: a torn copy, read again at the next try.
        if (!/^SQLITE_(CORRUPT|NOTADB)/.test((error as { code?: string }).code ?? '')) throw error;
      } finally {
        copy.close();
      }
    }
    assert.equal(count, 50, 'every committed row was checkpointed into the database file');
  } finally {
    await database.close();
  }
  try {
    // Closed: the checkpointer stopped and the last connection folded the log into the file.
    const reopened = new SQLite(file, { readonly: true });
    assert.equal((reopened.prepare('select count(*) as n from probe').get() as { n: number }).n, 50);
    reopened.close();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
