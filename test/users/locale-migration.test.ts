/**
 * Migration 0018: users get a nullable `locale`; the accounts that existed before it have none
 * (their e-mails stay English) and keep every other column; the column takes a language.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import '../../src/db/database.js'; // PostgreSQL's bigints as numbers, as the service reads them
import { migrateToLatest } from '../../src/db/migrations/index.js';
import { adminQuery, PG_ADMIN_URL, TEST_DB } from '../helpers.js';

let db: Kysely<any>;
let dir: string;
let dbName: string | undefined;

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'maproom-migration-'));
  if (TEST_DB === 'postgres') {
    dbName = `maproom_test_${randomBytes(6).toString('hex')}`;
    await adminQuery(`CREATE DATABASE ${dbName}`);
    const url = new URL(PG_ADMIN_URL);
    url.pathname = `/${dbName}`;
    db = new Kysely({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url.toString() }) }) });
  } else {
    db = new Kysely({ dialect: new SqliteDialect({ database: new SQLite(path.join(dir, 'maproom.sqlite')) }) });
  }
  await migrateToLatest(db, TEST_DB, '0017_oidc_handovers');
});
after(async () => {
  await db?.destroy();
  if (dbName) await adminQuery(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  rmSync(dir, { recursive: true, force: true });
});

test('accounts from before 0018 have no locale and keep the rest; the column takes one', async () => {
  const before = {
    id: 'user-0000000000000001',
    email: 'old@example.org',
    name: 'Old',
    password_hash: null,
    created_at: 1_700_000_000_000,
    email_verified_at: 1_700_000_000_001,
    disabled_at: null,
    deleted_at: null,
    sessions_not_before: null,
    provider_admin: 0,
    last_seen_at: null,
    sessions_kept: null,
  };
  await db.insertInto('users').values(before).execute();
  await migrateToLatest(db, TEST_DB);
  const row = await db.selectFrom('users').selectAll().where('id', '=', before.id).executeTakeFirstOrThrow();
  assert.deepEqual(
    { ...row, created_at: Number(row.created_at), email_verified_at: Number(row.email_verified_at) },
    {
      ...before,
      locale: null,
    },
  );
  await db.updateTable('users').set({ locale: 'ar' }).where('id', '=', before.id).execute();
  const after = await db.selectFrom('users').select('locale').where('id', '=', before.id).executeTakeFirstOrThrow();
  assert.equal(after.locale, 'ar');
});
