import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import '../../src/db/database.js'; // PostgreSQL's bigints as numbers, as the service reads them
import { migrateToLatest } from '../../src/db/migrations/index.js';
import { adminQuery, PG_ADMIN_URL, TEST_DB } from '../helpers.js';

/**
 * A fresh database of the suite's kind (MAPROOM_TEST_DB) migrated up to `through`, for a test of
 * the migrations after it: rows are written as they were, then `migrateToLatest(db, TEST_DB)`.
 */
export async function databaseAt(through: string): Promise<{ db: Kysely<any>; drop: () => Promise<void> }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'maproom-migration-'));
  let db: Kysely<any>;
  let dbName: string | undefined;
  if (TEST_DB === 'postgres') {
    dbName = `maproom_test_${randomBytes(6).toString('hex')}`;
    await adminQuery(`CREATE DATABASE ${dbName}`);
    const url = new URL(PG_ADMIN_URL);
    url.pathname = `/${dbName}`;
    db = new Kysely({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url.toString() }) }) });
  } else {
    db = new Kysely({ dialect: new SqliteDialect({ database: new SQLite(path.join(dir, 'maproom.sqlite')) }) });
  }
  await migrateToLatest(db, TEST_DB, through);
  const drop = async () => {
    await db.destroy();
    if (dbName) await adminQuery(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    rmSync(dir, { recursive: true, force: true });
  };
  return { db, drop };
}
