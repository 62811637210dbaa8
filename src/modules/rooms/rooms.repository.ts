import type { Insertable, Updateable } from 'kysely';
import type { RoomWithRole } from '../../auth/access-source.js';
import type { Db } from '../../db/database.js';
import type { RoomRow, RoomsTable } from '../../db/tables.js';

export class RoomsRepository {
  constructor(private readonly db: Db) {}

  find(id: string) {
    return this.db.selectFrom('rooms').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The room with the role of `userId` in it (null when not a member). */
  findWithRole(id: string, userId: string | null) {
    return this.db
      .selectFrom('rooms')
      .leftJoin('room_members', (join) =>
        join.onRef('room_members.room_id', '=', 'rooms.id').on('room_members.user_id', '=', userId ?? ''),
      )
      .selectAll('rooms')
      .select('room_members.role as member_role')
      .where('rooms.id', '=', id)
      .executeTakeFirst() as Promise<RoomWithRole | undefined>;
  }

  /** Creates the room and its owner membership atomically; false when the id is taken. */
  async createWithOwner(room: Insertable<RoomsTable>): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const inserted = await trx
        .insertInto('rooms')
        .values(room)
        .onConflict((oc) => oc.column('id').doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return false;
      await trx
        .insertInto('room_members')
        .values({
          room_id: room.id,
          user_id: room.created_by,
          role: 'owner',
          added_at: room.created_at,
          added_by: null,
        })
        .execute();
      return true;
    });
  }

  async update(id: string, changes: Updateable<RoomsTable>, db: Db = this.db): Promise<RoomRow> {
    await db.updateTable('rooms').set(changes).where('id', '=', id).execute();
    return (await db.selectFrom('rooms').selectAll().where('id', '=', id).executeTakeFirst())!;
  }

  /** Deletes the room, after `first` ran in the same transaction (what the cascade cannot remove). */
  async delete(id: string, first: (trx: Db) => Promise<unknown>): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await first(trx);
      await trx.deleteFrom('rooms').where('id', '=', id).execute();
    });
  }

  /** The room's state version: each content change advances it (history and live). */
  async version(id: string): Promise<number> {
    const row = await this.db.selectFrom('rooms').select('version').where('id', '=', id).executeTakeFirst();
    return Number(row?.version ?? 0);
  }

  /** The rooms a user belongs to, newest first. */
  listForUser(userId: string) {
    return this.db
      .selectFrom('room_members')
      .innerJoin('rooms', 'rooms.id', 'room_members.room_id')
      .select(['rooms.id', 'rooms.name', 'rooms.created_at', 'rooms.is_public', 'room_members.role'])
      .where('room_members.user_id', '=', userId)
      .orderBy('rooms.created_at', 'desc')
      .execute();
  }
}
