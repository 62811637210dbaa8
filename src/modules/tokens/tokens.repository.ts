import type { Db } from '../../db/database.js';
import type { ApiTokensTable } from '../../db/tables.js';

export type TokenRow = ApiTokensTable;

export class TokensRepository {
  constructor(private readonly db: Db) {}

  async insert(token: TokenRow): Promise<void> {
    await this.db.insertInto('api_tokens').values(token).execute();
  }

  listForRoom(roomId: string) {
    return this.db.selectFrom('api_tokens').selectAll().where('room_id', '=', roomId).orderBy('created_at').execute();
  }

  /** The names of these tokens (those not revoked). */
  async namesOf(ids: string[]) {
    if (ids.length === 0) return [];
    return this.db.selectFrom('api_tokens').select(['id', 'name']).where('id', 'in', ids).execute();
  }

  /**
   * The token with this secret hash, unless the user who created it is disabled or deleted:
   * such a token is refused like an unknown one (and comes back when the account is enabled).
   */
  findByHash(hash: string) {
    return this.db
      .selectFrom('api_tokens')
      .selectAll()
      .where('token_hash', '=', hash)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('users')
              .select('users.id')
              .whereRef('users.id', '=', 'api_tokens.created_by')
              .where((u) => u.or([u('users.disabled_at', 'is not', null), u('users.deleted_at', 'is not', null)])),
          ),
        ),
      )
      .executeTakeFirst();
  }

  async delete(roomId: string, id: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('api_tokens')
      .where('room_id', '=', roomId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async touch(id: string, now: number): Promise<void> {
    await this.db.updateTable('api_tokens').set({ last_used_at: now }).where('id', '=', id).execute();
  }
}
