import type { Caller } from '../../auth/access.js';
import { accountRefuses } from '../../auth/authenticator.js';
import type { AccessChanges } from '../../auth/access-source.js';
import type { PasswordHasher } from '../../auth/passwords.js';
import type { SessionClaims, SessionKeys } from '../../auth/sessions.js';
import type { Config } from '../../config.js';
import { isUniqueViolation } from '../../db/database.js';
import { normalizeEmail } from '../../emails.js';
import {
  accountDisabled,
  conflict,
  forbidden,
  invalidCredentials,
  invalidSession,
  localAccountsOff,
  notFound,
  ownsRooms,
  reauthenticationRequired,
  sessionMaxAge,
  unauthorized,
  wrongPassword,
} from '../../errors.js';
import { madeByNewId, newId } from '../../ids.js';
import { isLocale, type Locale } from '../../locales.js';
import type { AccountHolders } from './account-holders.js';
import { presentUser } from './users.presenter.js';
import type { RevokedSessionsRepository } from './revoked-sessions.repository.js';
import type { SignupPolicy } from './signup-policy.js';
import { ACTIVE_ACCOUNT, type UserRow, type UsersRepository } from './users.repository.js';

/** The account-state columns of a new user (kept by the repository). */
export { ACTIVE_ACCOUNT };

/** Where invitations waiting for an address become memberships (the members module). */
export interface PendingInvitations {
  acceptPending(user: { userId: string; email: string; emailVerified: boolean }): Promise<unknown>;
}

/** Sends the link that proves an address (verification.service.ts). */
export interface AddressProof {
  send(user: UserRow): Promise<void>;
}

/** The rooms of an account, as its deletion needs them (the members and rooms modules, given by app.ts). */
export interface AccountRooms {
  /** The ids of the rooms the user owns. */
  owned(userId: string): Promise<string[]>;
  /** Deletes a room entirely (the rooms service's delete). */
  deleteRoom(roomId: string): Promise<void>;
  /** Ends every membership of the user; answers the rooms they were in. */
  leaveAll(userId: string): Promise<string[]>;
}

export interface UsersServiceParts {
  users: UsersRepository;
  invitations: PendingInvitations;
  sessions: SessionKeys;
  passwords: PasswordHasher;
  proof: AddressProof;
  revokedSessions: RevokedSessionsRepository;
  /** Where a change of access is forgotten, here and on the other instances. */
  access: Pick<AccessChanges, 'forgetSession' | 'forgetTokens' | 'forgetRoom'>;
  policy: Pick<SignupPolicy, 'check'>;
  rooms: AccountRooms;
  holders: Pick<AccountHolders, 'end'>;
  config: Pick<Config, 'localAccounts' | 'sessionTtlSeconds' | 'sessionMaxAgeSeconds' | 'freshSignInSeconds'>;
}

type UserCaller = Extract<Caller, { kind: 'user' }>;

/**
 * Built-in accounts (sign-up, log-in, renewal, deletion), the users that external identity
 * providers vouch for, and the account states an admin sets (disabled).
 */
export class UsersService {
  private readonly users: UsersRepository;
  private readonly invitations: PendingInvitations;
  private readonly sessions: SessionKeys;
  private readonly passwords: PasswordHasher;
  private readonly proof: AddressProof;
  private readonly revokedSessions: RevokedSessionsRepository;
  private readonly access: UsersServiceParts['access'];
  private readonly policy: UsersServiceParts['policy'];
  private readonly rooms: AccountRooms;
  private readonly holders: UsersServiceParts['holders'];
  private readonly config: UsersServiceParts['config'];

  constructor(parts: UsersServiceParts) {
    ({
      users: this.users,
      invitations: this.invitations,
      sessions: this.sessions,
      passwords: this.passwords,
      proof: this.proof,
      revokedSessions: this.revokedSessions,
      access: this.access,
      policy: this.policy,
      rooms: this.rooms,
      holders: this.holders,
      config: this.config,
    } = parts);
  }

