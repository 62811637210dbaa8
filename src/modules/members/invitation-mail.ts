import { mailTexts } from '../../infra/mail-texts.js';
import type { Mail } from '../../infra/mailer.js';

/**
 * The e-mail that tells someone about a room they were invited to or added to, in `locale`
 * (the invitee's language when the address has an account, else the inviter's; null: English).
 */
export function invitationMail(input: {
  to: string;
  roomId: string;
  roomName: string | null;
  role: string;
  inviterEmail: string;
  added: boolean;
  publicUrl: string;
  locale: string | null;
}): Mail {
  const t = mailTexts(input.locale);
  const values = {
    inviter: input.inviterEmail,
    room: input.roomName ? t('invitation.room', { name: input.roomName }) : input.roomId,
    role: t(`invitation.role.${input.role}`, { defaultValue: input.role }),
    email: input.to,
    link: `${input.publicUrl}/r/${input.roomId}`,
  };
  return input.added
    ? { to: input.to, subject: t('invitation.addedSubject', values), text: t('invitation.addedText', values) }
    : { to: input.to, subject: t('invitation.invitedSubject', values), text: t('invitation.invitedText', values) };
}
