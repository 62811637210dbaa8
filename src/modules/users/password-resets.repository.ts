import type { Db } from '../../db/database.js';
import type { PasswordResetsTable } from '../../db/tables.js';

/** Password-reset links (their secrets' hashes) and the requests the per-address limit counts. */
export class PasswordResetsRepository {
  constructor(private readonly db: Db) {}

  async insert(row: PasswordResetsTable): Promise<void> {
    await this.db.insertInto('password_resets').values(row).execute();
  }

  /** How many resets were asked for this address (its hash) since `since`, with or without an account. */
  async countSince(emailHash: string, since: number): Promise<number> {
    const row = await this.db
      .selectFrom('password_resets')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('email_hash', '=', emailHash)
      .where('created_at', '>=', since)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** The link with this secret hash (only links of an account: requests for unknown addresses are never links). */
  find(tokenHash: string) {
    return this.db
      .selectFrom('password_resets')
      .selectAll()
      .where('token_hash', '=', tokenHash)
      .where('user_id', 'is not', null)
      .executeTakeFirst();
  }

  /**
   * Spends one link; false when it was spent already (by a request at the same time). The row
   * stays, no longer a link, until the sweep: the per-address limit still counts it.
   */
  async spend(tokenHash: string): Promise<boolean> {
    const result = await this.db
      .updateTable('password_resets')
      .set({ user_id: null })
      .where('token_hash', '=', tokenHash)
      .where('user_id', 'is not', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Forgets rows made before `before` (no longer links, no longer counted by the limit). */
  async sweep(before: number): Promise<number> {
    const result = await this.db.deleteFrom('password_resets').where('created_at', '<', before).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
