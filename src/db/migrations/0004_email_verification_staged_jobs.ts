import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // Built-in accounts prove their address before it accepts invitations (null: not yet).
  await db.schema.alterTable('users').addColumn('email_verified_at', 'bigint').execute();

  // The secrets of e-mailed verification links, stored only as hashes; each is single-use.
  await db.schema
    .createTable('email_verifications')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('email_verifications_user')
    .on('email_verifications')
    .columns(['user_id', 'created_at'])
    .execute();

  // Jobs whose rows are written but not yet visible (a bulk import, a layer ingest): rows
  // carrying such a job's id are hidden from every read until the job's final write removes
  // it from here, in the same transaction as its history entry.
  await db.schema
    .createTable('staged_jobs')
    .addColumn('job_id', 'text', (c) => c.primaryKey())
    .addColumn('room_id', 'text', (c) => c.notNull().references('rooms.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('staged_jobs_room').on('staged_jobs').column('room_id').execute();
}
