import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, rename, rm, stat } from 'node:fs/promises';
import { promisify } from 'node:util';
import SQLite from 'better-sqlite3';
import pg from 'pg';

/** The tables whose row counts a backup reports. */
const COUNTED = ['users', 'rooms', 'markers', 'layers', 'history', 'stored_files', 'api_tokens'];

/** What the snapshot holds: its last migration, and the rows of the main tables. */
export interface Snapshot {
  migration: string;
  holds: Record<string, number>;
}

/** A failure the operator can act on (what to fix is in the message). */
export class BackupRefused extends Error {}

const run = promisify(execFile);

/**
 * Runs a PostgreSQL client tool on the database at `url` (its password in the environment, not
 * on the command line where others could read it); a missing tool is refused with its package.
 */
async function pgTool(tool: 'pg_dump' | 'pg_restore', url: string, args: string[]): Promise<void> {
  const database = new URL(url);
  const password = decodeURIComponent(database.password) || database.searchParams.get('password') || '';
  database.password = '';
  database.searchParams.delete('password');
  const env = { ...process.env, ...(password && { PGPASSWORD: password }) };
  try {
    await run(tool, [`--dbname=${database}`, ...args], { env, maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { stderr?: string };
    if (failure.code === 'ENOENT')
      throw new BackupRefused(`${tool} is not installed: install PostgreSQL's client tools (postgresql-client)`);
    throw new BackupRefused(`${tool} failed: ${failure.stderr?.trim() || failure.message}`);
  }
}

type Query = (text: string) => Promise<Record<string, unknown>[]>;

async function snapshotOf(query: Query): Promise<Snapshot> {
  const [last] = await query('select name from kysely_migration order by name desc limit 1');
  const holds: Record<string, number> = {};
  for (const table of COUNTED) {
    const [row] = await query(`select count(*) as n from ${table}`);
    holds[table] = Number(row!.n);
  }
  return { migration: String(last?.name ?? ''), holds };
}

/**
 * A consistent copy of a live SQLite database (`VACUUM INTO`, one read transaction, which the
 * service's writers do not wait for), written to `target`.
 */
export async function copySqlite(source: string, target: string): Promise<Snapshot> {
  await stat(source).catch(() => {
    throw new BackupRefused(`There is no database at ${source}: is DATA_DIR the service's?`);
  });
  const database = new SQLite(source, { readonly: true, fileMustExist: true });
  try {
    database.pragma('busy_timeout = 5000');
    database.prepare('VACUUM INTO ?').run(target);
  } finally {
    database.close();
  }
  const copy = new SQLite(target, { readonly: true });
  try {
    return await snapshotOf(async (text) => copy.prepare(text).all() as Record<string, unknown>[]);
  } finally {
    copy.close();
  }
}

/**
 * A consistent dump of a live PostgreSQL database: `pg_dump` (custom format) of a snapshot
 * exported by a repeatable-read transaction, which also counts the rows the dump holds.
 */
export async function dumpPostgres(url: string, target: string): Promise<Snapshot> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('begin isolation level repeatable read read only');
    const { rows } = await client.query<{ id: string }>('select pg_export_snapshot() as id');
    const snapshot = await snapshotOf(async (text) => (await client.query(text)).rows);
    await pgTool('pg_dump', url, [
      '--format=custom',
      '--no-owner',
      '--no-privileges',
      `--snapshot=${rows[0]!.id}`,
      `--file=${target}`,
    ]);
    await client.query('commit');
    return snapshot;
  } finally {
    await client.end();
  }
}

/** Whether the database at `url` has no tables yet (a fresh deployment's). */
export async function postgresIsEmpty(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(
      "select count(*) as n from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'",
    );
    return Number(rows[0]!.n) === 0;
  } finally {
    await client.end();
  }
}

/** Restores a dump into an empty database, all or nothing (one transaction). */
export async function restorePostgres(url: string, dump: string): Promise<void> {
  await pgTool('pg_restore', url, ['--no-owner', '--no-privileges', '--exit-on-error', '--single-transaction', dump]);
}

/** Whether there is no SQLite database at `file` yet, or one without tables (one that cannot be read is not empty). */
export function sqliteIsEmpty(file: string): boolean {
  if (!existsSync(file)) return true;
  let database: SQLite.Database;
  try {
    database = new SQLite(file, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new BackupRefused(`Cannot read the database ${file} to check that it is empty: ${(error as Error).message}`);
  }
  try {
    const row = database.prepare("select count(*) as n from sqlite_master where type = 'table'").get() as { n: number };
    return row.n === 0;
  } finally {
    database.close();
  }
}

/** Puts a copied SQLite database in place at `file` (copied beside it first, then renamed). */
export async function restoreSqlite(copy: string, file: string): Promise<void> {
  await Promise.all(['-wal', '-shm'].map((suffix) => rm(`${file}${suffix}`, { force: true })));
  await copyFile(copy, `${file}.restoring`);
  await rename(`${file}.restoring`, file);
}
