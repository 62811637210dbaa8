import type { Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { ExportJobsTable } from '../../db/tables.js';

export type ExportJobRow = ExportJobsTable;

/** Export jobs, always addressed by room and id (another room's job id is not found). */
export class ExportJobsRepository {
  constructor(private readonly db: Db) {}

  async insert(row: ExportJobRow): Promise<void> {
    await this.db.insertInto('export_jobs').values(row).execute();
  }

  find(roomId: string, id: string) {
    return this.db
      .selectFrom('export_jobs')
      .selectAll()
      .where('room_id', '=', roomId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  findById(id: string) {
    return this.db.selectFrom('export_jobs').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async update(id: string, changes: Updateable<ExportJobsTable>): Promise<void> {
    await this.db.updateTable('export_jobs').set(changes).where('id', '=', id).execute();
  }

  /** A job of the room not yet started, with these options (a second request for the same export joins it). */
  findPending(roomId: string, includeTiffs: number, includeTiles: number) {
    return this.db
      .selectFrom('export_jobs')
      .selectAll()
      .where('room_id', '=', roomId)
      .where('status', '=', 'pending')
      .where('include_tiffs', '=', includeTiffs)
      .where('include_tiles', '=', includeTiles)
      .executeTakeFirst();
  }

  /** The room's complete jobs (their artifacts kept), newest first. */
  completeOfRoom(roomId: string) {
    return this.db
      .selectFrom('export_jobs')
      .selectAll()
      .where('room_id', '=', roomId)
      .where('status', '=', 'complete')
      .orderBy('finished_at', 'desc')
      .execute();
  }

  /** Complete jobs that finished before `before`: their artifacts are due for removal. */
  finishedBefore(before: number) {
    return this.db
      .selectFrom('export_jobs')
      .selectAll()
      .where('status', '=', 'complete')
      .where('finished_at', '<', before)
      .execute();
  }
}
