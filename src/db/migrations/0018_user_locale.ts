import type { Kysely } from 'kysely';

/**
 * The language a user's e-mails are written in (`en`, `de`, `fr`, `it`, `es`, `ar`), chosen at
 * sign-up or later, or given by an identity provider's `locale` claim; null: English.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('locale', 'text').execute();
}
