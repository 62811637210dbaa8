import type {
  CompiledQuery,
  DatabaseConnection,
  Dialect,
  Driver,
  QueryCompiler,
  QueryResult,
  TransactionSettings,
} from 'kysely';

/**
 * What a timed database call was: a statement that reads (`select`, `with`), one that writes
 * (any other: insert, update, delete, schema changes), or a whole transaction (from its
 * `begin` to its `commit` or `rollback`: how long it held its connection, on SQLite the
 * database's one writer). Three values, never the SQL: the label stays small.
 */
export type QueryOperation = 'read' | 'write' | 'transaction';

/** Hears how long each database call took (the metrics). */
export interface QueryTimer {
  queried(operation: QueryOperation, seconds: number): void;
}

const READS = /^\s*(?:select|with)\b/i;

/** A statement's operation, from the query Kysely built (raw SQL by its first word). */
function operationOf(query: CompiledQuery): QueryOperation {
  const kind = query.query.kind;
  if (kind === 'SelectQueryNode') return 'read';
  if (kind === 'RawNode') return READS.test(query.sql) ? 'read' : 'write';
  return 'write';
}

const secondsSince = (start: number) => (performance.now() - start) / 1000;

/**
 * A connection whose statements are timed: every query of the service runs through one (the
 * pool's, a transaction's, and PreparedQuery's alike). One per connection of the driver.
 */
class TimedConnection implements DatabaseConnection {
  /** When the connection's open transaction began (performance.now()), or -1. */
  transactionStart = -1;

  constructor(
    readonly inner: DatabaseConnection,
    private readonly timer: QueryTimer,
  ) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const start = performance.now();
    const timed = () => this.timer.queried(operationOf(query), secondsSince(start));
    return this.inner.executeQuery<R>(query).finally(timed);
  }

  /** Not timed: the service never streams rows. */
  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

type CompileQuery = QueryCompiler['compileQuery'];

/** The driver that hands out timed connections and times transactions; the rest is the dialect's own driver's. */
class TimedDriver implements Driver {
  private readonly connections = new WeakMap<DatabaseConnection, TimedConnection>();

  constructor(
    private readonly inner: Driver,
    private readonly timer: QueryTimer,
  ) {}

  init() {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await this.inner.acquireConnection();
    let timed = this.connections.get(connection);
    if (!timed) this.connections.set(connection, (timed = new TimedConnection(connection, this.timer)));
    return timed;
  }

  /** Timed from before its `begin`: on SQLite that waits for the write lock (`begin immediate`). */
  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings) {
    const timed = connection as TimedConnection;
    timed.transactionStart = performance.now();
    try {
      await this.inner.beginTransaction(timed.inner, settings);
    } catch (error) {
      this.transactionEnded(timed);
      throw error;
    }
  }

  async commitTransaction(connection: DatabaseConnection) {
    try {
      await this.inner.commitTransaction((connection as TimedConnection).inner);
    } finally {
      this.transactionEnded(connection as TimedConnection);
    }
  }

  async rollbackTransaction(connection: DatabaseConnection) {
    try {
      await this.inner.rollbackTransaction((connection as TimedConnection).inner);
    } finally {
      this.transactionEnded(connection as TimedConnection);
    }
  }

  savepoint(connection: DatabaseConnection, name: string, compileQuery: CompileQuery) {
    return this.savepointCall('savepoint', connection, name, compileQuery);
  }

  rollbackToSavepoint(connection: DatabaseConnection, name: string, compileQuery: CompileQuery) {
    return this.savepointCall('rollbackToSavepoint', connection, name, compileQuery);
  }

  releaseSavepoint(connection: DatabaseConnection, name: string, compileQuery: CompileQuery) {
    return this.savepointCall('releaseSavepoint', connection, name, compileQuery);
  }

  releaseConnection(connection: DatabaseConnection) {
    return this.inner.releaseConnection((connection as TimedConnection).inner);
  }

  destroy() {
    return this.inner.destroy();
  }

  private transactionEnded(connection: TimedConnection) {
    if (connection.transactionStart < 0) return;
    this.timer.queried('transaction', secondsSince(connection.transactionStart));
    connection.transactionStart = -1;
  }

  private async savepointCall(
    method: 'savepoint' | 'rollbackToSavepoint' | 'releaseSavepoint',
    connection: DatabaseConnection,
    name: string,
    compileQuery: CompileQuery,
  ): Promise<void> {
    const call = this.inner[method];
    if (!call) throw new Error(`The database driver has no ${method}`);
    await call.call(this.inner, (connection as TimedConnection).inner, name, compileQuery);
  }
}

/**
 * The dialect with every statement and transaction timed (`timer`); used only when there are
 * metrics, so that without them the database runs with no wrapper at all.
 */
export function timedDialect(dialect: Dialect, timer: QueryTimer): Dialect {
  return {
    createDriver: () => new TimedDriver(dialect.createDriver(), timer),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  };
}
