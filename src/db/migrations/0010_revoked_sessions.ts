import type { Kysely } from 'kysely';

/**
 * Sessions ended by logging out (POST /api/auth/logout), by the session id of their JWT, until
 * the JWT would have expired anyway; an hourly sweep removes the rows past `expires_at`.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('revoked_sessions')
    .addColumn('session_id', 'text', (c) => c.primaryKey())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('revoked_sessions_expiry').on('revoked_sessions').column('expires_at').execute();
}
