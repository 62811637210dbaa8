import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { RoomsTable } from '../../db/tables.js';
import type { Role } from '../../auth/access.js';
import type { AccessCache } from '../../infra/ttl-cache.js';

export type RoomRow = RoomsTable;

type RoomWithRole = RoomRow & { member_role: Role | null };

export class RoomsRepository {
  constructor(
    private readonly db: Db,
    private readonly cache: AccessCache,
  ) {}

  find(id: string) {
    return this.db.selectFrom('rooms').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The room with the role of `userId` in it (null when not a member); cached briefly. */
  findWithRole(id: string, userId: string | null): Promise<RoomWithRole | undefined> {
    return this.cache.rooms.get(`${id}|${userId ?? ''}`, () => this.loadWithRole(id, userId)) as Promise<RoomWithRole | undefined>;
  }

  private loadWithRole(id: string, userId: string | null) {
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
    this.cache.forgetRoom(room.id);
    const created = await this.db.transaction().execute(async (trx) => {
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
    this.cache.forgetRoom(room.id);
    return created;
  }

  async update(id: string, changes: Updateable<RoomsTable>): Promise<RoomRow> {
    this.cache.forgetRoom(id);
    await this.db.updateTable('rooms').set(changes).where('id', '=', id).execute();
    this.cache.forgetRoom(id);
    return (await this.find(id))!;
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('rooms').where('id', '=', id).execute();
    this.cache.forgetRoom(id);
    this.cache.forgetTokens();
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
