import { CompiledQuery, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { Db } from './database.js';
import { PreparedQuery } from './prepared-query.js';
import { notStaged } from './staged-jobs.js';
import type { Tables } from './tables.js';

/** Lists of ids go to the database in pieces this large (both engines cap bound values). */
const IDS_PER_QUERY = 1000;
/** Values one multi-row insert binds (`RoomTable.insertMany`). */
const VALUES_PER_STATEMENT = 2000;

export function inChunks<T>(items: T[], size = IDS_PER_QUERY): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  return chunks;
}

/** The tables whose rows belong to a room and have their own `id`. */
type RoomScoped = { [K in keyof Tables]: Tables[K] extends { id: string; room_id: string } ? K : never }[keyof Tables];

/**
 * The queries every room-scoped content table needs (markers, drawings, slides, comments):
 * rows are always addressed by room and id together, so an id of another room is simply
 * not found. A table whose rows long jobs write names its job-id column (`stagedBy`): rows of
 * a job still staged (db/staged-jobs.ts) are not read.
 */
export class RoomTable<T extends RoomScoped> {
  /** `find`, compiled once: the read of every GET of one object. */
  private findQuery?: PreparedQuery<{ roomId: string; id: string }, Tables[T]>;
  /** Single-row inserts, compiled once per set of columns. */
  private readonly rowInserts = new Map<string, PreparedQuery<Record<string, unknown>, unknown>>();

  constructor(
    protected readonly db: Db,
    private readonly table: T,
    private readonly orderBy: keyof Tables[T] & string = 'created_at' as keyof Tables[T] & string,
    private readonly stagedBy?: keyof Tables[T] & string,
  ) {}

  /** Kysely cannot follow a generic table name; the public methods keep the row types. */
  private q(db: Db) {
    return db as unknown as Kysely<Record<string, any>>;
  }

  /** The room's readable rows. */
  private rows(db: Db, roomId: string): SelectQueryBuilder<Record<string, any>, string, {}> {
    const query = this.q(db).selectFrom(this.name).where('room_id', '=', roomId);
    return this.stagedBy ? query.where(notStaged(this.stagedBy)) : query;
  }

  private get name(): string {
    return this.table;
  }

  list(roomId: string, db: Db = this.db): Promise<Tables[T][]> {
    return this.rows(db, roomId).selectAll().orderBy(this.orderBy).orderBy('id').execute() as Promise<Tables[T][]>;
  }

  async find(roomId: string, id: string, db: Db = this.db): Promise<Tables[T] | undefined> {
    this.findQuery ??= new PreparedQuery(
      this.db,
      ['roomId', 'id'],
      (values, db) => this.rows(db, values.roomId).selectAll().where('id', '=', values.id) as never,
    );
    return (await this.findQuery.execute(db, { roomId, id })).rows[0];
  }

  /** The room's rows among `ids` (in the table's order within each piece of the list). */
  async findMany(roomId: string, ids: string[], db: Db = this.db): Promise<Tables[T][]> {
    const rows: Tables[T][] = [];
    for (const chunk of inChunks(ids)) {
      rows.push(
        ...((await this.rows(db, roomId)
          .selectAll()
          .where('id', 'in', chunk)
          .orderBy(this.orderBy)
          .orderBy('id')
          .execute()) as Tables[T][]),
      );
    }
    return rows;
  }

  /** The ids among `ids` that exist in the room. */
  async existing(roomId: string, ids: string[], db: Db = this.db): Promise<Set<string>> {
    const found = new Set<string>();
    for (const chunk of inChunks(ids)) {
      const rows = await this.rows(db, roomId).select('id').where('id', 'in', chunk).execute();
      for (const row of rows) found.add((row as { id: string }).id);
    }
    return found;
  }

  async insert(db: Db, rows: Tables[T][]): Promise<void> {
    if (rows.length === 1 && isPlain(rows[0]!)) await this.insertOne(db, rows[0] as unknown as Record<string, unknown>);
    else if (rows.length) await this.q(db).insertInto(this.name).values(rows).execute();
  }

