import { useState } from 'preact/hooks';
import { api, ok } from '../api/client';
import type { MyInvitation } from '../api/types';
import { session } from '../session';
import { InlineError, useInlineError } from '../ui/inline-error';

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
    409: 'Your address is already confirmed: reload the page to accept your invitations.',
  });
  const [sent, setSent] = useState(false);
  const resend = async () => {
    setSent(false);
    if (await attempt(() => ok(api.POST('/api/auth/resend-verification')))) setSent(true);
  };
  return (
    <section class="note" aria-labelledby="confirm-address" data-testid="confirm-address">
      <h2 id="confirm-address">Confirm your e-mail address</h2>
      {invitedTo && (
        <p>
          You are invited to {invitedTo.roomName ?? invitedTo.roomId} as {invitedTo.role}.
        </p>
      )}
      <p>
        Confirm your e-mail address first; we sent a link to <strong>{email}</strong>. Your invitations open as soon as
        you follow it.
      </p>
      <button type="button" onClick={resend}>
        Resend the confirmation e-mail
      </button>
      {sent && <p role="status">A new link is on its way to {email}.</p>}
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
      <h2 id="invitation">You are invited</h2>
      <p>
        You are invited to this room as {invitation.role}.{' '}
        <button type="button" onClick={accept}>
          Accept the invitation
        </button>
      </p>
      <InlineError message={error} />
    </section>
  );
}
