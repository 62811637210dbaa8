import { api, ok } from '../../api/client';
import type { BodyOf, Invitation, Member } from '../../api/types';
import { Store } from '../../store';
import type { RoomModel } from '../room-model';
import { t } from '../../i18n/index.js';

export interface MemberLists {
  members: Member[];
  invitations: Invitation[];
}

/**
 * A room's members and pending invitations, for the owner. They are not room content (no live
 * changes, not in RoomModel): a store of their own, read again after each change.
 */
export class RoomMembers extends Store<MemberLists | null> {
  constructor(readonly roomId: string) {
    super(null);
  }
  get path() {
    return { params: { path: { roomId: this.roomId } } };
  }
}

/** The one place the page reads and writes members and invitations: each write reads the lists again. */
export async function loadMembers(lists: RoomMembers) {
  const [members, { invitations }] = await Promise.all([
    ok(api.GET('/api/rooms/{roomId}/members', lists.path)),
    ok(api.GET('/api/rooms/{roomId}/pending-invitations', lists.path)),
  ]);
  lists.set({ members, invitations });
}

/** Adds a person who has an account at once, else invites the address; says which. */
export async function inviteMember(lists: RoomMembers, body: BodyOf<'/api/rooms/{roomId}/invite', 'post'>) {
  const answer = await ok(api.POST('/api/rooms/{roomId}/invite', { ...lists.path, body }));
  await loadMembers(lists);
  return answer.status === 'added'
    ? t('actions:members.added', { email: answer.member?.email })
    : t('actions:members.invited', { email: answer.invitation?.email });
}

export async function removeMember(lists: RoomMembers, userId: string) {
  await ok(api.DELETE('/api/rooms/{roomId}/members/{userId}', { params: { path: { roomId: lists.roomId, userId } } }));
  await loadMembers(lists);
}

/** The owner gives a member another role (the owner's own cannot change). */
export async function changeRole(lists: RoomMembers, userId: string, role: 'editor' | 'viewer') {
  await ok(
    api.PATCH('/api/rooms/{roomId}/members/{userId}', {
      params: { path: { roomId: lists.roomId, userId } },
      body: { role },
    }),
  );
  await loadMembers(lists);
}

export async function revokeInvitation(lists: RoomMembers, email: string) {
  await ok(
    api.DELETE('/api/rooms/{roomId}/pending-invitations/{email}', {
      params: { path: { roomId: lists.roomId, email } },
    }),
  );
  await loadMembers(lists);
}

/**
 * The owner hands the room to a member: that member becomes its owner, and this page's person
 * an editor. The answer is the room as this person now sees it (`userRole`), so the page's
 * controls follow at once.
 */
export async function transferOwnership(lists: RoomMembers, model: RoomModel, userId: string) {
  const room = await ok(api.PUT('/api/rooms/{roomId}/owner', { ...lists.path, body: { userId } }));
  model.change((state) => ({ ...state, room }));
}
