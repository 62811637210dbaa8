import type { Actor } from '../../auth/access.js';
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

  /**
   * For each deletion, the `data` of its object's newest earlier entry that kept one (what
   * `stateBefore` answers for one), in two queries whatever their number: keyed by deletion
   * version; a deletion with no earlier state is left out.
   */
  async statesBefore(
    roomId: string,
    deletions: { objectType: string; objectId: string; version: number }[],
  ): Promise<Map<number, string>> {
    const found = new Map<number, string>();
    if (deletions.length === 0) return found;
    const candidates = await this.db
      .selectFrom('history')
      .select(['object_type', 'object_id', 'version'])
      .where('room_id', '=', roomId)
      .where('object_id', 'in', [...new Set(deletions.map((d) => d.objectId))])
      .where('version', '<', Math.max(...deletions.map((d) => d.version)))
      .where('data', 'is not', null)
      .execute();
    const wanted = new Map<number, number>();
    for (const deletion of deletions) {
      let newest = 0;
      for (const row of candidates) {
        const version = Number(row.version);
        if (row.object_id !== deletion.objectId || row.object_type !== deletion.objectType) continue;
        if (version < deletion.version && version > newest) newest = version;
      }
      if (newest > 0) wanted.set(deletion.version, newest);
    }
    if (wanted.size === 0) return found;
    const rows = await this.db
      .selectFrom('history')
      .select(['version', 'data'])
      .where('room_id', '=', roomId)
      .where('version', 'in', [...new Set(wanted.values())])
      .execute();
    const dataOf = new Map(rows.map((row) => [Number(row.version), row.data]));
    for (const [deletion, version] of wanted) {
      const data = dataOf.get(version);
      if (data) found.set(deletion, data);
    }
    return found;
  }

  /** The object's newest entry (what a restore's precondition compares with). */
  newestOf(trx: Db, roomId: string, objectType: string, objectId: string) {
    return this.ofObject(trx, roomId, objectType, objectId)
      .selectAll()
      .orderBy('version', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  /** Who made the object's newest entry (undefined: none kept, such as an object as ingested). */
  async lastActor(trx: Db, roomId: string, objectType: string, objectId: string): Promise<Actor | undefined> {
    const row = await this.ofObject(trx, roomId, objectType, objectId)
      .select(['actor_kind', 'actor_id'])
      .orderBy('version', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row && { kind: row.actor_kind as Actor['kind'], id: row.actor_id };
  }

  /** How many entries of the object came after `version` (what a restore of that version overwrites). */
  async countAfter(trx: Db, roomId: string, objectType: string, objectId: string, version: number) {
    const row = await this.ofObject(trx, roomId, objectType, objectId)
      .where('version', '>', version)
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** The room's version at the moment `at` (epoch ms): its newest entry's then, 0 before any. */
  async versionAt(roomId: string, at: number): Promise<number> {
    const row = await this.db
      .selectFrom('history')
      .select((eb) => eb.fn.max('version').as('v'))
      .where('room_id', '=', roomId)
      .where('at', '<=', at)
      .executeTakeFirst();
    return Number(row?.v ?? 0);
  }

  /** Each object's newest entry of these types at or before `version` (one per object). */
  newestEach(roomId: string, objectTypes: string[], version: number) {
    return this.db
      .selectFrom('history as h')
      .selectAll('h')
      .where('h.room_id', '=', roomId)
      .where('h.object_type', 'in', objectTypes)
      .where('h.version', '<=', version)
      .where(({ eb, selectFrom }) =>
        eb(
          'h.version',
          '=',
          selectFrom('history as n')
            .select((e) => e.fn.max('n.version').as('v'))
            .whereRef('n.room_id', '=', 'h.room_id')
            .whereRef('n.object_id', '=', 'h.object_id')
            .whereRef('n.object_type', '=', 'h.object_type')
            .where('n.version', '<=', version),
        ),
      )
      .execute();
  }

  /** Each object's first entry of these types after `version` (what came next for it). */
  firstAfterEach(roomId: string, objectTypes: string[], version: number) {
    return this.db
      .selectFrom('history as h')
      .select(['h.object_type', 'h.object_id', 'h.type'])
      .where('h.room_id', '=', roomId)
      .where('h.object_type', 'in', objectTypes)
      .where('h.version', '>', version)
      .where(({ eb, selectFrom }) =>
        eb(
          'h.version',
          '=',
          selectFrom('history as n')
            .select((e) => e.fn.min('n.version').as('v'))
            .whereRef('n.room_id', '=', 'h.room_id')
            .whereRef('n.object_id', '=', 'h.object_id')
            .whereRef('n.object_type', '=', 'h.object_type')
            .where('n.version', '>', version),
        ),
      )
      .execute();
  }

  /** The versions of the room's clears and imports, oldest first. */
  roomWide(roomId: string) {
    return this.db
      .selectFrom('history')
      .select(['type', 'version'])
      .where('room_id', '=', roomId)
      .where('type', 'in', ['room.cleared', 'room.imported'])
      .orderBy('version')
      .execute();
  }

  private ofObject(db: Db, roomId: string, objectType: string, objectId: string) {
    return db
      .selectFrom('history')
      .where('room_id', '=', roomId)
      .where('object_id', '=', objectId)
      .where('object_type', '=', objectType);
  }
}
