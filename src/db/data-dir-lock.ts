import { readFileSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';

/** The lock file in the data directory (a small SQLite database naming its holder). */
export const LOCK_FILE = 'maproom.lock';

/**
 * One service per SQLite data directory: a second one would interleave its writes and its
 * job runner with the first. The lock is an operating-system file lock, which the kernel
 * drops when its process ends however it ends (a crash, `kill -9`), so nothing is ever left
 * to clean up: an SQLite write lock (RESERVED, a POSIX record lock) held on `maproom.lock`
 * for as long as the service runs. The main database cannot carry it: worker threads open
 * it too, and its WAL readers must not be blocked. The file also records the holder's
 * process id, for the message a second service prints. A second service in the same
 * process is refused the same way (SQLite tracks its own locks per file).
 * Returns the function that releases the lock.
 */
export function lockDataDir(dataDir: string): () => void {
  const dir = path.resolve(dataDir);
  const file = path.join(dir, LOCK_FILE);
  const refuse = (holder: number | null) =>
    new Error(
      `Another Maproom${holder ? ` (process ${holder})` : ''} is already using the data directory ${dir}; ` +
        'stop it first, or give this one another DATA_DIR. Several instances need PostgreSQL (DATABASE_URL).',
    );
  let lock: SQLite.Database;
  try {
    lock = take(file, refuse);
  } catch (error) {
    if ((error as { code?: string }).code !== 'SQLITE_NOTADB') throw error;
    // A lock file of an earlier version: its holder's process id as text.
    const holder = Number(readFileSync(file, 'utf8').trim());
    if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && alive(holder)) throw refuse(holder);
    unlinkSync(file);
    lock = take(file, refuse);
  }
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    lock.close(); // ends the transaction, and with it the lock
  };
}

/** Opens the lock file and takes its write lock, or throws `refuse(holder)` when another service holds it. */
function take(file: string, refuse: (holder: number | null) => Error): SQLite.Database {
  const lock = new SQLite(file, { timeout: 0 });
  try {
    if (!begin(lock)) throw refuse(holderOf(lock));
    // Name the holder (committed, so that a refused service can read it), then hold the lock
    // again at once; whoever took it in between holds it now, and this service is refused.
    lock.exec('CREATE TABLE IF NOT EXISTS holder (pid INTEGER NOT NULL, since INTEGER NOT NULL); DELETE FROM holder');
    lock.prepare('INSERT INTO holder (pid, since) VALUES (?, ?)').run(process.pid, Date.now());
    lock.exec('COMMIT');
    if (!begin(lock)) throw refuse(holderOf(lock));
    return lock;
  } catch (error) {
    lock.close();
    throw error;
  }
}

/**
 * `BEGIN IMMEDIATE` takes the file's RESERVED lock and keeps it until the transaction ends;
 * another connection, in this process or another, then cannot (SQLITE_BUSY) but may still
 * read who holds it. False when another holds it.
 */
function begin(lock: SQLite.Database): boolean {
  try {
    lock.exec('BEGIN IMMEDIATE');
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === 'SQLITE_BUSY') return false;
    throw error;
  }
}

/** The process id the holder recorded, when it can be read. */
function holderOf(lock: SQLite.Database): number | null {
  try {
    const row = lock.prepare('SELECT pid FROM holder').get() as { pid: number } | undefined;
    return row?.pid ?? null;
  } catch {
    return null; // not recorded yet
  }
}

/** Whether a process with this id is alive on this machine. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
