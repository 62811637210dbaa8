import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
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
  await db.schema.createIndex('pending_invitations_email').on('pending_invitations').column('email').execute();

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
}
