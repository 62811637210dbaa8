import type { InstanceAdmins } from '../../auth/admins.js';
import { PasswordHasher } from '../../auth/passwords.js';
import type { SessionKeys } from '../../auth/sessions.js';
import type { Outbox } from '../../infra/mailer.js';
import { defineDomain, type DomainCore, HOUR_MS, routes } from '../domain/domain.js';
import type { MembersRepository } from '../members/members.repository.js';
import type { TokensRepository } from '../tokens/tokens.repository.js';
import { AccountChanges } from './account-changes.service.js';
import { AccountHolders } from './account-holders.js';
import { accountRoutes } from './account.routes.js';
import { ActorNames } from './actor-names.js';
import { PasswordReset } from './password-reset.service.js';
import { PasswordResetsRepository } from './password-resets.repository.js';
import { RevokedSessionsRepository } from './revoked-sessions.repository.js';
import { SignupPolicy } from './signup-policy.js';
import { usersRoutes } from './users.routes.js';
import { UsersRepository } from './users.repository.js';
import { type PendingInvitations, UsersService } from './users.service.js';
import { EmailVerification } from './verification.service.js';

export interface UsersDomainParts {
  sessions: SessionKeys;
  admins: InstanceAdmins;
  outbox: Outbox;
  publicUrl: string;
  /** The members' rooms and invitations (an account's rooms, the invitations a new account accepts). */
  members: MembersRepository;
  invitations: PendingInvitations;
  /** Deletes a room entirely (the rooms service's delete), for an account deleted with its rooms. */
  deleteRoom(roomId: string): Promise<void>;
  /** The tokens, whose names stand for their actors. */
  tokens: TokensRepository;
}

/** Accounts: sign-up, sessions, address proof, password resets and changes, and their actors' names. */
export function usersDomain(core: DomainCore, parts: UsersDomainParts) {
  const { db, config, access } = core;
  const { sessions, admins, outbox, publicUrl, members, invitations } = parts;
  const users = new UsersRepository(db);
  const holders = new AccountHolders(users, access);
  const passwords = new PasswordHasher(config.passwordHashCost);
  const verification = new EmailVerification(users, outbox, invitations, {
    publicUrl,
    resendIntervalMs: config.verificationResendSeconds * 1000,
  });
  const service = new UsersService({
    users,
    invitations,
    sessions,
    passwords,
    proof: verification,
    revokedSessions: new RevokedSessionsRepository(db),
    access,
    policy: new SignupPolicy(config, members),
    rooms: {
      owned: (userId) => members.ownedBy(userId),
      deleteRoom: parts.deleteRoom,
      leaveAll: (userId) => members.removeAllOf(userId),
    },
    holders,
    config,
  });
  const passwordReset = new PasswordReset({
    users,
    resets: new PasswordResetsRepository(db),
    passwords,
    outbox,
    invitations,
    publicUrl,
    config,
    holders,
  });
  const rateLimitPerMinute = config.authRateLimitPerMinute;
  return defineDomain(
    {
      name: 'users',
      routes: [
        routes(usersRoutes, {
          users: service,
          isAdmin: async (userId: string) => {
            const user = await users.findById(userId);
            return user !== undefined && admins.isAdmin(user);
          },
          verification,
          rateLimitPerMinute,
        }),
        routes(accountRoutes, {
          users: service,
          reset: passwordReset,
          changes: new AccountChanges(users, passwords, verification, holders),
          rateLimitPerMinute,
        }),
      ],
      sweeps: [
        { name: 'revocations of expired sessions', everyMs: HOUR_MS, run: () => service.sweepRevokedSessions() },
        { name: 'old password-reset links', everyMs: HOUR_MS, run: () => passwordReset.sweep() },
      ],
    },
    { users, service, passwordReset, holders, names: new ActorNames(users, parts.tokens) },
  );
}
