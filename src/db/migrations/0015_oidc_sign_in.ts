import type { Kysely } from 'kysely';

/**
 * Sign-in through OpenID Connect providers: the accounts' identities at each provider (the
 * provider's id and its `sub`), and the sign-ins under way, kept in the database so that the
 * callback may reach another instance than the start. A flow holds only hashes: of its `state`
 * (how the callback finds it) and of the browser's cookie (which the callback must present);
 * the PKCE verifier and the nonce are derived from the cookie, which only the browser holds.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('user_identities')
    .addColumn('provider_id', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('user_identities_pk', ['provider_id', 'subject'])
    .execute();
  await db.schema.createIndex('user_identities_user').on('user_identities').column('user_id').execute();
  await db.schema
    .createTable('oidc_flows')
    .addColumn('state_hash', 'text', (c) => c.primaryKey())
    .addColumn('browser_hash', 'text', (c) => c.notNull())
    .addColumn('provider_id', 'text', (c) => c.notNull())
    .addColumn('return_to', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('oidc_flows_expiry').on('oidc_flows').column('expires_at').execute();
}
