import type { PendingInvitationsTable } from '../../db/tables.js';

export const presentMember = (m: {
  user_id: string;
  email: string;
  role: string;
  added_at: number;
  added_by: string | null;
}) => ({
  userId: m.user_id,
  email: m.email,
  role: m.role,
  addedAt: m.added_at,
  ...(m.added_by !== null && { addedBy: m.added_by }),
});

export const presentInvitation = (i: PendingInvitationsTable) => ({
  email: i.email,
  role: i.role,
  invitedAt: i.invited_at,
  invitedBy: i.invited_by,
});

/** An invitation as its invitee sees it, with the room. */
export const presentMyInvitation = (i: PendingInvitationsTable & { room_name: string | null }) => ({
  roomId: i.room_id,
  roomName: i.room_name,
  role: i.role,
  invitedAt: i.invited_at,
  invitedBy: i.invited_by,
});
