import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // The room's state version: each content change increments it (history and live).
  await db.schema
    .alterTable('rooms')
    .addColumn('version', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('markers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('room_id', 'text', (c) => c.notNull().references('rooms.id').onDelete('cascade'))
    .addColumn('latitude', 'double precision', (c) => c.notNull())
    .addColumn('longitude', 'double precision', (c) => c.notNull())
    .addColumn('title', 'text')
    .addColumn('description', 'text')
    .addColumn('color', 'text')
    .addColumn('tags', 'text')
    .addColumn('event_date', 'bigint')
    .addColumn('marker_icon_id', 'text')
    .addColumn('marker_icon_size', 'integer')
    .addColumn('image_key', 'text')
    .addColumn('thumbnail_key', 'text')
    .addColumn('image_meta', 'text')
    .addColumn('embedded_media_url', 'text')
    .addColumn('media_size', 'text')
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('import_job_id', 'text')
    .execute();
  await db.schema.createIndex('markers_import').on('markers').column('import_job_id').execute();
  await db.schema.createIndex('markers_room').on('markers').columns(['room_id', 'created_at']).execute();
  await db.schema.createIndex('markers_image').on('markers').column('image_key').execute();

  await db.schema
    .createTable('history')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('room_id', 'text', (c) => c.notNull().references('rooms.id').onDelete('cascade'))
    .addColumn('version', 'bigint', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('object_type', 'text', (c) => c.notNull())
    .addColumn('object_id', 'text', (c) => c.notNull())
    .addColumn('actor_kind', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('changes', 'text')
    .addColumn('data', 'text')
    .addUniqueConstraint('history_room_version', ['room_id', 'version'])
    .execute();

  await db.schema
    .createTable('jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('room_id', 'text', (c) => c.notNull().references('rooms.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('stage', 'text', (c) => c.notNull())
    .addColumn('progress', 'double precision', (c) => c.notNull().defaultTo(0))
    .addColumn('message', 'text')
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('result', 'text')
    .addColumn('actor_kind', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('jobs_stage').on('jobs').column('stage').execute();

  // Every stored file (marker images, icons, later layers): its size counts against the
  // room owner's quota.
  await db.schema
    .createTable('stored_files')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('room_id', 'text', (c) => c.notNull().references('rooms.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('bytes', 'bigint', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('meta', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('stored_files_room').on('stored_files').column('room_id').execute();

  await db.schema
    .createTable('marker_icons')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('room_id', 'text', (c) => c.notNull().references('rooms.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('file_key', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('marker_icons_room').on('marker_icons').column('room_id').execute();
}
