import type { Db } from '../../db/database.js';
import type { MarkerRow } from './markers.presenter.js';

export class MarkersRepository {
  constructor(private readonly db: Db) {}

  list(roomId: string) {
    return this.db.selectFrom('markers').selectAll().where('room_id', '=', roomId).orderBy('created_at').orderBy('id').execute();
  }

  find(roomId: string, id: string, db: Db = this.db) {
    return db.selectFrom('markers').selectAll().where('room_id', '=', roomId).where('id', '=', id).executeTakeFirst();
  }

  async insert(db: Db, rows: MarkerRow[]): Promise<void> {
    if (rows.length) await db.insertInto('markers').values(rows).execute();
  }

  /** Writes the whole marker: concurrent changes resolve last-write-wins, never torn. */
  async replace(db: Db, row: MarkerRow): Promise<void> {
    const { id, room_id: roomId, ...columns } = row;
    await db.updateTable('markers').set(columns).where('room_id', '=', roomId).where('id', '=', id).execute();
  }

  async delete(db: Db, roomId: string, id: string): Promise<boolean> {
    const result = await db.deleteFrom('markers').where('room_id', '=', roomId).where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async count(db: Db, roomId: string): Promise<number> {
    const row = await db
      .selectFrom('markers')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('room_id', '=', roomId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Removes every marker of the room; returns how many. */
  async clear(db: Db, roomId: string): Promise<number> {
    const result = await db.deleteFrom('markers').where('room_id', '=', roomId).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Undoes what an interrupted bulk import wrote. */
  async deleteImported(db: Db, jobId: string): Promise<number> {
    const result = await db.deleteFrom('markers').where('import_job_id', '=', jobId).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async iconExists(roomId: string, iconId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('marker_icons')
      .select('id')
      .where('room_id', '=', roomId)
      .where('id', '=', iconId)
      .executeTakeFirst();
    return Boolean(row);
  }
}
