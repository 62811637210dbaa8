import type { Kysely } from 'kysely';

/**
 * Embedding a room in other sites: the room's embed keys (read-only like a viewer, limited to
 * some layers or not; only the key's hash is kept) and which sites may frame its `/e/` pages
 * (a JSON array of origins, or `["*"]`; no row or null: the default, which follows the room
 * going public or private). Both go with their room.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('embed_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('room_id', 'text', (c) => c.notNull().references('rooms.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('layers', 'text')
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used_at', 'bigint')
    .execute();
  await db.schema.createIndex('embed_keys_room').on('embed_keys').column('room_id').execute();
  await db.schema
    .createTable('room_embedding')
    .addColumn('room_id', 'text', (c) => c.primaryKey().references('rooms.id').onDelete('cascade'))
    .addColumn('origins', 'text')
    .execute();
}
