import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { RoomsTable } from '../../db/tables.js';
import type { Role } from '../../auth/access.js';

export type RoomRow = RoomsTable;

export class RoomsRepository {
  constructor(private readonly db: Db) {}

  find(id: string) {
    return this.db.selectFrom('rooms').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The room with the role of `userId` in it (null when not a member), in one query. */
  findWithRole(id: string, userId: string | null) {
    return this.db
      .selectFrom('rooms')
      .leftJoin('room_members', (join) =>
        join.onRef('room_members.room_id', '=', 'rooms.id').on('room_members.user_id', '=', userId ?? ''),
      )
      .selectAll('rooms')
      .select('room_members.role as member_role')
      .where('rooms.id', '=', id)
      .executeTakeFirst() as Promise<(RoomRow & { member_role: Role | null }) | undefined>;
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

  async update(id: string, changes: Updateable<RoomsTable>): Promise<RoomRow> {
    await this.db.updateTable('rooms').set(changes).where('id', '=', id).execute();
    return (await this.find(id))!;
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('rooms').where('id', '=', id).execute();
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
