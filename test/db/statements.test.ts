import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { loadConfig } from '../../src/config.js';
import { type Db, openDatabase } from '../../src/db/database.js';
import { servicePool } from '../../src/db/pg-pool.js';
import { pipelinedTransactions } from '../../src/db/pipelined-transaction.js';
import { PreparedQuery } from '../../src/db/prepared-query.js';
import { adminQuery, PG_ADMIN_URL, TEST_DB } from '../helpers.js';

/** A database of its own on the test server, dropped by `drop`. */
async function freshPostgres() {
  const name = `maproom_statements_${randomBytes(6).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

const any = (db: Db) => db as unknown as Kysely<Record<string, any>>;

test('a prepared statement runs on after its table gained a column (a newer instance migrated)', {
  skip: TEST_DB !== 'postgres' && 'PostgreSQL only',
}, async () => {
  const database = await freshPostgres();
  // The read goes on the shared connections: it is prepared there, then its table changes under it.
  const db = new Kysely({ dialect: new PostgresDialect({ pool: servicePool(database.url, 10) }) }) as unknown as Db;
  try {
    await sql`create table probe (id text primary key, title text)`.execute(db);
    await sql`insert into probe values ('a', 'A')`.execute(db);
    const find = new PreparedQuery<{ id: string }, unknown>(db, ['id'], (values, db) =>
      any(db).selectFrom('probe').selectAll().where('id', '=', values.id),
    );
    for (let i = 0; i < 3; i++) assert.deepEqual((await find.execute(db, { id: 'a' })).rows, [{ id: 'a', title: 'A' }]);
    await sql`alter table probe add column extra text`.execute(db);
    assert.deepEqual(
      (await find.execute(db, { id: 'a' })).rows,
      [{ id: 'a', title: 'A', extra: null }],
      'the statement is prepared again, with the new column',
    );
    assert.deepEqual((await find.execute(db, { id: 'a' })).rows, [{ id: 'a', title: 'A', extra: null }]);
  } finally {
    await db.destroy();
    await database.drop();
  }
});

test("the write path's transactions: statements sent without waiting all commit, or none does", async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'maproom-statements-'));
  const pg = TEST_DB === 'postgres' ? await freshPostgres() : undefined;
  const database = await openDatabase(
    loadConfig({}, { dataDir, logLevel: 'silent', ...(pg && { databaseUrl: pg.url, jwtSecret: 'x'.repeat(32) }) }),
  );
  const values = async () =>
    (await sql<{ n: number }>`select n from probe order by n`.execute(database.db)).rows.map((r) => r.n);
  try {
    await sql`create table probe (n integer primary key)`.execute(database.db);
    const result = await database.transaction(async (trx) => {
      const sent = [1, 2, 3].map((n) => sql`insert into probe values (${n})`.execute(trx));
      const seen = await sql<{ c: number }>`select cast(count(*) as integer) as c from probe`.execute(trx);
      await Promise.all(sent);
      return seen.rows[0]!.c;
    });
    assert.equal(result, 3, 'a statement sees those sent before it');
    assert.deepEqual(await values(), [1, 2, 3]);
    await assert.rejects(
      database.transaction(async (trx) => {
        const sent = [4, 1, 5].map((n) => sql`insert into probe values (${n})`.execute(trx));
        await Promise.all(sent);
      }),
      (error) => (error as { code?: string }).code === '23505' || /UNIQUE/.test(String(error)),
    );
    assert.deepEqual(await values(), [1, 2, 3], 'nothing of the failed transaction stays, not even what went before');
  } finally {
    await database.close();
    await pg?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('reads on the shared connections see only what is committed, and a connection the server ended is replaced', {
  skip: TEST_DB !== 'postgres' && 'PostgreSQL only',
}, async () => {
  const database = await freshPostgres();
  const dialect = new PostgresDialect({ pool: servicePool(database.url, 10) });
  const db = new Kysely({ dialect }) as unknown as Db;
  const transact = pipelinedTransactions(db, dialect);
  try {
    await sql`create table probe (id text primary key)`.execute(db);
    const find = new PreparedQuery<{ id: string }, { id: string }>(db, ['id'], (values, db) =>
      any(db).selectFrom('probe').selectAll().where('id', '=', values.id),
    );
    const found = async (id: string) => (await find.execute(db, { id })).rows.length === 1;
    await transact(async (trx) => {
      await sql`insert into probe values ('pending')`.execute(trx);
      assert.equal((await find.execute(trx, { id: 'pending' })).rows.length, 1, 'the transaction sees its own row');
      assert.equal(await found('pending'), false, 'a shared read does not see it before the commit');
    });
    assert.equal(await found('pending'), true, 'and sees it after');

    await adminQuery(
      `select pg_terminate_backend(pid) from pg_stat_activity where datname = '${new URL(database.url).pathname.slice(1)}'`,
    );
    let answered = false;
    for (let attempt = 0; attempt < 100 && !answered; attempt++) {
      answered = await found('pending').catch(() => false);
      if (!answered) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.ok(answered, 'reads are answered again on new connections');
  } finally {
    await db.destroy();
    await database.drop();
  }
});
