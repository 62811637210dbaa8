import { type Language, language } from '../i18n/index.js';
import { session } from '../session';
import { api, ok, onRefusal } from './client';
import type { RoomSummary } from './types';

/**
 * The requests of the account page (pages/account-page.tsx): the signed-in person's own account;
 * and its making: sign-up, and the language its e-mails are written in.
 */

/**
 * Creates an account (and a session: the answer's token and user): its e-mails are written in
 * the language the page speaks.
 */
export function signUp(email: string, password: string, name?: string) {
  return ok(api.POST('/api/auth/signup', { body: { email, password, ...(name && { name }), locale: language() } }));
}

/**
 * Saves the language of the signed-in person's e-mails to their account (nothing when no one is
 * signed in, or the session lapsed), with the session as it is now: a refused session is a
 * failure here, never a wait for the person to sign in again, since the page reloads after it
 * (i18n chooseLanguage).
 */
export async function saveLocale(locale: Language): Promise<void> {
  const { token, lapsed } = session.get();
  if (!token || lapsed) return;
  await ok(
    api.PATCH('/api/auth/me', { body: { locale }, headers: { Authorization: `Bearer ${token}` }, keepalive: true }),
  );
}

/** Changes the password; the service ends the account's other sessions and keeps this one. */
export async function changePassword(currentPassword: string, newPassword: string) {
  await ok(api.POST('/api/auth/password', { body: { currentPassword, newPassword } }));
}

/** Asks for a change of address: a link goes to the new one, which changes when it is followed. */
export async function changeEmail(email: string, password: string) {
  await ok(api.POST('/api/auth/email', { body: { email, password } }));
}

/** The rooms the signed-in person owns (an account that owns rooms is not deleted). */
export async function ownedRooms(): Promise<RoomSummary[]> {
  const { rooms } = await ok(api.GET('/api/rooms'));
  return rooms.filter((r) => r.role === 'owner');
}

/**
 * Deletes the account and forgets the session (`deleted`), or, while the person owns rooms
 * (409 owns_rooms), the rooms to hand over or delete first, named as their list names them.
 */
export async function deleteAccount(
  password: string,
): Promise<{ deleted: true } | { deleted: false; rooms: { roomId: string; name: string | null }[] }> {
  // No password: an account of an identity provider, confirmed by a recent sign-in instead.
  return ok(api.DELETE('/api/auth/me', { body: password ? { password } : {} })).then(
    () => {
      session.signOut();
      return { deleted: true as const };
    },
    onRefusal('owns_rooms', async (error) => {
      const ids = ownedIds(error.details);
      const named = new Map((await ownedRooms()).map((r) => [r.roomId, r.name]));
      return { deleted: false as const, rooms: ids.map((roomId) => ({ roomId, name: named.get(roomId) ?? null })) };
    }),
  );
}

function ownedIds(details: unknown): string[] {
  const rooms = (details as { rooms?: unknown } | undefined)?.rooms;
  return Array.isArray(rooms) ? rooms.filter((id): id is string => typeof id === 'string') : [];
}
