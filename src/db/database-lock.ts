import { randomInt } from 'node:crypto';
import pg from 'pg';

/** The space of Maproom's PostgreSQL advisory locks (two-key form; the first key is this). */
export const LOCK_SPACE = 0x4d52_4f4d; // "MROM"
/** The lock of the database's users: exclusive for an instance that must run alone, shared otherwise. */
const USERS_KEY = 0;

/** Which instances of the service are running, as the number each holds while it runs. */
export interface LiveInstances {
  /** This instance's number. */
  readonly self: number;
  /** The numbers of every instance running now, this one included. */
  live(): Promise<ReadonlySet<number>>;
}

/** An instance alone with its database (SQLite, whose data directory is locked): only itself is live. */
export function aloneInstances(): LiveInstances {
  const self = randomInt(1, 2 ** 31 - 1);
  return { self, live: async () => new Set([self]) };
}

const refusals = {
  alone: (database: string) =>
    `Another Maproom instance is using the PostgreSQL database ${database}; stop it first, or give this one another ` +
    'database. Several instances on one database need REDIS_URL and S3 (S3_BUCKET) on every one of them.',
  shared: (database: string) =>
    `A Maproom instance without REDIS_URL or S3 (S3_BUCKET) is using the PostgreSQL database ${database}, and must ` +
    'run alone; stop it, or give it REDIS_URL and S3_BUCKET, before starting several instances.',
};

/**
 * Who may use a PostgreSQL database, held on a connection of its own for the life of the
 * process (session-level advisory locks, which the server drops when the connection ends,
 * however the process ends). An instance without Redis and S3 takes the users' lock
 * exclusively: it refuses to start beside any other, and none starts beside it. A scale-out
 * instance takes it shared. Each instance also holds a lock of its own number (`self`), by
 * which the others know it is running (`live`).
 */
export class DatabaseLock implements LiveInstances {
  private lostListener: (error: Error) => void = () => undefined;
  private released = false;
  private lost = false;

  private constructor(
    private readonly client: pg.Client,
    readonly self: number,
  ) {
    const lost = (error: Error) => {
      if (this.released || this.lost) return;
      this.lost = true;
      this.lostListener(error);
    };
    client.on('error', lost);
    client.on('end', () => lost(new Error('the connection holding the database lock ended')));
  }

  /** Takes the locks, or rejects with a message saying why the instance may not start. */
  static async take(connectionString: string, mode: 'alone' | 'shared'): Promise<DatabaseLock> {
    const client = new pg.Client({ connectionString, application_name: 'maproom lock' });
    await client.connect();
    try {
      const take = mode === 'alone' ? 'pg_try_advisory_lock' : 'pg_try_advisory_lock_shared';
      const { rows } = await client.query(`SELECT ${take}($1, $2) AS ok, current_database() AS name`, [
        LOCK_SPACE,
        USERS_KEY,
      ]);
      if (!rows[0].ok) throw new Error(refusals[mode](rows[0].name));
      return new DatabaseLock(client, await takeOwnNumber(client));
    } catch (error) {
      await client.end();
      throw error;
    }
  }

  /** Called once if the lock's connection breaks (the instance then no longer holds it). */
  onLost(listener: (error: Error) => void): void {
    this.lostListener = listener;
  }

  async live(): Promise<ReadonlySet<number>> {
    const { rows } = await this.client.query<{ n: string }>(
      `SELECT objid::text AS n FROM pg_locks
        WHERE locktype = 'advisory' AND granted AND classid = $1 AND objsubid = 2 AND objid <> $2
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      [LOCK_SPACE, USERS_KEY],
    );
    return new Set(rows.map((row) => Number(row.n)));
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    await this.client.end();
  }
}

/** Takes the lock of a number no running instance holds, and returns the number. */
async function takeOwnNumber(client: pg.Client): Promise<number> {
  for (;;) {
    const self = randomInt(1, 2 ** 31 - 1);
    const { rows } = await client.query('SELECT pg_try_advisory_lock($1, $2) AS ok', [LOCK_SPACE, self]);
    if (rows[0].ok) return self;
  }
}
