import type { Db } from '../../db/database.js';

/** Accounts' identities at the identity providers: (provider id, `sub`) to user. */
export class IdentitiesRepository {
  constructor(private readonly db: Db) {}

  /** The account linked to this identity, unless it was deleted (then the identity counts as absent). */
  userOf(providerId: string, subject: string) {
    return this.db
      .selectFrom('user_identities')
      .innerJoin('users', 'users.id', 'user_identities.user_id')
      .selectAll('users')
      .where('user_identities.provider_id', '=', providerId)
      .where('user_identities.subject', '=', subject)
      .where('users.deleted_at', 'is', null)
      .executeTakeFirst();
  }

  /** Links the identity to the account, replacing a link to a deleted account. */
  async link(providerId: string, subject: string, userId: string, now: number): Promise<void> {
    await this.db
      .insertInto('user_identities')
      .values({ provider_id: providerId, subject, user_id: userId, created_at: now })
      .onConflict((oc) => oc.columns(['provider_id', 'subject']).doUpdateSet({ user_id: userId, created_at: now }))
      .execute();
  }
}
