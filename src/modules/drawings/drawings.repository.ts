import type { Db } from '../../db/database.js';
import { RoomTable } from '../../db/room-table.js';
import { containsText } from '../../db/text-match.js';
import type { DrawingsTable } from '../../db/tables.js';

export class DrawingsRepository extends RoomTable<'drawings'> {
  constructor(db: Db) {
    super(db, 'drawings');
  }

  /** At most `limit` of the room's drawings whose label holds `text` (any case), by label. */
  search(roomId: string, text: string, limit: number): Promise<DrawingsTable[]> {
    return this.db
      .selectFrom('drawings')
      .selectAll()
      .where('room_id', '=', roomId)
      .where(containsText('label', text))
      .orderBy('label')
      .orderBy('id')
      .limit(limit)
      .execute();
  }
}
