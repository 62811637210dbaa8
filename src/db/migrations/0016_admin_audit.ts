import type { Kysely } from 'kysely';

/**
 * The instance admins' actions (disable, enable, delete a user, send a reset link, hand over
 * or delete a room, retry or cancel a job): who did what to what, and when. Read newest
 * first, paged by (at, id).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('admin_audit')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('admin_id', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('details', 'text')
    .execute();
  await db.schema.createIndex('admin_audit_at').on('admin_audit').columns(['at', 'id']).execute();
}
