import type { Db } from '../../db/database.js';

export class HistoryRepository {
  constructor(private readonly db: Db) {}

  /** Newest first, older than version `before` when given. */
  page(roomId: string, limit: number, before?: number) {
    let query = this.db.selectFrom('history').selectAll().where('room_id', '=', roomId);
    if (before !== undefined) query = query.where('version', '<', before);
    return query.orderBy('version', 'desc').limit(limit).execute();
  }

  /** Oldest first, newer than `version`: what a reconnecting live client missed. */
  since(roomId: string, version: number, limit: number) {
    return this.db
      .selectFrom('history')
      .selectAll()
      .where('room_id', '=', roomId)
      .where('version', '>', version)
      .orderBy('version')
      .limit(limit)
      .execute();
  }
}
