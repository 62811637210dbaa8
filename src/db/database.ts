import { mkdirSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import type { Config } from '../config.js';
import { migrateToLatest } from './migrations.js';
import type { Tables } from './tables.js';

export type Db = Kysely<Tables>;

export interface Database {
  db: Db;
  dialect: 'sqlite' | 'postgres';
  close(): Promise<void>;
}

// PostgreSQL returns bigint (int8) as text; our bigints are epoch milliseconds and counts,
// well inside Number's safe range.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

/** Opens SQLite under DATA_DIR by default, PostgreSQL when DATABASE_URL is set; migrates. */
export async function openDatabase(config: Config): Promise<Database> {
  const database = config.databaseUrl ? openPostgres(config.databaseUrl) : openSqlite(config.dataDir);
  try {
    await migrateToLatest(database.db);
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}

function openSqlite(dataDir: string): Database {
  mkdirSync(dataDir, { recursive: true });
  const file = new SQLite(path.join(dataDir, 'maproom.db'));
  file.pragma('journal_mode = WAL');
  // WAL + NORMAL: a committed transaction survives a crash of the process; only an
  // operating-system crash or power loss may lose the last moments (see README).
  file.pragma('synchronous = NORMAL');
  file.pragma('foreign_keys = ON');
  file.pragma('busy_timeout = 5000');
  const db = new Kysely<Tables>({ dialect: new SqliteDialect({ database: withStatementCache(file) }) });
  return { db, dialect: 'sqlite', close: () => db.destroy() };
}

/** How many distinct SQL texts keep their prepared statement. */
const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely prepares every query anew, which costs more than running it. The same SQL text
 * reuses its prepared statement here (least recently used dropped past the limit). Safe
 * because Kysely runs each statement to completion synchronously; we never stream rows.
 */
function withStatementCache(file: SQLite.Database): SQLite.Database {
  const cache = new Map<string, SQLite.Statement>();
  const prepare = (source: string) => {
    let statement = cache.get(source);
    if (statement) {
      cache.delete(source);
    } else {
      statement = file.prepare(source);
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
    }
    cache.set(source, statement);
    return statement;
  };
  return new Proxy(file, {
    get: (target, property) => {
      if (property === 'prepare') return prepare;
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

function openPostgres(connectionString: string): Database {
  const pool = new pg.Pool({ connectionString, max: 10 });
  // An idle connection the server ends (a restart, an administrator) is dropped by the pool
  // and replaced on demand; without a listener it would crash the process.
  pool.on('error', () => undefined);
  const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
  return { db, dialect: 'postgres', close: () => db.destroy() };
}

/** True when the error is a unique-constraint violation in either dialect. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string };
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
