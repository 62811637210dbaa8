import type { Kysely } from 'kysely';

/**
 * What an account can be besides active: disabled by an admin, deleted by its owner (the row
 * stays, without address or password, so that history and comments keep the name it had),
 * with every session issued before a moment refused (a password reset or change, a
 * deletion), an admin by its identity provider's word, and when it was last seen.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('disabled_at', 'bigint').execute();
  await db.schema.alterTable('users').addColumn('deleted_at', 'bigint').execute();
  await db.schema.alterTable('users').addColumn('sessions_not_before', 'bigint').execute();
  await db.schema
    .alterTable('users')
    .addColumn('provider_admin', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('users').addColumn('last_seen_at', 'bigint').execute();
}
