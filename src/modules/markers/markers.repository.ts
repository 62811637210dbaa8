import type { Db } from '../../db/database.js';
import { RoomTable } from '../../db/room-table.js';

export class MarkersRepository extends RoomTable<'markers'> {
  constructor(db: Db) {
    super(db, 'markers', 'created_at', 'import_job_id');
  }

  /** Undoes what an interrupted bulk import wrote. */
  async deleteImported(db: Db, jobId: string): Promise<number> {
    const result = await db.deleteFrom('markers').where('import_job_id', '=', jobId).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** The keys among `keys` that a marker of the room references as its image or thumbnail. */
  async imageKeysInUse(roomId: string, keys: string[]): Promise<Set<string | null>> {
    const rows = await this.db
      .selectFrom('markers')
      .select(['image_key', 'thumbnail_key'])
      .where('room_id', '=', roomId)
      .where((eb) => eb.or([eb('image_key', 'in', keys), eb('thumbnail_key', 'in', keys)]))
      .execute();
    return new Set(rows.flatMap((r) => [r.image_key, r.thumbnail_key]));
  }
}
