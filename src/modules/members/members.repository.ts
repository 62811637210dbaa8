import type { Db } from '../../db/database.js';
import type { PendingInvitationsTable } from '../../db/tables.js';
import type { Role } from '../../auth/access.js';

export type InvitationRow = PendingInvitationsTable;

export class MembersRepository {
  constructor(private readonly db: Db) {}

  /** Members with their e-mail, the owner first, then by time added. */
  list(roomId: string) {
    return this.withEmail(this.db, roomId).orderBy('room_members.added_at').orderBy('room_members.user_id').execute();
  }

  private withEmail(db: Db, roomId: string) {
    return db
      .selectFrom('room_members')
      .innerJoin('users', 'users.id', 'room_members.user_id')
      .select([
        'room_members.user_id',
        'users.email',
        'room_members.role',
        'room_members.added_at',
        'room_members.added_by',
      ])
      .where('room_members.room_id', '=', roomId);
  }

  /** One member with its e-mail, as the list answers it. */
  find(roomId: string, userId: string, db: Db = this.db) {
    return this.withEmail(db, roomId).where('room_members.user_id', '=', userId).executeTakeFirst();
  }

  async setRole(trx: Db, roomId: string, userId: string, role: Role): Promise<void> {
    await trx
      .updateTable('room_members')
      .set({ role })
      .where('room_id', '=', roomId)
      .where('user_id', '=', userId)
      .execute();
  }

  async roleOf(roomId: string, userId: string): Promise<Role | null> {
    const row = await this.db
      .selectFrom('room_members')
      .select('role')
      .where('room_id', '=', roomId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return (row?.role as Role | undefined) ?? null;
  }

  async add(roomId: string, userId: string, role: Role, addedBy: string, now: number): Promise<void> {
    await this.db
      .insertInto('room_members')
      .values({ room_id: roomId, user_id: userId, role, added_at: now, added_by: addedBy })
      .onConflict((oc) => oc.columns(['room_id', 'user_id']).doNothing())
      .execute();
  }

  async remove(roomId: string, userId: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('room_members')
      .where('room_id', '=', roomId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** How many rooms the user owns. */
  async ownedCount(userId: string, db: Db = this.db): Promise<number> {
    const row = await db
      .selectFrom('room_members')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', userId)
      .where('role', '=', 'owner')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** The rooms the user owns, by id. */
  async ownedBy(userId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('room_members')
      .select('room_id')
      .where('user_id', '=', userId)
      .where('role', '=', 'owner')
      .orderBy('room_id')
      .execute();
    return rows.map((row) => row.room_id);
  }

  /** The owner of the room (its member whose role is `owner`). */
  async ownerOf(roomId: string, db: Db = this.db): Promise<string | undefined> {
    const row = await db
      .selectFrom('room_members')
      .select('user_id')
      .where('room_id', '=', roomId)
      .where('role', '=', 'owner')
      .executeTakeFirst();
    return row?.user_id;
  }

  /** Removes every membership of the user; returns the rooms they were in. */
  async removeAllOf(userId: string): Promise<string[]> {
    const rows = await this.db.deleteFrom('room_members').where('user_id', '=', userId).returning('room_id').execute();
    return rows.map((row) => row.room_id);
  }

  async count(roomId: string): Promise<number> {
    const row = await this.db
      .selectFrom('room_members')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('room_id', '=', roomId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  listInvitations(roomId: string) {
    return this.db
      .selectFrom('pending_invitations')
      .selectAll()
      .where('room_id', '=', roomId)
      .orderBy('invited_at')
      .execute();
  }

  /** Whether an invitation waits for this address (the sign-up policy `invite`). */
  async hasPendingInvitation(email: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('pending_invitations')
      .select('room_id')
      .where('email', '=', email)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Pending invitations addressed to an e-mail, with the room's name. */
  listInvitationsFor(email: string) {
    return this.db
      .selectFrom('pending_invitations')
      .innerJoin('rooms', 'rooms.id', 'pending_invitations.room_id')
      .selectAll('pending_invitations')
      .select('rooms.name as room_name')
      .where('pending_invitations.email', '=', email)
      .orderBy('pending_invitations.invited_at')
      .execute();
  }

  /** Creates the invitation, or changes the role of the one already pending. */
  async upsertInvitation(invitation: InvitationRow): Promise<void> {
    await this.db
      .insertInto('pending_invitations')
      .values(invitation)
      .onConflict((oc) =>
        oc.columns(['room_id', 'email']).doUpdateSet({
          role: invitation.role,
          invited_at: invitation.invited_at,
          invited_by: invitation.invited_by,
        }),
      )
      .execute();
  }

  async deleteInvitation(roomId: string, email: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('pending_invitations')
      .where('room_id', '=', roomId)
      .where('email', '=', email)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /**
   * Turns the invitations addressed to `email` (all, or one room's) into memberships of
   * `userId`, atomically. Returns the rooms joined.
   */
  async acceptInvitations(userId: string, email: string, now: number, roomId?: string) {
    return this.db.transaction().execute(async (trx) => {
      let query = trx.selectFrom('pending_invitations').selectAll().where('email', '=', email);
      if (roomId) query = query.where('room_id', '=', roomId);
      const invitations = await query.execute();
      for (const invitation of invitations) {
        await trx
          .insertInto('room_members')
          .values({
            room_id: invitation.room_id,
            user_id: userId,
            role: invitation.role,
            added_at: now,
            added_by: invitation.invited_by,
          })
          .onConflict((oc) => oc.columns(['room_id', 'user_id']).doNothing())
          .execute();
        await trx
          .deleteFrom('pending_invitations')
          .where('room_id', '=', invitation.room_id)
          .where('email', '=', email)
          .execute();
      }
      return invitations.map((i) => ({ roomId: i.room_id, role: i.role as Role }));
    });
  }
}
