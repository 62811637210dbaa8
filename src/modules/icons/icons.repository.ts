import type { Db } from '../../db/database.js';
import type { MarkerIconsTable } from '../../db/tables.js';

export type IconRow = MarkerIconsTable;

/** Rows of `marker_icons`; the file itself is a stored file named by `file_key`. */
export class IconsRepository {
  constructor(private readonly db: Db) {}

  async insert(row: IconRow, db: Db = this.db): Promise<void> {
    await db.insertInto('marker_icons').values(row).execute();
  }

  async insertMany(db: Db, rows: IconRow[]): Promise<void> {
    if (rows.length) await db.insertInto('marker_icons').values(rows).execute();
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

  async exists(roomId: string, iconId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('marker_icons')
      .select('id')
      .where('room_id', '=', roomId)
      .where('id', '=', iconId)
      .executeTakeFirst();
    return Boolean(row);
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
