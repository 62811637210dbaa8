import { type Actor, actorOf, type Caller, type Role } from '../../auth/access.js';
import type { AccessChanges } from '../../auth/access-source.js';
import { normalizeEmail } from '../../emails.js';
import { conflict, emailNotVerified, forbidden, newOwnerNotMember, notFound, roomLimitReached } from '../../errors.js';
import type { Outbox } from '../../infra/mailer.js';
import type { Db } from '../../db/database.js';
import type { RoomRow } from '../../db/tables.js';
import type { WritePath } from '../history/write-path.js';
import type { UsersRepository } from '../users/users.repository.js';
import { invitationMail } from './invitation-mail.js';
import { presentInvitation, presentMember, presentMyInvitation } from './members.presenter.js';
import type { MembersRepository } from './members.repository.js';

type InvitedRole = Exclude<Role, 'owner'>;

export interface MembersServiceParts {
  members: MembersRepository;
  users: UsersRepository;
  access: AccessChanges;
  outbox: Outbox;
  publicUrl: string;
  writePath: WritePath;
  /** What a new owner must still fit once handed a room: MAX_ROOMS_PER_USER (0: no limit) and the storage quota. */
  ownerLimits: { maxRoomsPerUser: number; assertRoomFor(roomId: string, bytes: number, db: Db): Promise<void> };
}

/** Members and invitations of rooms. Every change of membership forgets cached access at once. */
export class MembersService {
  private readonly members: MembersRepository;
  private readonly users: UsersRepository;
  private readonly access: AccessChanges;
  private readonly outbox: Outbox;
  private readonly publicUrl: string;
  private readonly writePath: WritePath;
  private readonly ownerLimits: MembersServiceParts['ownerLimits'];

  constructor(parts: MembersServiceParts) {
    ({
      members: this.members,
      users: this.users,
      access: this.access,
      outbox: this.outbox,
      publicUrl: this.publicUrl,
      writePath: this.writePath,
      ownerLimits: this.ownerLimits,
    } = parts);
  }

  async list(room: RoomRow) {
    return (await this.members.list(room.id)).map(presentMember);
  }

  /**
   * Adds a user whose address is verified at once; anyone else (no account yet, or an
   * address not yet confirmed) gets a pending invitation. Either way an e-mail tells them.
   */
  async invite(room: RoomRow, inviter: { userId: string; email: string }, input: { email: string; role: InvitedRole }) {
    const email = normalizeEmail(input.email);
    const now = Date.now();
    const user = await this.users.findByEmail(email);
    // In the invitee's language when the address has an account, else in the inviter's.
    const locale = user ? user.locale : ((await this.users.findById(inviter.userId))?.locale ?? null);
    const mail = (added: boolean) =>
      this.outbox.post(
        invitationMail({
          to: email,
          roomId: room.id,
          roomName: room.name,
          role: input.role,
          inviterEmail: inviter.email,
          added,
          publicUrl: this.publicUrl,
          locale,
        }),
      );
    if (user) {
      const current = await this.members.roleOf(room.id, user.id);
      if (current) throw conflict('already_member', `${email} is already a member of this room (${current})`);
    }
    if (user?.email_verified_at != null) {
      await this.members.add(room.id, user.id, input.role, inviter.userId, now);
      this.access.forgetRoom(room.id);
      mail(true);
      return {
        success: true,
        status: 'added' as const,
        member: presentMember({ user_id: user.id, email, role: input.role, added_at: now, added_by: inviter.userId }),
      };
    }
    const invitation = { room_id: room.id, email, role: input.role, invited_at: now, invited_by: inviter.userId };
    await this.members.upsertInvitation(invitation);
    mail(false);
    return { success: true, status: 'pending' as const, invitation: presentInvitation(invitation) };
  }

  async remove(room: RoomRow, userId: string) {
    const role = await this.members.roleOf(room.id, userId);
    if (!role) throw notFound('Member');
    if (role === 'owner') throw forbidden('The room owner cannot be removed');
    await this.members.remove(room.id, userId);
    this.access.forgetRoom(room.id);
    return { success: true, userId };
  }

