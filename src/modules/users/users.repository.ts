import type { Db } from '../../db/database.js';
import type { Updateable } from 'kysely';
import type { EmailVerificationsTable, UsersTable } from '../../db/tables.js';

export type UserRow = UsersTable;

/**
 * The address a deleted account keeps in the unique, not-null column: the reserved `.invalid`
 * domain and a colon, which no address form accepts (sign-up, invitations), so it can never
 * be signed up for, invited or mailed.
 */
export const deletedAddressOf = (userId: string) => `deleted:${userId}@deleted.invalid`;

/** The account-state columns of a new user: enabled, not deleted, no session refused. */
export const ACTIVE_ACCOUNT = {
  disabled_at: null,
  deleted_at: null,
  sessions_not_before: null,
  provider_admin: 0,
  last_seen_at: null,
  sessions_kept: null,
} as const;

export class UsersRepository {
  constructor(private readonly db: Db) {}

  findById(id: string) {
    return this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The names and e-mails of these users (those that exist). */
  async namesOf(ids: string[]) {
    if (ids.length === 0) return [];
    return this.db.selectFrom('users').select(['id', 'name', 'email', 'deleted_at']).where('id', 'in', ids).execute();
  }

  findByEmail(email: string) {
    return this.db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
  }

  async insert(user: UserRow): Promise<void> {
    await this.db.insertInto('users').values(user).execute();
  }

  /**
   * Records a user known from an external identity provider (or updates their e-mail and
   * whether the provider vouches for it).
   */
  async ensureExternal(id: string, email: string, now: number, verified: boolean): Promise<void> {
    const verifiedAt = verified ? now : null;
    await this.db
      .insertInto('users')
      .values({
        id,
        email,
        name: null,
        password_hash: null,
        created_at: now,
        email_verified_at: verifiedAt,
        locale: null,
        ...ACTIVE_ACCOUNT,
      })
      .onConflict((oc) => oc.column('id').doUpdateSet({ email, email_verified_at: verifiedAt }))
      .execute();
  }

  /** Sets the language of the user's e-mails (null: English). */
  async setLocale(userId: string, locale: string | null): Promise<void> {
    await this.db.updateTable('users').set({ locale }).where('id', '=', userId).execute();
  }

  /** Records that a session of the user was used now, unless that was recorded within `precisionMs`. */
  async touchSeen(userId: string, now: number, precisionMs: number): Promise<void> {
    await this.db
      .updateTable('users')
      .set({ last_seen_at: now })
      .where('id', '=', userId)
      .where((eb) => eb.or([eb('last_seen_at', 'is', null), eb('last_seen_at', '<=', now - precisionMs)]))
      .execute();
  }

  /** Changes the account's columns (state, password, cut-off of its sessions) and answers the row after it. */
  async update(userId: string, changes: Updateable<UsersTable>): Promise<UserRow | undefined> {
    await this.db.updateTable('users').set(changes).where('id', '=', userId).execute();
    return this.findById(userId);
  }

  /**
   * Turns the account into a tombstone in one transaction: no address (a unique placeholder
   * that no form accepts), no password, deleted; its pending links and the invitations to its
   * address gone. The name stays, so
   * that history and comments keep naming its work.
   */
  async tombstone(userId: string, now: number): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const user = await trx.selectFrom('users').select('email').where('id', '=', userId).executeTakeFirst();
      // Invitations to the address were for this person: a new account with it must not inherit them.
      if (user) await trx.deleteFrom('pending_invitations').where('email', '=', user.email).execute();
      await trx
        .updateTable('users')
        .set({
          email: deletedAddressOf(userId),
          password_hash: null,
          email_verified_at: null,
          deleted_at: now,
          sessions_not_before: now,
          sessions_kept: null,
        })
        .where('id', '=', userId)
        .execute();
      await trx.deleteFrom('email_verifications').where('user_id', '=', userId).execute();
      await trx.deleteFrom('password_resets').where('user_id', '=', userId).execute();
    });
  }

  /**
   * Ends, in one transaction, what the account's past holders may still have: the columns in
   * `changes` (a cut-off of its sessions, with the one session it keeps, or none), its pending
   * e-mail-change and password-reset links, and, with `roomTokens`, the room tokens it created.
   * `onlyUnproven` changes nothing when the address was proven meanwhile. Answers whether the
   * account changed.
   */
  async endPastHolders(
    userId: string,
    changes: Updateable<UsersTable> & { sessions_not_before: number; sessions_kept: string | null },
    options: { roomTokens?: boolean; onlyUnproven?: boolean } = {},
  ): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      let update = trx.updateTable('users').set(changes).where('id', '=', userId);
      if (options.onlyUnproven) update = update.where('email_verified_at', 'is', null);
      const result = await update.executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) return false;
      await trx
        .deleteFrom('email_verifications')
        .where('user_id', '=', userId)
        .where('purpose', '=', 'change')
        .execute();
      // Spent, not deleted: the per-address limit on reset mails still counts them.
      await trx.updateTable('password_resets').set({ user_id: null }).where('user_id', '=', userId).execute();
      if (options.roomTokens) await trx.deleteFrom('api_tokens').where('created_by', '=', userId).execute();
      return true;
    });
  }

  async markVerified(userId: string, at: number): Promise<void> {
    await this.db.updateTable('users').set({ email_verified_at: at }).where('id', '=', userId).execute();
  }

  async insertVerification(row: EmailVerificationsTable): Promise<void> {
    await this.db.insertInto('email_verifications').values(row).execute();
  }

  findVerification(tokenHash: string) {
    return this.db.selectFrom('email_verifications').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
  }

  /** When the newest link confirming the user's address was made (null: never; address changes apart). */
  async lastVerificationAt(userId: string): Promise<number | null> {
    const row = await this.db
      .selectFrom('email_verifications')
      .select((eb) => eb.fn.max('created_at').as('at'))
      .where('user_id', '=', userId)
      .where('purpose', '=', 'verify')
      .executeTakeFirst();
    return row?.at == null ? null : Number(row.at);
  }

  /** Removes the verification links of the user for one purpose, or all (used once, all are spent). */
  async deleteVerifications(userId: string, purpose?: EmailVerificationsTable['purpose']): Promise<void> {
    let query = this.db.deleteFrom('email_verifications').where('user_id', '=', userId);
    if (purpose) query = query.where('purpose', '=', purpose);
    await query.execute();
  }

  /**
   * Moves the account to a new address, proven by the link just followed: verified now, every
   * link of the account spent. Throws the unique violation when another account has it.
   */
  async changeEmail(userId: string, email: string, now: number): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.updateTable('users').set({ email, email_verified_at: now }).where('id', '=', userId).execute();
      await trx.deleteFrom('email_verifications').where('user_id', '=', userId).execute();
    });
  }
}

/** What an identity provider's sign-in changes on an account (the oidc module). */
export class ProviderAccountsRepository {
  constructor(private readonly db: Db) {}

  /** Whether the provider's admin claim names the user, as of this sign-in. */
  async setProviderAdmin(userId: string, admin: boolean): Promise<void> {
    await this.db
      .updateTable('users')
      .set({ provider_admin: admin ? 1 : 0 })
      .where('id', '=', userId)
      .execute();
  }
}
