import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import pg from 'pg';

/**
 * SQL that runs often with new values (PreparedQuery's), to the name of its server-side
 * prepared statement: PostgreSQL parses and plans it once per connection instead of on every
 * call (a marker read took 40% more requests per second). Any other SQL stays unnamed, so that
 * SQL built anew (lists of values) never fills a connection with statements.
 */
const statementNames = new Map<string, string>();
/** Those of them that only read: they may go on a shared connection (a read never waits for a row lock). */
const sharedReads = new Set<string>();
let renamed = 0;

/** Marks `sql` as worth preparing on PostgreSQL (it is the same text on every call). */
export function prepareStatement(sql: string): void {
  if (statementNames.has(sql)) return;
  statementNames.set(sql, `maproom_${statementNames.size + 1}`);
  if (/^\s*select\b/i.test(sql)) sharedReads.add(sql);
}

/**
 * PostgreSQL refuses a prepared statement whose rows changed shape (`select *` after another
 * instance's migration added a column). The statement gets a new name, so every connection
 * prepares it again.
 */
const isStaleStatement = (error: unknown) =>
  (error as { code?: string }).code === '0A000' && (error as { routine?: string }).routine === 'RevalidateCachedQuery';

/**
 * The service's connections to PostgreSQL, for Kysely: prepared statements for the queries
 * that run most, and pipelining (a query is sent at once, without waiting for the answer to the
 * one before: a transaction that does not wait for each statement pays one round trip, not one
 * per statement).
 */
export function servicePool(connectionString: string, max: number): PostgresPool {
  const raw = new pg.Pool({ connectionString, max, pipeline: true } as pg.PoolConfig);
  // A connection the server ends (a restart, an administrator) fails its queries; idle, the
  // pool drops it. Without a listener its error event would crash the process.
  raw.on('error', () => undefined);
  raw.on('connect', (client) => client.on('error', () => undefined));
  // Shared only beside enough connections of their own for transactions and the rest.
  const shared = max >= 3 * SHARED_CONNECTIONS ? new SharedClients(raw, SHARED_CONNECTIONS) : undefined;
  return {
    connect: async () => new Lease(raw, shared) as unknown as PostgresPoolClient,
    end: async () => {
      shared?.close();
      await raw.end();
    },
  };
}

/** Connections that the prepared reads outside transactions share, pipelined. */
const SHARED_CONNECTIONS = 2;

/**
 * What Kysely takes for a connection. It becomes one when its first statement comes: a
 * prepared read outside a transaction (a point read, short, and never waiting for a lock) goes
 * on a shared pipelined connection, with the other reads of this turn of the event loop in one
 * write and their answers in one read; anything else (`begin` first, writes, SQL built anew)
 * takes a connection of its own from the pool. Sharing made a marker read on PostgreSQL about
 * 50% faster than on connections of its own: the syscalls through the loopback and the
 * database's wake-ups were most of its cost.
 */
class Lease {
  private client?: pg.PoolClient | Promise<pg.PoolClient>;
  private own = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly shared: SharedClients | undefined,
  ) {}

  async query(text: string, values: unknown[]): Promise<PostgresQueryResult<never>> {
    if (this.client === undefined) {
      const shared = sharedReads.has(text) ? this.shared : undefined;
      this.own = shared === undefined;
      this.client = shared ? shared.pick() : this.pool.connect();
    }
    const client = await this.client;
    if (!this.own) this.shared!.batch(client);
    return run(client, text, values);
  }

  release() {
    const client = this.client;
    this.client = undefined;
    if (client && this.own)
      void Promise.resolve(client).then(
        (c) => c.release(),
        () => undefined,
      );
  }
}

/** The shared connections, checked out of the pool for good, made on first use. */
class SharedClients {
  private readonly clients: Promise<pg.PoolClient>[] = [];
  private next = 0;
  private readonly corked = new Set<pg.PoolClient>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly size: number,
  ) {}

  pick(): Promise<pg.PoolClient> {
    const index = this.next++ % this.size;
    this.clients[index] ??= this.open(index);
    return this.clients[index]!;
  }

  private open(index: number): Promise<pg.PoolClient> {
    const opening = this.pool.connect();
    opening.then(
      (client) => {
        // A broken connection is left to the pool to close; the next pick opens another.
        const drop = (error?: Error) => {
          if (this.clients[index] === opening) delete this.clients[index];
          this.release(client, error ?? true);
        };
        client.on('error', drop);
        client.once('end', () => drop());
      },
      () => {
        if (this.clients[index] === opening) delete this.clients[index];
      },
    );
    return opening;
  }

  /** The statements sent to `client` in this turn of the event loop go in one write. */
  batch(client: pg.PoolClient) {
    if (this.corked.has(client)) return;
    const socket = (client as unknown as { connection?: { stream?: import('node:stream').Writable } }).connection
      ?.stream;
    if (!socket) return;
    socket.cork();
    this.corked.add(client);
    setImmediate(() => {
      this.corked.delete(client);
      socket.uncork();
    });
  }

  close() {
    for (const opening of this.clients.splice(0))
      void opening?.then(
        (client) => this.release(client),
        () => undefined,
      );
  }

  private readonly released = new WeakSet<pg.PoolClient>();

  /** Gives the connection back to the pool once (`destroy`: closed, not kept). */
  private release(client: pg.PoolClient, destroy?: Error | true) {
    if (this.released.has(client)) return;
    this.released.add(client);
    client.release(destroy);
  }
}

/** Runs a statement, prepared when it is one of PreparedQuery's. */
async function run(client: pg.PoolClient, text: string, values: unknown[]): Promise<PostgresQueryResult<never>> {
  const name = statementNames.get(text);
  if (name === undefined) return client.query(text, values) as never;
  try {
    return (await client.query({ name, text, values })) as never;
  } catch (error) {
    if (!isStaleStatement(error)) throw error;
    if (statementNames.get(text) === name) statementNames.set(text, `maproom_${statementNames.size}_${++renamed}`);
    // Outside a transaction the statement can run again at once; inside, the transaction failed.
    if ((client as unknown as { getTransactionStatus(): string }).getTransactionStatus() !== 'I') throw error;
    return client.query({ name: statementNames.get(text)!, text, values }) as never;
  }
}
