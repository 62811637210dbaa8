import type { Mail } from '../../infra/mailer.js';

/** The e-mail that tells someone about a room they were invited to or added to. */
export function invitationMail(input: {
  to: string;
  roomId: string;
  roomName: string | null;
  role: string;
  inviterEmail: string;
  added: boolean;
  publicUrl: string;
}): Mail {
  const room = input.roomName ? `"${input.roomName}"` : input.roomId;
  const link = `${input.publicUrl}/r/${input.roomId}`;
  const what = input.added ? 'added you to' : 'invited you to';
  const next = input.added
    ? 'You can open it now.'
    : `To join, sign in (or sign up) with this address, ${input.to}, and confirm the address when Maproom asks; ` +
      'the invitation then becomes your membership.';
  return {
    to: input.to,
    subject: `${input.inviterEmail} ${what} the map room ${room}`,
    text: `${input.inviterEmail} ${what} the map room ${room} on Maproom as ${input.role}.\n\n${next}\n\n${link}\n`,
  };
}
