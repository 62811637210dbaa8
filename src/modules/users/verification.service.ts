import { randomBytes } from 'node:crypto';
import { conflict, forbidden, invalidVerificationToken, notFound, tooManyRequests } from '../../errors.js';
import { isUniqueViolation } from '../../db/database.js';
import { sha256 } from '../../ids.js';
import type { Outbox } from '../../infra/mailer.js';
import { greeting, mailTexts } from '../../infra/mail-texts.js';
import { presentUser } from './users.presenter.js';
import type { UserRow, UsersRepository } from './users.repository.js';
import type { PendingInvitations } from './users.service.js';

/** A verification link is good for this long, and once: fixed, the e-mail tells the reader a day. */
export const LINK_LIFETIME_MS = 24 * 3600 * 1000;
/** "within 24 hours", in the mail's language. */
const within = (t: ReturnType<typeof mailTexts>) => t('withinHours', { count: LINK_LIFETIME_MS / 3600_000 });

/** Where links lead, and how often one account may ask for a new one (VERIFICATION_RESEND_SECONDS). */
export interface VerificationLinks {
  publicUrl: string;
  resendIntervalMs: number;
}

/**
 * Proof that a built-in account owns its e-mail address: a link with a single-use secret,
 * kept only as a hash, valid for 24 hours. Only a verified address accepts invitations.
 */
export class EmailVerification {
  constructor(
    private readonly users: UsersRepository,
    private readonly outbox: Outbox,
    private readonly invitations: PendingInvitations,
    private readonly links: VerificationLinks,
  ) {}

  /** Makes a new link for the user's address and e-mails it. */
  async send(user: UserRow): Promise<void> {
    const secret = randomBytes(32).toString('base64url');
    const now = Date.now();
    await this.users.insertVerification({
      token_hash: sha256(secret),
      user_id: user.id,
      email: user.email,
      created_at: now,
      expires_at: now + LINK_LIFETIME_MS,
      purpose: 'verify',
    });
    const link = `${this.links.publicUrl}/verify-email?token=${secret}`;
    const t = mailTexts(user.locale);
    this.outbox.post({
      to: user.email,
      subject: t('verify.subject'),
      text: greeting(t, user.name) + t('verify.text', { email: user.email, link, within: within(t) }),
    });
  }

  /**
   * Makes a link that moves the account to `email` once followed (`purpose: change`), mails it
   * there, and tells the account's present address that a change was asked for.
   */
  async sendChange(user: UserRow, email: string): Promise<void> {
    const secret = randomBytes(32).toString('base64url');
    const now = Date.now();
    await this.users.insertVerification({
      token_hash: sha256(secret),
      user_id: user.id,
      email,
      created_at: now,
      expires_at: now + LINK_LIFETIME_MS,
      purpose: 'change',
    });
    const link = `${this.links.publicUrl}/verify-email?token=${secret}`;
    const t = mailTexts(user.locale);
    const addresses = { oldEmail: user.email, newEmail: email };
    this.outbox.post({
      to: email,
      subject: t('changeConfirm.subject'),
      text: greeting(t, user.name) + t('changeConfirm.text', { ...addresses, link, within: within(t) }),
    });
    this.outbox.post({
      to: user.email,
      subject: t('changeAsked.subject'),
      text: greeting(t, user.name) + t('changeAsked.text', addresses),
    });
  }

  /**
   * Follows a link: the address is verified (or, for a change, the account moves to the new
   * address, verified, and the old one is told), its links are spent, invitations are accepted.
   */
  async verify(secret: string) {
    const row = await this.users.findVerification(sha256(secret));
    const found = row && row.expires_at > Date.now() ? await this.users.findById(row.user_id) : undefined;
    // A disabled account's links do nothing until it is enabled again.
    const user = found?.deleted_at === null && found.disabled_at === null ? found : undefined;
    if (!row || !user) throw invalidVerificationToken();
    if (row.purpose === 'change') return this.change(user, row.email);
    // A link made for an address the account no longer has proves nothing.
    if (user.email !== row.email) throw invalidVerificationToken();
    const now = Date.now();
    if (user.email_verified_at === null) await this.users.markVerified(user.id, now);
    await this.users.deleteVerifications(user.id, 'verify');
    const verified = { ...user, email_verified_at: user.email_verified_at ?? now };
    await this.invitations.acceptPending({ userId: user.id, email: user.email, emailVerified: true });
    return { success: true, user: presentUser(verified) };
  }

  /** The account moves to the address the followed link proved (409 email_taken when another account took it since). */
  private async change(user: UserRow, email: string) {
    const now = Date.now();
    try {
      await this.users.changeEmail(user.id, email, now);
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict('email_taken', 'Another account has this e-mail address now');
      throw error;
    }
    const t = mailTexts(user.locale);
    this.outbox.post({
      to: user.email,
      subject: t('changed.subject'),
      text: greeting(t, user.name) + t('changed.text', { newEmail: email }),
    });
    await this.invitations.acceptPending({ userId: user.id, email, emailVerified: true });
    return { success: true, user: presentUser({ ...user, email, email_verified_at: now }) };
  }

  /** A new link, at most once per interval (a minute by default; 429 with Retry-After otherwise). */
  async resend(userId: string) {
    const user = await this.users.findById(userId);
    if (!user) throw notFound('User');
    if (!user.password_hash) throw forbidden("This account's address is confirmed by its identity provider");
    if (user.email_verified_at !== null) throw conflict('already_verified', 'This e-mail address is already confirmed');
    const last = await this.users.lastVerificationAt(user.id);
    const wait = last === null ? 0 : last + this.links.resendIntervalMs - Date.now();
    if (wait > 0) throw tooManyRequests(Math.ceil(wait / 1000));
    await this.send(user);
    return { success: true };
  }
}
