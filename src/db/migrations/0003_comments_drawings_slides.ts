import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('comments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('room_id', 'text', (c) => c.notNull().references('rooms.id').onDelete('cascade'))
    .addColumn('object_id', 'text', (c) => c.notNull())
    .addColumn('object_type', 'text', (c) => c.notNull())
    .addColumn('object_name', 'text')
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('lat', 'double precision')
    .addColumn('lng', 'double precision')
    .addColumn('resolved', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('author_kind', 'text', (c) => c.notNull())
    .addColumn('author_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('comments_room').on('comments').columns(['room_id', 'created_at']).execute();

  await db.schema
    .createTable('comment_replies')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('comment_id', 'text', (c) => c.notNull().references('comments.id').onDelete('cascade'))
    .addColumn('room_id', 'text', (c) => c.notNull().references('rooms.id').onDelete('cascade'))
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('author_kind', 'text', (c) => c.notNull())
    .addColumn('author_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('comment_replies_comment')
    .on('comment_replies')
    .columns(['comment_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('drawings')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('room_id', 'text', (c) => c.notNull().references('rooms.id').onDelete('cascade'))
    .addColumn('geometry', 'text', (c) => c.notNull())
    .addColumn('label', 'text')
    .addColumn('style', 'text')
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('drawings_room').on('drawings').columns(['room_id', 'created_at']).execute();

  await db.schema
    .createTable('slides')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('room_id', 'text', (c) => c.notNull().references('rooms.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('body', 'text')
    .addColumn('view', 'text', (c) => c.notNull())
    .addColumn('base_layer', 'text')
    .addColumn('marker_ids', 'text', (c) => c.notNull())
    .addColumn('layer_ids', 'text', (c) => c.notNull())
    .addColumn('raster_layer_ids', 'text', (c) => c.notNull())
    .addColumn('drawing_ids', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('slides_room').on('slides').columns(['room_id', 'position']).execute();
}
