import { useState } from 'preact/hooks';
import { api, ok } from '../api/client';
import type { MyInvitation } from '../api/types';
import { session } from '../session';
import { InlineError, useInlineError } from '../ui/inline-error';
import { t } from '../i18n/index.js';

/** A role in a room, in words (the service's role names; another, unknown here, as it is). */
export function roleName(role: string): string {
  switch (role) {
    case 'owner':
      return t('auth:role.owner');
    case 'editor':
      return t('auth:role.editor');
    case 'viewer':
      return t('auth:role.viewer');
    default:
      return role;
  }
}

/** Reads the signed-in user again (the address may have been confirmed in another tab since sign-in). */
export async function refreshUser() {
  if (!session.get().token) return null;
  const { user } = await ok(api.GET('/api/auth/me'));
  session.withUser(user);
  return user;
}

/** The invitation to a room that waits for the signed-in user, if any (and the user read again). */
export async function myInvitationTo(roomId: string): Promise<MyInvitation | undefined> {
  const [{ invitations }] = await Promise.all([ok(api.GET('/api/users/pending-invitations')), refreshUser()]);
  return invitations.find((i) => i.roomId === roomId);
}

/**
 * An address not yet confirmed: says why invitations wait, names the address the link went to,
 * and sends a new link on request (at most one a minute; the service says when to try again).
 */
export function ConfirmAddress({ email, invitedTo }: { email: string; invitedTo?: MyInvitation }) {
  const { error, attempt } = useInlineError({
    409: t('auth:confirm.alreadyConfirmed'),
  });
  const [sent, setSent] = useState(false);
  const resend = async () => {
    setSent(false);
    if (await attempt(() => ok(api.POST('/api/auth/resend-verification')))) setSent(true);
  };
  return (
    <section class="note" aria-labelledby="confirm-address" data-testid="confirm-address">
      <h2 id="confirm-address">{t('auth:confirm.title')}</h2>
      {invitedTo && (
        <p>
          {t('auth:confirm.invitedTo', {
            room: invitedTo.roomName ?? invitedTo.roomId,
            role: roleName(invitedTo.role),
          })}
        </p>
      )}
      <p>
        {t('auth:confirm.leadBefore')} <strong>{email}</strong>
        {t('auth:confirm.leadAfter')}
      </p>
      <button type="button" onClick={resend}>
        {t('auth:confirm.resend')}
      </button>
      {sent && <p role="status">{t('auth:confirm.sent', { email })}</p>}
      <InlineError message={error} />
    </section>
  );
}

/** The room page for a signed-in person invited to a private room: confirm the address, or accept. */
export function RoomInvitation({ invitation, onAccepted }: { invitation: MyInvitation; onAccepted: () => void }) {
  const user = session.get().user;
  const { error, attempt } = useInlineError();
  if (!user?.emailVerified) return <ConfirmAddress email={user?.email ?? ''} invitedTo={invitation} />;
  const accept = async () => {
    const path = { params: { path: { roomId: invitation.roomId } } };
    if (await attempt(() => ok(api.POST('/api/rooms/{roomId}/accept-invitation', path)))) onAccepted();
  };
  return (
    <section aria-labelledby="invitation">
      <h2 id="invitation">{t('auth:invitation.title')}</h2>
      <p>
        {t('auth:invitation.lead', { role: roleName(invitation.role) })}{' '}
        <button type="button" onClick={accept}>
          {t('auth:invitation.accept')}
        </button>
      </p>
      <InlineError message={error} />
    </section>
  );
}
