import type { AccessChanges } from '../../auth/access-source.js';
import type { PasswordHasher } from '../../auth/passwords.js';
import type { SessionClaims, SessionKeys } from '../../auth/sessions.js';
import { isUniqueViolation } from '../../db/database.js';
import { normalizeEmail } from '../../emails.js';
import { conflict, invalidCredentials, invalidSession, notFound, unauthorized } from '../../errors.js';
import { newId } from '../../ids.js';
import { presentUser } from './users.presenter.js';
import type { RevokedSessionsRepository } from './revoked-sessions.repository.js';
import type { UserRow, UsersRepository } from './users.repository.js';

/** The account-state columns of a new user: enabled, not deleted, no session refused. */
export const ACTIVE_ACCOUNT = {
  disabled_at: null,
  deleted_at: null,
  sessions_not_before: null,
  provider_admin: 0,
  last_seen_at: null,
} as const;

/** Where invitations waiting for an address become memberships (the members module). */
export interface PendingInvitations {
  acceptPending(user: { userId: string; email: string; emailVerified: boolean }): Promise<unknown>;
}

/** Sends the link that proves an address (verification.service.ts). */
export interface AddressProof {
  send(user: UserRow): Promise<void>;
}

export interface UsersServiceParts {
  users: UsersRepository;
  invitations: PendingInvitations;
  sessions: SessionKeys;
  passwords: PasswordHasher;
  proof: AddressProof;
  revokedSessions: RevokedSessionsRepository;
  /** Where a logout is forgotten, here and on the other instances. */
  access: Pick<AccessChanges, 'forgetSession'>;
}

/** Built-in accounts (sign-up, log-in) and the users that external identity providers vouch for. */
export class UsersService {
  private readonly users: UsersRepository;
  private readonly invitations: PendingInvitations;
  private readonly sessions: SessionKeys;
  private readonly passwords: PasswordHasher;
  private readonly proof: AddressProof;
  private readonly revokedSessions: RevokedSessionsRepository;
  private readonly access: Pick<AccessChanges, 'forgetSession'>;

  constructor(parts: UsersServiceParts) {
    ({
      users: this.users,
      invitations: this.invitations,
      sessions: this.sessions,
      passwords: this.passwords,
      proof: this.proof,
      revokedSessions: this.revokedSessions,
      access: this.access,
    } = parts);
  }

  async signup(input: { email: string; password: string; name?: string }) {
    const now = Date.now();
    const user: UserRow = {
      id: newId('user'),
      email: normalizeEmail(input.email),
      name: input.name?.trim() || null,
      password_hash: await this.passwords.hash(input.password),
      created_at: now,
      email_verified_at: null,
      ...ACTIVE_ACCOUNT,
    };
    try {
      await this.users.insert(user);
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict('email_taken', 'An account with this e-mail already exists');
      throw error;
    }
    await this.proof.send(user);
    return this.signIn(user);
  }

  async login(input: { email: string; password: string }) {
    const user = await this.users.findByEmail(normalizeEmail(input.email));
    const valid = user?.password_hash
      ? await this.passwords.verify(input.password, user.password_hash)
      : await this.passwords.verifyNothing(input.password);
    if (!user || !valid) throw invalidCredentials();
    return this.signIn(user);
  }

  async me(userId: string) {
    const user = await this.users.findById(userId);
    if (!user) throw notFound('User');
    return { user: presentUser(user) };
  }

  /** Ends the session on every instance: its JWT is refused from now on, until it expires. */
  async logout(session: { id: string; expiresAt: number } | undefined): Promise<void> {
    if (!session) throw invalidSession();
    await this.revokedSessions.revoke(session.id, session.expiresAt);
    this.access.forgetSession(session.id);
  }

  /** Forgets the revocations of sessions that have expired since (an hourly sweep). */
  async sweepRevokedSessions(): Promise<void> {
    await this.revokedSessions.sweep();
  }

  /**
   * An external provider's user on their first request: recorded (or their e-mail updated),
   * and their invitations accepted when the provider vouches for the e-mail. A subject equal
   * to one of our own accounts, or an e-mail that belongs to one, is refused, never merged.
   */
  async externalSignIn(claims: SessionClaims): Promise<void> {
    const existing = await this.users.findById(claims.userId);
    if (existing?.password_hash) throw invalidSession();
    try {
      await this.users.ensureExternal(claims.userId, claims.email, Date.now(), claims.emailVerified);
    } catch (error) {
      if (isUniqueViolation(error)) throw unauthorized('This e-mail address belongs to another account');
      throw error;
    }
    await this.invitations.acceptPending({
      userId: claims.userId,
      email: claims.email,
      emailVerified: claims.emailVerified,
    });
  }

  /** Issues a session and accepts the invitations waiting for this e-mail, once it is verified. */
  private async signIn(user: UserRow) {
    await this.invitations.acceptPending({
      userId: user.id,
      email: user.email,
      emailVerified: user.email_verified_at !== null,
    });
    return { token: await this.sessions.issue(user), user: presentUser(user) };
  }
}
