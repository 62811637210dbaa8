import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';

/** How often the checkpointer copies the write-ahead log into the database file: fixed, it keeps the log small. */
export const CHECKPOINT_EVERY_MS = 250;

/**
 * The checkpointer's code (plain JavaScript, so it runs the same built or from source): its own
 * connection to the file, a PASSIVE checkpoint on a timer (it never waits for or blocks a
 * writer), closed when told.
 */
const CHECKPOINTER = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.driver);
const db = new SQLite(workerData.file);
db.pragma('busy_timeout = 5000');
const timer = setInterval(() => db.pragma('wal_checkpoint(PASSIVE)'), workerData.everyMs);
parentPort.once('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

/**
 * Moves SQLite's checkpoints off the event loop. By default the connection that commits copies
 * the write-ahead log into the database file every 1,000 pages and waits for the disk (fsync)
 * meanwhile: a request that happened to commit then waited for it, and every other request with
 * it (measured: 2-4x the marker creates per second without it, bench/README.md). Here the
 * service's connection never checkpoints; a worker thread with its own connection does, every
 * 250 ms. Should that thread fail, the connection checkpoints itself again, as before.
 * Durability is unchanged: a commit is in the log (synchronous = NORMAL) before it is answered.
 */
export function checkpointInBackground(sqlite: SQLite.Database, file: string): () => Promise<void> {
  sqlite.pragma('wal_autocheckpoint = 0');
  // Once checkpointed, a log longer than this is cut back when it starts over.
  sqlite.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(CHECKPOINTER, {
    eval: true,
    execArgv: [],
    workerData: { file, driver, everyMs: CHECKPOINT_EVERY_MS },
  });
  worker.unref();
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.once('error', () => sqlite.pragma('wal_autocheckpoint = 1000'));
  return async () => {
    worker.ref(); // held until it has closed its connection
    worker.postMessage('stop');
    await exited;
  };
}
