import type { Kysely } from 'kysely';

/**
 * A vector layer's attribute fields (JSON `[{name, type}]`, geo/feature-fields.ts), recorded at
 * ingest so that an export writes each layer as a table with typed columns (null for layers
 * stored before: their export reads the fields off the features); and export jobs, whose
 * GeoPackage is kept in the blob store for 24 hours (`artifact_key`).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('layers').addColumn('fields', 'text').execute();
  await db.schema
    .createTable('export_jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('room_id', 'text', (c) => c.notNull().references('rooms.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('include_tiffs', 'integer', (c) => c.notNull())
    .addColumn('include_tiles', 'integer', (c) => c.notNull())
    .addColumn('bytes', 'bigint')
    .addColumn('error', 'text')
    .addColumn('artifact_key', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('started_at', 'bigint')
    .addColumn('finished_at', 'bigint')
    .execute();
  await db.schema.createIndex('export_jobs_finished').on('export_jobs').columns(['status', 'finished_at']).execute();
}
