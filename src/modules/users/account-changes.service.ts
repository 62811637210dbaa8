import type { Caller } from '../../auth/access.js';
import type { PasswordHasher } from '../../auth/passwords.js';
import { normalizeEmail } from '../../emails.js';
import { forbidden, invalidField, invalidSession, wrongPassword } from '../../errors.js';
import type { AccountHolders } from './account-holders.js';
import type { UserRow, UsersRepository } from './users.repository.js';

type UserCaller = Extract<Caller, { kind: 'user' }>;

/** Makes the link that moves an account to a new address (verification.service.ts). */
export interface AddressChangeProof {
  sendChange(user: UserRow, email: string): Promise<void>;
}

/**
 * What a signed-in person changes about their own account, confirmed by the current password:
 * the password (the other sessions end, this one stays) and the e-mail address (moved once the
 * new address follows its link). A wrong password is 403 wrong_password, never 401, which the
 * web app reads as an ended session.
 */
export class AccountChanges {
  constructor(
    private readonly users: UsersRepository,
    private readonly passwords: PasswordHasher,
    private readonly proof: AddressChangeProof,
    /** Ends the other sessions and the pending links of the account. */
    private readonly holders: Pick<AccountHolders, 'end'>,
  ) {}

  async changePassword(caller: UserCaller, input: { currentPassword: string; newPassword: string }): Promise<void> {
    const user = await this.withPassword(
      caller,
      input.currentPassword,
      'This account signs in through its identity provider: it has no password to change',
    );
    const hash = await this.passwords.hash(input.newPassword);
    // Every session issued before now ends on every instance, except the one that asked, and
    // every pending link (reset, e-mail change) goes.
    await this.holders.end(user.id, { password_hash: hash }, caller.session?.id ?? null);
  }

  async changeEmail(caller: UserCaller, input: { email: string; password: string }): Promise<Record<string, never>> {
    const user = await this.withPassword(
      caller,
      input.password,
      "This account's address belongs to its identity provider: change it there",
    );
    const email = normalizeEmail(input.email);
    if (email === user.email) throw invalidField('body.email', 'is already the address of this account');
    await this.proof.sendChange(user, email);
    return {};
  }

  /** The caller's account once its password checked out (403 without one, with `noPassword`). */
  private async withPassword(caller: UserCaller, password: string, noPassword: string): Promise<UserRow> {
    const user = await this.users.findById(caller.userId);
    if (!user || user.deleted_at !== null) throw invalidSession();
    if (user.password_hash === null) throw forbidden(noPassword);
    if (!(await this.passwords.verify(password, user.password_hash))) throw wrongPassword();
    return user;
  }
}
