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

  find(roomId: string, id: string) {
    return this.db
      .selectFrom('history')
      .selectAll()
      .where('room_id', '=', roomId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** The object's newest entry before `version` that kept its state (not a deletion). */
  stateBefore(roomId: string, objectType: string, objectId: string, version: number) {
    return this.ofObject(this.db, roomId, objectType, objectId)
      .selectAll()
      .where('version', '<', version)
      .where('data', 'is not', null)
      .orderBy('version', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  /** The object's newest entry (what a restore's precondition compares with). */
  newestOf(trx: Db, roomId: string, objectType: string, objectId: string) {
    return this.ofObject(trx, roomId, objectType, objectId)
      .selectAll()
      .orderBy('version', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  /** How many entries of the object came after `version` (what a restore of that version overwrites). */
  async countAfter(trx: Db, roomId: string, objectType: string, objectId: string, version: number) {
    const row = await this.ofObject(trx, roomId, objectType, objectId)
      .where('version', '>', version)
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  private ofObject(db: Db, roomId: string, objectType: string, objectId: string) {
    return db
      .selectFrom('history')
      .where('room_id', '=', roomId)
      .where('object_id', '=', objectId)
      .where('object_type', '=', objectType);
  }
}
