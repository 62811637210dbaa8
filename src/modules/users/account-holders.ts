import type { AccessChanges } from '../../auth/access-source.js';
import type { Updateable } from 'kysely';
import type { UsersTable } from '../../db/tables.js';
import type { UsersRepository } from './users.repository.js';

/**
 * Ends everything an account's past holders may still have, whenever the account changes hands
 * or is shut: its sessions issued before now (but the one `keep` names), its pending e-mail-change
 * and password-reset links and, when it is claimed by the address's owner, the room tokens it
 * created; then open live sockets on every instance check their credential again.
 */
export class AccountHolders {
  constructor(
    private readonly users: Pick<UsersRepository, 'endPastHolders'>,
    private readonly access: Pick<AccessChanges, 'forgetTokens'>,
  ) {}

  /** After a password reset or change (`keep`: the session that changed it) or a disable. */
  async end(
    userId: string,
    changes: Omit<Updateable<UsersTable>, 'sessions_not_before' | 'sessions_kept'>,
    keep: string | null = null,
  ): Promise<void> {
    await this.users.endPastHolders(userId, { ...changes, sessions_not_before: Date.now(), sessions_kept: keep });
    this.access.forgetTokens();
  }

  /**
   * The identity provider vouches for the address of an account that never proved it: the
   * address is proven now, and whoever made the account with a password they chose loses it,
   * with every session, link and room token it had, and the language it chose for the mails
   * (an account made in someone else's name is not taken over). Nothing changes when the
   * address was proven meanwhile.
   */
  async claimUnproven(userId: string, at: number): Promise<void> {
    const claimed = await this.users.endPastHolders(
      userId,
      { email_verified_at: at, password_hash: null, locale: null, sessions_not_before: at, sessions_kept: null },
      { roomTokens: true, onlyUnproven: true },
    );
    if (claimed) this.access.forgetTokens();
  }
}
