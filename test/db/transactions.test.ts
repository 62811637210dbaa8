import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { loadConfig, sqlitePathOf } from '../../src/config.js';
import { openDatabase } from '../../src/db/database.js';
import { TEST_DB } from '../helpers.js';

// A write transaction on SQLite takes the write lock when it begins. A deferred one that read
// first would fail at its first write (SQLITE_BUSY_SNAPSHOT) if another connection, such as a
// worker thread ingesting a layer, committed in between: a rare 500 under load.
test('a transaction holds the write lock from its start, so another connection cannot commit in the middle of it', {
  skip: TEST_DB !== 'sqlite' && 'SQLite only',
}, async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'maproom-trx-'));
  const database = await openDatabase(loadConfig({}, { dataDir, logLevel: 'silent' }));
  const other = new SQLite(sqlitePathOf(loadConfig({}, { dataDir })));
  other.pragma('busy_timeout = 0');
  try {
    await sql`create table probe (n integer)`.execute(database.db);
    let otherWrite: unknown;
    await database.db.transaction().execute(async (trx) => {
      await sql`select count(*) from probe`.execute(trx);
      try {
        other.exec('insert into probe values (1)');
      } catch (error) {
        otherWrite = error;
      }
      await sql`insert into probe values (2)`.execute(trx);
    });
    assert.match(
      String((otherWrite as { code?: string })?.code),
      /^SQLITE_BUSY/,
      'the other connection waits for the lock',
    );
    assert.deepEqual(other.prepare('select n from probe').all(), [{ n: 2 }], "the transaction's own write committed");
  } finally {
    other.close();
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
