import type { Kysely } from 'kysely';

/**
 * Remote layers: a vector layer read from an address, fetched again every `refresh_minutes`
 * (null: only when asked). `last_refresh_at` is the last read that succeeded, `last_attempt_at`
 * the last try (the schedule counts from it) and `last_error` why that try failed;
 * `refresh_job_id` the last refresh queued (one at a time per layer).
 * `retired_feature_tables`: a layer's former tables, dropped a minute after a refresh replaced
 * them, once no read can still be using them.
 */
export async function up(db: Kysely<any>): Promise<void> {
  for (const [name, type] of [
    ['source_url', 'text'],
    ['refresh_minutes', 'integer'],
    ['last_refresh_at', 'bigint'],
    ['last_attempt_at', 'bigint'],
    ['last_error', 'text'],
    ['refresh_job_id', 'text'],
  ] as const)
    await db.schema.alterTable('layers').addColumn(name, type).execute();
  await db.schema
    .createTable('retired_feature_tables')
    .addColumn('storage_key', 'bigint', (c) => c.primaryKey())
    .addColumn('retired_at', 'bigint', (c) => c.notNull())
    .execute();
}
