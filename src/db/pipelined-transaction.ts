import { CompiledQuery, type DatabaseConnection, type Dialect, type Driver, Kysely } from 'kysely';
import type { Db } from './database.js';
import type { Tables } from './tables.js';
import type { QueryTimer } from './timed-dialect.js';

/** Runs `body` in a transaction: committed when it resolves, rolled back when it throws. */
export type Transact = <T>(body: (trx: Db) => Promise<T>) => Promise<T>;

const BEGIN = CompiledQuery.raw('begin');
const COMMIT = CompiledQuery.raw('commit');
const ROLLBACK = CompiledQuery.raw('rollback');

/** Never used: the transaction's Kysely only runs queries (Kysely wants a driver all the same). */
const NO_DRIVER = new Proxy({} as Driver, {
  get: () => () => Promise.reject(new Error('a pipelined transaction has no driver of its own')),
});

/**
 * Transactions on a pipelined PostgreSQL connection (src/db/pg-pool.ts) whose statements are
 * sent as they are made, not one after the other's answer as in Kysely's own transactions:
 * `begin` goes with the first statement, and statements the body starts without waiting go
 * together. The body must still wait for every statement it starts before it resolves (a
 * failed statement fails the transaction, and `commit` would then only roll it back).
 */
export function pipelinedTransactions(db: Db, dialect: Dialect, timer?: QueryTimer): Transact {
  return (body) =>
    db.getExecutor().provideConnection(async (connection: DatabaseConnection) => {
      const start = performance.now();
      const executor = db.getExecutor().withConnectionProvider({ provideConnection: (use) => use(connection) });
      const trx = new Kysely<Tables>({ config: { dialect }, dialect, driver: NO_DRIVER, executor });
      const begun = connection.executeQuery(BEGIN);
      const running = body(trx);
      try {
        const [, result] = await Promise.all([begun, running]);
        await connection.executeQuery(COMMIT);
        return result;
      } catch (error) {
        // Nothing of the body may come after the rollback (it would run outside the transaction).
        await Promise.allSettled([begun, running]);
        await connection.executeQuery(ROLLBACK).catch(() => undefined);
        throw error;
      } finally {
        timer?.queried('transaction', (performance.now() - start) / 1000);
      }
    });
}
