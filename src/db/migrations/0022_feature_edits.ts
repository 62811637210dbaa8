import { type Kysely, sql } from 'kysely';

/**
 * Features edited in place. `layers.last_row` is the highest row of a vector layer's features
 * table: an ingest numbers rows 1..n, a created feature takes the next row and a deleted one
 * leaves a gap, so reads that walk the rows go up to it rather than to the feature count.
 * `feature_versions` holds the version of each feature edited since its ingest (one not listed
 * is at version 1), for the 409 of a change based on an older one (history says who made it).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('layers')
    .addColumn('last_row', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`UPDATE layers SET last_row = feature_count`.execute(db);
  await db.schema
    .createTable('feature_versions')
    .addColumn('layer_id', 'text', (c) => c.notNull().references('layers.id').onDelete('cascade'))
    .addColumn('feature_id', 'bigint', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('feature_versions_pk', ['layer_id', 'feature_id'])
    .execute();
}
