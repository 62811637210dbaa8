import type { Db } from '../../db/database.js';
import type { UsersTable } from '../../db/tables.js';

export type UserRow = UsersTable;

export class UsersRepository {
  constructor(private readonly db: Db) {}

  findById(id: string) {
    return this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  }

  findByEmail(email: string) {
    return this.db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
  }

  async insert(user: UserRow): Promise<void> {
    await this.db.insertInto('users').values(user).execute();
  }

  /** Records a user known from an external identity provider; true when newly seen. */
  async ensureExternal(id: string, email: string, now: number): Promise<boolean> {
    const result = await this.db
      .insertInto('users')
      .values({ id, email, name: null, password_hash: null, created_at: now })
      .onConflict((oc) => oc.column('id').doUpdateSet({ email }))
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
  }
}
