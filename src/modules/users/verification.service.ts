import { randomBytes } from 'node:crypto';
import { conflict, forbidden, invalidVerificationToken, notFound, tooManyRequests } from '../../errors.js';
import { isUniqueViolation } from '../../db/database.js';
import { sha256 } from '../../ids.js';
import type { Outbox } from '../../infra/mailer.js';
import { presentUser } from './users.presenter.js';
import type { UserRow, UsersRepository } from './users.repository.js';
import type { PendingInvitations } from './users.service.js';

/** A verification link is good for this long, and once: fixed, the e-mail tells the reader a day. */
export const LINK_LIFETIME_MS = 24 * 3600 * 1000;
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
    this.outbox.post({
      to: user.email,
      subject: 'Confirm your e-mail address for Maproom',
      text:
        `Hello${user.name ? ` ${user.name}` : ''},\n\n` +
        `please confirm that ${user.email} is your address by opening this link within 24 hours:\n\n${link}\n\n` +
        'Rooms you are invited to open to you once the address is confirmed.\n' +
        'If you did not sign up for Maproom, ignore this message.\n',
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
    this.outbox.post({
      to: email,
      subject: 'Confirm your new e-mail address for Maproom',
      text:
        `Hello${user.name ? ` ${user.name}` : ''},\n\n` +
        `your Maproom account is to move from ${user.email} to ${email}. Open this link within 24 hours to confirm it:\n\n` +
        `${link}\n\nIf you did not ask for this, ignore this message: nothing changes.\n`,
    });
    this.outbox.post({
      to: user.email,
      subject: 'A change of your Maproom e-mail address was asked for',
      text:
        `Hello${user.name ? ` ${user.name}` : ''},\n\n` +
        `someone signed in to your Maproom account asked to change its address from ${user.email} to ${email}. ` +
        'The change happens only once the new address confirms it.\n' +
        'If this was not you, change your password now: the request needed it.\n',
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
    this.outbox.post({
      to: user.email,
      subject: 'Your Maproom e-mail address was changed',
      text:
        `Hello${user.name ? ` ${user.name}` : ''},\n\n` +
        `your Maproom account now uses ${email} instead of this address.\n` +
        'If this was not you, ask the administrator of this Maproom for help.\n',
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