  async signup(input: { email: string; password: string; name?: string; locale?: Locale }) {
    if (this.config.localAccounts === 'off') throw localAccountsOff();
    const email = normalizeEmail(input.email);
    await this.policy.check(email);
    const now = Date.now();
    const user: UserRow = {
      id: newId('user'),
      email,
      name: input.name?.trim() || null,
      password_hash: await this.passwords.hash(input.password),
      created_at: now,
      email_verified_at: null,
      locale: input.locale ?? null,
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

  /** A disabled account hears so only once its password checked out: without it, nothing is learnt. */
  async login(input: { email: string; password: string }) {
    if (this.config.localAccounts === 'off') throw localAccountsOff();
    const user = await this.users.findByEmail(normalizeEmail(input.email));
    const valid = user?.password_hash
      ? await this.passwords.verify(input.password, user.password_hash)
      : await this.passwords.verifyNothing(input.password);
    if (!user || !valid || user.deleted_at !== null) throw invalidCredentials();
    if (user.disabled_at !== null) throw accountDisabled();
    return this.signIn(user);
  }

  async me(userId: string) {
    const user = await this.users.findById(userId);
    if (!user) throw notFound('User');
    return { user: { ...presentUser(user), locale: isLocale(user.locale) ? user.locale : null } };
  }

  /** Sets the language of the signed-in user's e-mails (null: English again). */
  async setLocale(caller: UserCaller, locale: Locale | null): Promise<void> {
    const user = await this.users.findById(caller.userId);
    if (!user || user.deleted_at !== null) throw invalidSession();
    await this.users.setLocale(user.id, locale);
  }

  /**
   * A new JWT of the same session (same id: logging out ends both) with a full lifetime and
   * the same sign-in time. The authenticator already refused a revoked, expired, disabled or
   * cut-off session; the account is checked again after it is read, so that a renewal that
   * passed just before a cut-off or a disable is not signed after it. A session signed in more
   * than SESSION_MAX_AGE_SECONDS ago is not renewed (403 session_max_age): it expires.
   */
  async renew(caller: UserCaller) {
    const session = caller.session;
    if (!session) throw invalidSession();
    if (session.external) throw forbidden('Sessions of an external identity provider are renewed by the provider');
    const user = await this.users.findById(caller.userId);
    if (!user || accountRefuses(user, { sessionId: session.id, signedInAtMs: session.signedInAt }))
      throw invalidSession();
    if (Date.now() >= session.signedInAt + this.config.sessionMaxAgeSeconds * 1000) throw sessionMaxAge();
    const token = await this.sessions.issue(user, { sessionId: session.id, signedInAtMs: session.signedInAt });
    return { token, user: presentUser(user) };
  }

  /**
   * Ends the session on every instance: its JWT is refused from now on. The revocation is kept
   * as long as any JWT of the session may live (a renewal made one until now + the lifetime).
   */
  async logout(session: { id: string; expiresAt: number } | undefined): Promise<void> {
    if (!session) throw invalidSession();
    const until = Math.max(session.expiresAt, Date.now() + this.config.sessionTtlSeconds * 1000);
    await this.revokedSessions.revoke(session.id, until);
    this.access.forgetSession(session.id);
  }

  /** Forgets the revocations of sessions that have expired since (an hourly sweep). */
  async sweepRevokedSessions(): Promise<void> {
    await this.revokedSessions.sweep();
  }

  /**
   * Disables or enables an account (404 for an unknown or deleted one). Disabled, its sessions
   * and the room tokens it created are refused on every instance at once, and it cannot sign
   * in; enabled again, its tokens work again but its sessions from before stay ended.
   */
  async setDisabled(userId: string, disabled: boolean): Promise<UserRow> {
    const user = await this.users.findById(userId);
    if (!user || user.deleted_at !== null) throw notFound('User');
    if (disabled) await this.holders.end(userId, { disabled_at: user.disabled_at ?? Date.now() });
    else await this.users.update(userId, { disabled_at: null });
    this.access.forgetTokens();
    return (await this.users.findById(userId))!;
  }

  /**
   * The account deletes itself: with its password, or, without one (an identity provider's
   * account), with a session signed in within FRESH_SIGN_IN_SECONDS. Owned rooms are refused.
   */
  async deleteOwn(caller: UserCaller, password: string | undefined): Promise<void> {
    const user = await this.users.findById(caller.userId);
    if (!user || user.deleted_at !== null) throw invalidSession();
    if (user.password_hash) {
      const valid = password !== undefined && (await this.passwords.verify(password, user.password_hash));
      if (!valid) throw wrongPassword();
    } else {
      const fresh = (caller.session?.signedInAt ?? 0) >= Date.now() - this.config.freshSignInSeconds * 1000;
      if (!fresh) throw reauthenticationRequired(Math.max(1, Math.round(this.config.freshSignInSeconds / 60)));
    }
    await this.deleteAccount(user.id, { ownedRooms: 'refuse' });
  }

  /**
   * Deletes an account (404 for an unknown or deleted one). The row stays as a tombstone that
   * names its past work (actor-names.ts); its address, password, memberships and pending links
   * go, and its sessions and the room tokens it created stop on every instance at once. Rooms it
   * owns: 409 owns_rooms (`refuse`), or deleted with it (`delete`).
   */
  async deleteAccount(userId: string, options: { ownedRooms: 'refuse' | 'delete' }): Promise<void> {
    const user = await this.users.findById(userId);
    if (!user || user.deleted_at !== null) throw notFound('User');
    const owned = await this.rooms.owned(userId);
    if (owned.length > 0 && options.ownedRooms === 'refuse') throw ownsRooms(owned);
    for (const roomId of owned) await this.rooms.deleteRoom(roomId);
    await this.users.tombstone(userId, Date.now());
    this.access.forgetTokens();
    for (const roomId of await this.rooms.leaveAll(userId)) this.access.forgetRoom(roomId);
  }

  /**
   * An external provider's user on their first request: recorded (or their e-mail updated),
   * and their invitations accepted when the provider vouches for the e-mail. A subject of the
   * form of the ids this service makes (`user-` and 16 characters: password, identity-provider
   * and claimed accounts alike, with or without a password), or an e-mail that belongs to one of
   * our accounts, is refused, never merged; so is a deleted account's. A new user is subject to
   * the sign-up policy (403 signup_closed).
   */
  async externalSignIn(claims: SessionClaims): Promise<void> {
    if (madeByNewId('user', claims.userId)) throw invalidSession();
    const existing = await this.users.findById(claims.userId);
    if (existing?.password_hash || existing?.deleted_at != null) throw invalidSession();
    // A first sign-in makes an account: the sign-up policy decides, as for a sign-up.
    if (!existing) await this.policy.check(claims.email);
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
