import type { Db } from '../../db/database.js';
import type { MarkerIconsTable } from '../../db/tables.js';

export type IconRow = MarkerIconsTable;

/** Rows of `marker_icons`; the file itself is a stored file named by `file_key`. */
export class IconsRepository {
  constructor(private readonly db: Db) {}

  async insert(row: IconRow, db: Db = this.db): Promise<void> {
    await db.insertInto('marker_icons').values(row).execute();
  }

  listForRoom(roomId: string) {
    return this.db
      .selectFrom('marker_icons')
      .selectAll()
      .where('room_id', '=', roomId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }

  find(roomId: string, iconId: string) {
    return this.db
      .selectFrom('marker_icons')
      .selectAll()
      .where('room_id', '=', roomId)
      .where('id', '=', iconId)
      .executeTakeFirst();
  }
}
