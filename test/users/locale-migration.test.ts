/**
 * Migration 0018: users get a nullable `locale`; the accounts that existed before it have none
 * (their e-mails stay English) and keep every other column; the column takes a language.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Kysely } from 'kysely';
import { migrateToLatest } from '../../src/db/migrations/index.js';
import { TEST_DB } from '../helpers.js';
import { databaseAt } from '../support/migration-db.js';

let db: Kysely<any>;
let drop: () => Promise<void>;

before(async () => {
  ({ db, drop } = await databaseAt('0017_oidc_handovers'));
});
after(() => drop());

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
