import type { Compilable, CompiledQuery, QueryResult } from 'kysely';
import type { Db } from './database.js';
import { prepareStatement } from './pg-pool.js';

/** Marks where a named value goes while the query is compiled. */
const slot = (name: string) => `\u0000prepared:${name}\u0000`;

/**
 * A query built and compiled by Kysely once, then run with new values: building and compiling
 * a query anew on every request cost more than SQLite's own work on the hot paths (a marker
 * read, a create). `build` receives a placeholder for each named value and must pass each one
 * to Kysely as a value (a parameter of the SQL, never a table or column name, nor a list);
 * any other value it uses stays fixed. Runs on the database it was compiled for, or any
 * transaction of it. On PostgreSQL it is a prepared statement of each connection.
 */
export class PreparedQuery<V extends Record<string, unknown>, R> {
  private readonly compiled: CompiledQuery<R>;
  /** For each parameter of the SQL: the name of its value, or the fixed value. */
  private readonly slots: ({ name: keyof V } | { fixed: unknown })[];

  constructor(db: Db, names: readonly (keyof V & string)[], build: (values: V, db: Db) => Compilable<R>) {
    const placeholders = Object.fromEntries(names.map((name) => [name, slot(name)])) as unknown as V;
    this.compiled = build(placeholders, db).compile();
    const byPlaceholder = new Map(names.map((name) => [slot(name), name]));
    this.slots = this.compiled.parameters.map((parameter) => {
      const name = typeof parameter === 'string' ? byPlaceholder.get(parameter) : undefined;
      return name === undefined ? { fixed: parameter } : { name };
    });
    const used = new Set(this.slots.flatMap((s) => ('name' in s ? [s.name] : [])));
    const unused = names.filter((name) => !used.has(name));
    if (unused.length) throw new Error(`PreparedQuery: ${unused.join(', ')} did not become parameters of the SQL`);
    prepareStatement(this.compiled.sql);
  }

  execute(db: Db, values: V): Promise<QueryResult<R>> {
    const parameters = this.slots.map((s) => ('name' in s ? values[s.name] : s.fixed));
    return db.executeQuery<R>({ ...this.compiled, parameters });
  }
}