  /** One row (a create) through an insert compiled once for its columns. */
  private async insertOne(db: Db, row: Record<string, unknown>): Promise<void> {
    const columns = Object.keys(row).filter((column) => row[column] !== undefined);
    const key = columns.join(',');
    let insert = this.rowInserts.get(key);
    if (!insert) {
      insert = new PreparedQuery(this.db, columns, (values, db) => this.q(db).insertInto(this.name).values(values));
      this.rowInserts.set(key, insert);
    }
    await insert.execute(db, row);
  }

  /** Multi-row inserts compiled once: by row count and column list, their SQL text. */
  private readonly compiledInserts = new Map<string, string>();

  /**
   * Inserts many rows that have the same columns in the same order (a bulk import's
   * batches): the statement's text is compiled once per row count, then only the values
   * change (building each query anew costs more than the database's own work). Statements
   * bind at most `VALUES_PER_STATEMENT` values, whatever the table's width (both engines cap
   * bound values: SQLite at 32,766, PostgreSQL at 65,535).
   */
  async insertMany(db: Db, rows: Tables[T][]): Promise<void> {
    if (!rows.length) return;
    const columns = Object.keys(rows[0]!);
    const perStatement = Math.max(1, Math.floor(VALUES_PER_STATEMENT / columns.length));
    for (let first = 0; first < rows.length; first += perStatement) {
      await this.insertRows(db, rows.slice(first, first + perStatement), columns);
    }
  }

  private async insertRows(db: Db, rows: Tables[T][], columns: string[]): Promise<void> {
    const key = `${rows.length} ${columns.join()}`;
    let text = this.compiledInserts.get(key);
    if (text === undefined) {
      const compiled = this.q(db).insertInto(this.name).values(rows).compile();
      if (compiled.parameters.length !== rows.length * columns.length) {
        await db.executeQuery(compiled); // some value is not a plain parameter: no reuse
        return;
      }
      if (this.compiledInserts.size >= 8) this.compiledInserts.clear();
      this.compiledInserts.set(key, compiled.sql);
      text = compiled.sql;
    }
    const parameters: unknown[] = new Array(rows.length * columns.length);
    let i = 0;
    for (const row of rows as unknown as Record<string, unknown>[])
      for (const column of columns) parameters[i++] = row[column];
    await db.executeQuery(CompiledQuery.raw(text, parameters));
  }

  /** Writes the whole row: concurrent changes resolve last-write-wins, never torn. */
  async replace(db: Db, row: Tables[T]): Promise<void> {
    const { id, room_id: roomId, ...columns } = row as Tables[T] & { id: string; room_id: string };
    await this.q(db)
      .updateTable(this.name)
      .set(columns as Record<string, unknown>)
      .where('room_id', '=', roomId)
      .where('id', '=', id)
      .execute();
  }

  /** Writes the row whole, replacing the room's row of that id or inserting it; answers the row it replaced. */
  async put(db: Db, row: Tables[T]): Promise<Tables[T] | undefined> {
    const { id, room_id: roomId } = row as Tables[T] & { id: string; room_id: string };
    const previous = await this.find(roomId, id, db);
    if (previous) await this.replace(db, row);
    else await this.insert(db, [row]);
    return previous;
  }

  async delete(db: Db, roomId: string, id: string): Promise<boolean> {
    const result = await this.q(db)
      .deleteFrom(this.name)
      .where('room_id', '=', roomId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async count(db: Db, roomId: string): Promise<number> {
    const row = await this.rows(db, roomId)
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async clear(db: Db, roomId: string): Promise<number> {
    const result = await this.q(db).deleteFrom(this.name).where('room_id', '=', roomId).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

/** A row of plain values (no SQL expression among them), which a compiled insert can take. */
function isPlain(row: object): boolean {
  return Object.values(row).every(
    (value) => typeof value !== 'object' || value === null || !('toOperationNode' in value),
  );
}
