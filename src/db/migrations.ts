import { type Kysely, type Migration, type MigrationProvider, Migrator } from 'kysely';

/**
 * Migrations, oldest first. They use only column types both dialects understand
 * (text, integer, bigint, double precision) so one list serves SQLite and PostgreSQL.
 * Append new migrations; never edit one that has shipped.
 */
const migrations: Record<string, Migration> = {
  '0001_accounts_rooms_members_tokens': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('users')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('email', 'text', (c) => c.notNull().unique())
        .addColumn('name', 'text')
        .addColumn('password_hash', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('rooms')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text')
        .addColumn('description', 'text')
        .addColumn('created_by', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('is_public', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('presentation_is_public', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('auto_zoom_enabled', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('default_view_lat', 'double precision')
        .addColumn('default_view_lng', 'double precision')
        .addColumn('default_view_zoom', 'double precision')
        .addColumn('default_theme', 'text')
        .addColumn('default_base_layer', 'text')
        .addColumn('timeline_settings', 'text')
        .execute();

      await db.schema
        .createTable('room_members')
        .addColumn('room_id', 'text', (c) => c.notNull().references('rooms.id').onDelete('cascade'))
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('added_at', 'bigint', (c) => c.notNull())
        .addColumn('added_by', 'text')
        .addPrimaryKeyConstraint('room_members_pk', ['room_id', 'user_id'])
        .execute();
      await db.schema.createIndex('room_members_user').on('room_members').column('user_id').execute();

      await db.schema
        .createTable('pending_invitations')
        .addColumn('room_id', 'text', (c) => c.notNull().references('rooms.id').onDelete('cascade'))
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('invited_at', 'bigint', (c) => c.notNull())
        .addColumn('invited_by', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('pending_invitations_pk', ['room_id', 'email'])
        .execute();
      await db.schema
        .createIndex('pending_invitations_email')
        .on('pending_invitations')
        .column('email')
        .execute();

      await db.schema
        .createTable('api_tokens')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('room_id', 'text', (c) => c.notNull().references('rooms.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('token_hash', 'text', (c) => c.notNull().unique())
        .addColumn('permissions', 'text', (c) => c.notNull())
        .addColumn('created_by', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('last_used_at', 'bigint')
        .execute();
      await db.schema.createIndex('api_tokens_room').on('api_tokens').column('room_id').execute();
    },
  },
  '0002_markers_history_jobs_files': {
    async up(db: Kysely<any>) {
      // The room's state version: each content change increments it (history and live).
      await db.schema.alterTable('rooms').addColumn('version', 'bigint', (c) => c.notNull().defaultTo(0)).execute();

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
    },
  },
  '0003_comments_drawings_slides': {
    async up(db: Kysely<any>) {
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
      await db.schema.createIndex('comment_replies_comment').on('comment_replies').columns(['comment_id', 'created_at']).execute();

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
    },
  },
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

export async function migrateToLatest(db: Kysely<any>): Promise<void> {
  const { error, results } = await new Migrator({ db, provider }).migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`Database migration ${failed?.migrationName ?? ''} failed: ${String(error)}`);
  }
}
