import type { Db } from '../../db/database.js';

/** Sessions ended by logging out, until their JWTs expire. */
export class RevokedSessionsRepository {
  constructor(private readonly db: Db) {}

  async isRevoked(sessionId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('revoked_sessions')
      .select('session_id')
      .where('session_id', '=', sessionId)
      .executeTakeFirst();
    return row !== undefined;
  }

  async revoke(sessionId: string, expiresAt: number): Promise<void> {
    await this.db
      .insertInto('revoked_sessions')
      .values({ session_id: sessionId, expires_at: expiresAt })
      .onConflict((oc) => oc.column('session_id').doNothing())
      .execute();
  }

  /** Removes the rows of sessions whose JWTs have expired since; returns how many. */
  async sweep(now = Date.now()): Promise<number> {
    const result = await this.db.deleteFrom('revoked_sessions').where('expires_at', '<=', now).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
