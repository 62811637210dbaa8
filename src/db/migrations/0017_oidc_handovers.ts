import type { Kysely } from 'kysely';

/**
 * The hand-over of a finished sign-in with an identity provider to the browser that started it:
 * the callback keeps the account here under the hash of a secret it gives only to that browser,
 * in an httpOnly cookie; the web app's landing page trades the cookie for a session once, within
 * a minute, on any instance. No session token is kept.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('oidc_handovers')
    .addColumn('secret_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('oidc_handovers_expiry').on('oidc_handovers').column('expires_at').execute();
}
