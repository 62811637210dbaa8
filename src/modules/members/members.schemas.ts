import { Type } from 'typebox';
import { Email } from '../../http/schemas.js';

export const Member = Type.Object({
  userId: Type.String(),
  email: Type.String(),
  role: Type.String(),
  addedAt: Type.Integer(),
  addedBy: Type.Optional(Type.String()),
});

export const Invitation = Type.Object({
  email: Type.String(),
  role: Type.String(),
  invitedAt: Type.Integer(),
  invitedBy: Type.String(),
});

export const InviteBody = Type.Object(
  { email: Email, role: Type.Enum(['editor', 'viewer']) },
  { additionalProperties: false },
);

/** `PATCH /members/:userId`: the member's new role (the owner's never changes). */
export const RoleBody = Type.Object({ role: InviteBody.properties.role }, { additionalProperties: false });

/**
 * A role change as history and the live channel carry it (`member.updated`): no e-mail, which
 * public rooms' readers would see. `owner` only by a transfer of ownership.
 */
export const RoleChange = Type.Object({ userId: Type.String(), role: Type.Enum(['owner', 'editor', 'viewer']) });

export const InviteReply = Type.Object({
  success: Type.Boolean(),
  status: Type.Union([Type.Literal('added'), Type.Literal('pending')], {
    description: 'added: the person already had an account and is now a member; pending: an invitation waits for them',
  }),
  member: Type.Optional(Member),
  invitation: Type.Optional(Invitation),
});

export const MyInvitation = Type.Object({
  roomId: Type.String(),
  roomName: Type.Union([Type.String(), Type.Null()]),
  role: Type.String(),
  invitedAt: Type.Integer(),
  invitedBy: Type.String(),
});
