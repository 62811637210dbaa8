import { mkdirSync } from 'node:fs';
import SQLite from 'better-sqlite3';
import { type Dialect as KyselyDialect, Kysely, PostgresDialect, sql, SqliteDialect } from 'kysely';
import pg from 'pg';
import { isScaleOut, sqlitePathOf, type Config } from '../config.js';
import { type CopyInto, copyConnections } from './copy-into.js';
import { aloneInstances, DatabaseLock, type LiveInstances } from './database-lock.js';
import { lockDataDir } from './data-dir-lock.js';
import { servicePool } from './pg-pool.js';
import { pipelinedTransactions, type Transact } from './pipelined-transaction.js';
import { migrateToLatest, type Dialect } from './migrations/index.js';
import type { Tables } from './tables.js';
import { type QueryTimer, timedDialect } from './timed-dialect.js';
import { checkpointInBackground } from './wal-checkpointer.js';

export type Db = Kysely<Tables>;

export interface Database {
  db: Db;
  dialect: Dialect;
  /** Which instances use the database now (this one's number and the others'). */
  instances: LiveInstances;
  /** Resolves when the database answers a trivial query (and this instance still holds its lock). */
  ping(): Promise<void>;
  /** Called if the connection holding the database lock breaks (PostgreSQL). */
  onLockLost(listener: (error: Error) => void): void;
  /**
   * A transaction for the write path: on PostgreSQL its statements are pipelined (sent as they
   * are made; see pipelinedTransactions), on SQLite it is Kysely's.
   */
  transaction: Transact;
  /** PostgreSQL: writes rows with `COPY` (bulk imports); undefined on SQLite. */
  copyInto?: CopyInto;
  close(): Promise<void>;
}

// PostgreSQL returns bigint (int8) as text; our bigints are epoch milliseconds and counts,
// well inside Number's safe range.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

/**
 * Opens SQLite under DATA_DIR by default, PostgreSQL when DATABASE_URL is set; migrates. On
 * PostgreSQL an instance without Redis and S3 must be the database's only user, a scale-out
 * one shares it with other scale-out ones (DatabaseLock); otherwise this rejects, saying why.
 * With a `timer` (the metrics) every statement and transaction is timed; without, nothing is.
 */
export async function openDatabase(config: Config, timer?: QueryTimer): Promise<Database> {
  const database = config.databaseUrl
    ? await openPostgres(config.databaseUrl, config.pgPoolSize, isScaleOut(config) ? 'shared' : 'alone', timer)
    : openSqlite(config.dataDir, sqlitePathOf(config), timer);
  try {
    await migrateToLatest(database.db, database.dialect);
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}

function openSqlite(dataDir: string, file: string, timer: QueryTimer | undefined): Database {
  mkdirSync(dataDir, { recursive: true });
  const unlock = lockDataDir(dataDir);
  let sqlite: SQLite.Database;
  try {
    sqlite = new SQLite(file);
    sqlite.pragma('journal_mode = WAL');
    // WAL + NORMAL: a committed transaction survives a crash of the process; only an
    // operating-system crash or power loss may lose the last moments (see README).
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
  } catch (error) {
    unlock();
    throw error;
  }
  const stopCheckpointer = checkpointInBackground(sqlite, file);
  const db = new Kysely<Tables>({
    dialect: timedIf(new SqliteDialect({ database: withStatementCache(sqlite) }), timer),
  });
  return {
    db,
    dialect: 'sqlite',
    transaction: (body) => db.transaction().execute(body),
    instances: aloneInstances(),
    ping: () => ping(db),
    onLockLost: () => undefined,
    close: async () => {
      try {
        await stopCheckpointer();
        await db.destroy();
      } finally {
        unlock();
      }
    },
  };
}

/** How many distinct SQL texts keep their prepared statement: fixed, the service has fewer distinct queries. */
export const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely prepares every query anew, which costs more than running it. The same SQL text
 * reuses its prepared statement here (and transactions begin immediate, see below) (least recently used dropped past the limit). Safe
 * because Kysely runs each statement to completion synchronously; we never stream rows.
 */
function withStatementCache(file: SQLite.Database): SQLite.Database {
  const cache = new Map<string, SQLite.Statement>();
  const prepare = (text: string) => {
    // Kysely begins transactions with a plain (deferred) `begin`. Ours all write, and a deferred
    // one that read first fails at once with SQLITE_BUSY_SNAPSHOT when another connection (a
    // worker thread ingesting a layer) committed in between; `begin immediate` takes the write
    // lock at the start and waits for it (busy_timeout) instead.
    const source = text === 'begin' ? 'begin immediate' : text;
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

async function openPostgres(
  connectionString: string,
  poolSize: number,
  mode: 'alone' | 'shared',
  timer: QueryTimer | undefined,
): Promise<Database> {
  const lock = await DatabaseLock.take(connectionString, mode);
  let lost: Error | null = null;
  lock.onLost((error) => (lost ??= error));
  const pool = servicePool(connectionString, poolSize);
  const dialect = timedIf(new PostgresDialect({ pool }), timer);
  const db = new Kysely<Tables>({ dialect });
  const copies = copyConnections(connectionString);
  return {
    db,
    dialect: 'postgres',
    transaction: pipelinedTransactions(db, dialect, timer),
    instances: lock,
    copyInto: copies.copyInto,
    ping: async () => {
      if (lost) throw lost;
      await ping(db);
    },
    onLockLost: (listener) =>
      lock.onLost((error) => {
        lost ??= error;
        listener(error);
      }),
    close: async () => {
      try {
        await Promise.all([db.destroy(), copies.close()]);
      } finally {
        await lock.release();
      }
    },
  };
}

/** The dialect, timed when there is a timer. */
const timedIf = (dialect: KyselyDialect, timer: QueryTimer | undefined) =>
  timer ? timedDialect(dialect, timer) : dialect;

const ping = async (db: Db) => {
  await sql`select 1`.execute(db);
};

/** True when the error is a unique-constraint violation in either dialect. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string };
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
