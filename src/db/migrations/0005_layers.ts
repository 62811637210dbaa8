import type { Kysely } from 'kysely';

/**
 * Vector and raster layers. A vector layer's features live in tables of its own
 * (`layer_<storage_key>_features` and its spatial index), created by the ingest and dropped
 * with the layer (modules/layers/feature-tables.ts): dropping a million-feature layer is a
 * DROP TABLE, and each layer's index holds only its own features.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('layers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('room_id', 'text', (c) => c.notNull().references('rooms.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('storage_key', 'bigint', (c) => c.unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('style', 'text')
    .addColumn('display', 'text')
    .addColumn('geometry_type', 'text')
    .addColumn('feature_count', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('bbox', 'text')
    .addColumn('source_format', 'text', (c) => c.notNull())
    .addColumn('source_crs', 'text')
    .addColumn('size_bytes', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('raster', 'text')
    .addColumn('file_key', 'text')
    .addColumn('job_id', 'text')
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('layers_room').on('layers').columns(['room_id', 'created_at']).execute();
  await db.schema.createIndex('layers_job').on('layers').column('job_id').execute();

  // The spatially coherent runs of at most 10,000 features (`directChunks`) of a vector layer.
  await db.schema
    .createTable('layer_chunks')
    .addColumn('layer_id', 'text', (c) => c.notNull().references('layers.id').onDelete('cascade'))
    .addColumn('chunk_index', 'integer', (c) => c.notNull())
    .addColumn('first_row', 'bigint', (c) => c.notNull())
    .addColumn('last_row', 'bigint', (c) => c.notNull())
    .addColumn('feature_count', 'integer', (c) => c.notNull())
    .addColumn('min_lon', 'double precision', (c) => c.notNull())
    .addColumn('min_lat', 'double precision', (c) => c.notNull())
    .addColumn('max_lon', 'double precision', (c) => c.notNull())
    .addColumn('max_lat', 'double precision', (c) => c.notNull())
    .addPrimaryKeyConstraint('layer_chunks_pk', ['layer_id', 'chunk_index'])
    .execute();

  // Chunks of an upload sent in pieces, until they are assembled (or 24 hours pass).
  await db.schema
    .createTable('upload_chunks')
    .addColumn('room_id', 'text', (c) => c.notNull().references('rooms.id').onDelete('cascade'))
    .addColumn('upload_id', 'text', (c) => c.notNull())
    .addColumn('chunk_index', 'integer', (c) => c.notNull())
    .addColumn('total_chunks', 'integer', (c) => c.notNull())
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('file_key', 'text', (c) => c.notNull())
    .addColumn('bytes', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('upload_chunks_pk', ['room_id', 'upload_id', 'chunk_index'])
    .execute();
  await db.schema.createIndex('upload_chunks_age').on('upload_chunks').column('created_at').execute();
}
