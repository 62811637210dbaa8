import type { Db } from '../../db/database.js';
import { RoomTable } from '../../db/room-table.js';

/** The slides of rooms, in deck order (`position` from 0). */
export class SlidesRepository extends RoomTable<'slides'> {
  constructor(db: Db) {
    super(db, 'slides', 'position');
  }

  /** The markers the deck shows (the union of its slides' `markerIds`). */
  async shownMarkerIds(roomId: string): Promise<string[]> {
    const rows = await this.db.selectFrom('slides').select('marker_ids').where('room_id', '=', roomId).execute();
    return [...new Set(rows.flatMap((r) => JSON.parse(r.marker_ids) as string[]))];
  }

  /** Gives the slides their positions in the order of `order`. */
  async renumber(trx: Db, roomId: string, order: string[]): Promise<void> {
    for (const [position, id] of order.entries()) {
      await trx.updateTable('slides').set({ position }).where('room_id', '=', roomId).where('id', '=', id).execute();
    }
  }
}
