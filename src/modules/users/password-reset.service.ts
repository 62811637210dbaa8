import { randomBytes } from 'node:crypto';
import type { PasswordHasher } from '../../auth/passwords.js';
import type { Config } from '../../config.js';
import { normalizeEmail } from '../../emails.js';
import { forbidden, invalidResetToken, localAccountsOff, notFound } from '../../errors.js';
import { sha256 } from '../../ids.js';
import type { Outbox } from '../../infra/mailer.js';
import { greeting, mailTexts } from '../../infra/mail-texts.js';
import type { AccountHolders } from './account-holders.js';
import type { PasswordResetsRepository } from './password-resets.repository.js';
import type { UserRow, UsersRepository } from './users.repository.js';
import type { PendingInvitations } from './users.service.js';

/** A reset link is good for this long, and once (the interface's promise, not a setting). */
export const RESET_LINK_LIFETIME_MS = 30 * 60 * 1000;
const HOUR_MS = 3600 * 1000;

export interface PasswordResetParts {
  users: UsersRepository;
  resets: PasswordResetsRepository;
  passwords: PasswordHasher;
  outbox: Outbox;
  invitations: PendingInvitations;
  publicUrl: string;
  config: Pick<Config, 'localAccounts' | 'passwordResetsPerAddressPerHour'>;
  /** Ends the sessions and pending links of the account's past holders. */
  holders: Pick<AccountHolders, 'end'>;
}

/**
 * Forgotten passwords: a single-use link, valid 30 minutes, e-mailed to the account's address;
 * its secret is kept only as a SHA-256 hash. Asking answers the same whether or not the address
 * has an account, after the same work (one read of the account, one count and one insert), so
 * that neither the answer nor its timing tells who has an account here.
 */
export class PasswordReset {
  private readonly parts: PasswordResetParts;

  constructor(parts: PasswordResetParts) {
    this.parts = parts;
  }

  /**
   * Mails a link when the address has an enabled account with a password and got fewer than
   * PASSWORD_RESETS_PER_ADDRESS_PER_HOUR mails this hour; otherwise nothing, with the same answer.
   */
  async request(email: string): Promise<Record<string, never>> {
    const { users, resets, config } = this.parts;
    if (config.localAccounts === 'off') throw localAccountsOff();
    const address = normalizeEmail(email);
    const now = Date.now();
    const secret = randomBytes(32).toString('base64url');
    const emailHash = sha256(address);
    const [user, recent] = await Promise.all([users.findByEmail(address), resets.countSince(emailHash, now - HOUR_MS)]);
    const mailed =
      user !== undefined &&
      user.password_hash !== null &&
      user.deleted_at === null &&
      user.disabled_at === null &&
      recent < config.passwordResetsPerAddressPerHour;
    // Written for every request: the limit counts requests for unknown addresses too.
    await resets.insert({
      token_hash: sha256(secret),
      email_hash: emailHash,
      user_id: mailed ? user.id : null,
      created_at: now,
      expires_at: now + RESET_LINK_LIFETIME_MS,
    });
    if (mailed) this.mail(user, secret);
    return {};
  }

  /**
   * A link for this account sent by an instance admin (no limit): 404 for a deleted account,
   * 403 for one without a password (its identity provider signs it in).
   */
  async sendTo(user: UserRow): Promise<Record<string, never>> {
    if (user.deleted_at !== null) throw notFound('User');
    if (user.password_hash === null)
      throw forbidden('This account signs in through its identity provider: it has no password to reset');
    const now = Date.now();
    const secret = randomBytes(32).toString('base64url');
    await this.parts.resets.insert({
      token_hash: sha256(secret),
      email_hash: sha256(user.email),
      user_id: user.id,
      created_at: now,
      expires_at: now + RESET_LINK_LIFETIME_MS,
    });
    this.mail(user, secret);
    return {};
  }

  /**
   * Follows a link: the password is set, every reset link of the account is spent, the address
   * counts as verified (the link proved it), and every session of the account ends on every
   * instance (sessions issued before now are refused: the authenticator reads the account on
   * each request). 400 invalid_token for an unknown, used or expired link.
   */
  async confirm(token: string, password: string): Promise<void> {
    const { users, resets, passwords, invitations, config } = this.parts;
    if (config.localAccounts === 'off') throw localAccountsOff();
    const now = Date.now();
    const link = await resets.find(sha256(token));
    const user = link && link.expires_at > now && link.user_id ? await users.findById(link.user_id) : undefined;
    if (!user || user.deleted_at !== null || user.disabled_at !== null) throw invalidResetToken();
    // Spent first, so that the same link used twice at once sets the password only once.
    if (!(await resets.spend(sha256(token)))) throw invalidResetToken();
    const hash = await passwords.hash(password);
    // Every session issued before now ends, and every pending link (reset, e-mail change) goes.
    // An address proven only now forgets the language whoever made the account chose.
    await this.parts.holders.end(user.id, {
      password_hash: hash,
      email_verified_at: user.email_verified_at ?? Date.now(),
      ...(user.email_verified_at === null && { locale: null }),
    });
    await invitations.acceptPending({ userId: user.id, email: user.email, emailVerified: true });
  }

  /** Forgets links and requests older than an hour (the limit's window; links live 30 minutes). */
  async sweep(): Promise<void> {
    await this.parts.resets.sweep(Date.now() - HOUR_MS);
  }

  private mail(user: UserRow, secret: string) {
    const link = `${this.parts.publicUrl}/reset-password?token=${secret}`;
    const t = mailTexts(user.locale);
    const within = t('withinMinutes', { count: RESET_LINK_LIFETIME_MS / 60_000 });
    this.parts.outbox.post({
      to: user.email,
      subject: t('reset.subject'),
      text: greeting(t, user.name) + t('reset.text', { email: user.email, link, within }),
    });
  }
}
