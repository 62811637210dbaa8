import type { Kysely } from 'kysely';

/**
 * Which instance staged each set of writes (its number, see db/database-lock.ts), so that a
 * stage is undone only once that instance is gone, never while it is still writing. Rows of
 * earlier versions have none: they were left by a process that has stopped.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('staged_jobs').addColumn('instance', 'bigint').execute();
}
