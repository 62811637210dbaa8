import type { Kysely } from 'kysely';
import type { ContentKind, ContentTable } from '../modules/rooms/room-content.js';
import type { Db } from './database.js';
import type { Tables } from './tables.js';

/** The tables whose rows belong to a room and have their own `id`. */
type RoomScoped = { [K in keyof Tables]: Tables[K] extends { id: string; room_id: string } ? K : never }[keyof Tables];

/**
 * The queries every room-scoped content table needs (markers, drawings, slides, comments):
 * rows are always addressed by room and id together, so an id of another room is simply
 * not found.
 */
export class RoomTable<T extends RoomScoped> {
  constructor(
    protected readonly db: Db,
    private readonly table: T,
    private readonly orderBy: keyof Tables[T] & string = 'created_at' as keyof Tables[T] & string,
  ) {}

  /** Kysely cannot follow a generic table name; the public methods keep the row types. */
  private q(db: Db) {
    return db as unknown as Kysely<Record<string, any>>;
  }

  private get name(): string {
    return this.table;
  }

  list(roomId: string, db: Db = this.db): Promise<Tables[T][]> {
    return this.q(db).selectFrom(this.name).selectAll().where('room_id', '=', roomId).orderBy(this.orderBy).orderBy('id').execute() as Promise<Tables[T][]>;
  }

  find(roomId: string, id: string, db: Db = this.db): Promise<Tables[T] | undefined> {
    return this.q(db).selectFrom(this.name).selectAll().where('room_id', '=', roomId).where('id', '=', id).executeTakeFirst() as Promise<Tables[T] | undefined>;
  }

  /** The room's rows among `ids`, in the table's order. */
  findMany(roomId: string, ids: string[], db: Db = this.db): Promise<Tables[T][]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.q(db)
      .selectFrom(this.name)
      .selectAll()
      .where('room_id', '=', roomId)
      .where('id', 'in', ids)
      .orderBy(this.orderBy)
      .orderBy('id')
      .execute() as Promise<Tables[T][]>;
  }

  /** The ids among `ids` that exist in the room. */
  async existing(roomId: string, ids: string[], db: Db = this.db): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.q(db).selectFrom(this.name).select('id').where('room_id', '=', roomId).where('id', 'in', ids).execute();
    return new Set(rows.map((r: { id: string }) => r.id));
  }

  async insert(db: Db, rows: Tables[T][]): Promise<void> {
    if (rows.length) await this.q(db).insertInto(this.name).values(rows).execute();
  }

  /** Writes the whole row: concurrent changes resolve last-write-wins, never torn. */
  async replace(db: Db, row: Tables[T]): Promise<void> {
    const { id, room_id: roomId, ...columns } = row as Tables[T] & { id: string; room_id: string };
    await this.q(db).updateTable(this.name).set(columns as Record<string, unknown>).where('room_id', '=', roomId).where('id', '=', id).execute();
  }

  async delete(db: Db, roomId: string, id: string): Promise<boolean> {
    const result = await this.q(db).deleteFrom(this.name).where('room_id', '=', roomId).where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async count(db: Db, roomId: string): Promise<number> {
    const row = await this.q(db)
      .selectFrom(this.name)
      .select((eb) => eb.fn.countAll().as('n'))
      .where('room_id', '=', roomId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async clear(db: Db, roomId: string): Promise<number> {
    const result = await this.q(db).deleteFrom(this.name).where('room_id', '=', roomId).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** This table as a kind of room content, for `counts` and `clear`. */
  asContent(kind: ContentKind, afterClear?: (roomId: string) => Promise<void>): ContentTable {
    return {
      kind,
      count: (db, roomId) => this.count(db, roomId),
      clear: (trx, roomId) => this.clear(trx, roomId),
      ...(afterClear && { afterClear }),
    };
  }
}
