import type { Kysely } from 'kysely';

/**
 * Account recovery and changes: the session a password change keeps through the cut-off
 * (`users.sessions_kept`), what an e-mailed link proves (`email_verifications.purpose`:
 * `verify` the account's address, `change` a new address the account moves to), and the
 * password-reset links, kept only as SHA-256 hashes. A reset request for an address without
 * an account writes a row too (no `user_id`), so that every request does the same work and
 * the per-address limit counts them alike (`email_hash`: the address itself is not kept).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('sessions_kept', 'text').execute();
  await db.schema
    .alterTable('email_verifications')
    .addColumn('purpose', 'text', (c) => c.notNull().defaultTo('verify'))
    .execute();
  await db.schema
    .createTable('password_resets')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('email_hash', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('password_resets_address')
    .on('password_resets')
    .columns(['email_hash', 'created_at'])
    .execute();
  await db.schema.createIndex('password_resets_user').on('password_resets').column('user_id').execute();
}
