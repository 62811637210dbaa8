import type { Db } from '../../db/database.js';
import { RoomTable } from '../../db/room-table.js';

export class MarkersRepository extends RoomTable<'markers'> {
  constructor(db: Db) {
    super(db, 'markers');
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
