import type { Role } from '../../auth/access.js';
import { conflict, forbidden, notFound } from '../../errors.js';
import type { RoomRow } from '../rooms/rooms.repository.js';
import type { UsersRepository } from '../users/users.repository.js';
import { normalizeEmail } from '../users/users.service.js';
import type { MembersRepository } from './members.repository.js';

type InvitedRole = Exclude<Role, 'owner'>;

export class MembersService {
  constructor(
    private readonly members: MembersRepository,
    private readonly users: UsersRepository,
  ) {}

  async list(room: RoomRow) {
    const rows = await this.members.list(room.id);
    return rows.map((m) => ({
      userId: m.user_id,
      email: m.email,
      role: m.role,
      addedAt: m.added_at,
      ...(m.added_by !== null && { addedBy: m.added_by }),
    }));
  }

  /** Adds an existing user at once; otherwise leaves a pending invitation for the e-mail. */
  async invite(room: RoomRow, inviterId: string, input: { email: string; role: InvitedRole }) {
    const email = normalizeEmail(input.email);
    const now = Date.now();
    const user = await this.users.findByEmail(email);
    if (user) {
      const current = await this.members.roleOf(room.id, user.id);
      if (current) throw conflict('already_member', `${email} is already a member of this room (${current})`);
      await this.members.add(room.id, user.id, input.role, inviterId, now);
      return {
        success: true,
        status: 'added' as const,
        member: { userId: user.id, email, role: input.role, addedAt: now, addedBy: inviterId },
      };
    }
    await this.members.upsertInvitation({ room_id: room.id, email, role: input.role, invited_at: now, invited_by: inviterId });
    return {
      success: true,
      status: 'pending' as const,
      invitation: { email, role: input.role, invitedAt: now, invitedBy: inviterId },
    };
  }

  async remove(room: RoomRow, userId: string) {
    const role = await this.members.roleOf(room.id, userId);
    if (!role) throw notFound('Member');
    if (role === 'owner') throw forbidden('The room owner cannot be removed');
    await this.members.remove(room.id, userId);
    return { success: true, userId };
  }

  async listInvitations(room: RoomRow) {
    const rows = await this.members.listInvitations(room.id);
    return {
      invitations: rows.map((i) => ({ email: i.email, role: i.role, invitedAt: i.invited_at, invitedBy: i.invited_by })),
    };
  }

  async revokeInvitation(room: RoomRow, email: string) {
    const normalized = normalizeEmail(email);
    if (!(await this.members.deleteInvitation(room.id, normalized))) throw notFound('Invitation');
    return { success: true, email: normalized };
  }

  async invitationsFor(email: string) {
    const rows = await this.members.listInvitationsFor(email);
    return {
      invitations: rows.map((i) => ({
        roomId: i.room_id,
        roomName: i.room_name,
        role: i.role,
        invitedAt: i.invited_at,
        invitedBy: i.invited_by,
      })),
    };
  }

  async accept(roomId: string, user: { userId: string; email: string }) {
    const [joined] = await this.members.acceptInvitations(user.userId, user.email, Date.now(), roomId);
    if (!joined) throw notFound('Invitation');
    return { success: true, roomId, role: joined.role };
  }
}