  /**
   * Changes a member's role in place: one `member.updated` history entry and live change, then
   * every instance forgets the room's cached access, so the new role holds from the next request
   * and the member's open sockets check themselves again. The same role again changes nothing.
   */
  async changeRole(room: RoomRow, caller: Caller, userId: string, role: InvitedRole) {
    const member = await this.writePath.write(room.id, actorOf(caller), async (trx) => {
      const member = await this.members.find(room.id, userId, trx);
      if (!member) throw notFound('Member');
      if (member.role === 'owner') throw forbidden("The room owner's role cannot change");
      if (member.role === role) return { result: member, changes: [] };
      await this.members.setRole(trx, room.id, userId, role);
      return {
        result: { ...member, role },
        changes: [
          { type: 'member.updated', objectType: 'member', objectId: userId, changes: { role }, data: { userId, role } },
        ],
      };
    });
    this.access.forgetRoom(room.id);
    return presentMember(member);
  }

  /**
   * Hands the room to a member: they become `owner`, the owner `editor`, in one write (two
   * `member.updated` changes in history and live), then every instance forgets the room's
   * cached access. 404 when `toUserId` is not a member; to the owner themself, nothing changes.
   * Answers the previous owner (undefined when nothing changed).
   */
  async transferOwnership(roomId: string, toUserId: string, actor: Actor): Promise<{ previousOwner?: string }> {
    const previousOwner = await this.writePath.write(roomId, actor, async (trx) => {
      const target = await this.members.find(roomId, toUserId, trx);
      if (!target) throw newOwnerNotMember();
      if (target.role === 'owner') return { result: null, changes: [] };
      const owner = await this.members.ownerOf(roomId, trx);
      await this.members.setRole(trx, roomId, toUserId, 'owner');
      const changes = [roleChange(toUserId, 'owner')];
      if (owner) {
        await this.members.setRole(trx, roomId, owner, 'editor');
        changes.push(roleChange(owner, 'editor'));
      }
      // The new owner must fit their limits with the room counted as theirs: else nothing changes.
      const { maxRoomsPerUser, assertRoomFor } = this.ownerLimits;
      if (maxRoomsPerUser > 0 && (await this.members.ownedCount(toUserId, trx)) > maxRoomsPerUser)
        throw roomLimitReached(maxRoomsPerUser);
      await assertRoomFor(roomId, 0, trx);
      return { result: owner ?? null, changes };
    });
    this.access.forgetRoom(roomId);
    return previousOwner === null ? {} : { previousOwner };
  }

  async listInvitations(room: RoomRow) {
    return { invitations: (await this.members.listInvitations(room.id)).map(presentInvitation) };
  }

  async revokeInvitation(room: RoomRow, email: string) {
    const normalized = normalizeEmail(email);
    if (!(await this.members.deleteInvitation(room.id, normalized))) throw notFound('Invitation');
    return { success: true, email: normalized };
  }

  async invitationsFor(email: string) {
    return { invitations: (await this.members.listInvitationsFor(email)).map(presentMyInvitation) };
  }

  async accept(roomId: string, user: { userId: string; email: string; emailVerified: boolean }) {
    if (!user.emailVerified) throw emailNotVerified();
    const [joined] = await this.acceptPending(user, roomId);
    if (!joined) throw notFound('Invitation');
    return { success: true, roomId, role: joined.role };
  }

  /**
   * The one place where pending invitations become memberships: on sign-in, when an address
   * is verified, on an external identity's first request, and by `accept-invitation` (one
   * room). An address that is not verified accepts nothing: otherwise whoever registers an
   * invited address first would take the invitee's role.
   */
  async acceptPending(user: { userId: string; email: string; emailVerified: boolean }, roomId?: string) {
    if (!user.emailVerified) return [];
    const joined = await this.members.acceptInvitations(user.userId, user.email, Date.now(), roomId);
    for (const room of joined) this.access.forgetRoom(room.roomId);
    return joined;
  }
}

/** One `member.updated` change of the write path. */
const roleChange = (userId: string, role: Role) => ({
  type: 'member.updated' as const,
  objectType: 'member' as const,
  objectId: userId,
  changes: { role },
  data: { userId, role },
});
