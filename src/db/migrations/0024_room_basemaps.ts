import type { Kysely } from 'kysely';

/** A room's own base maps, offered in its base-map menu: a JSON list (rooms.schemas.ts RoomBasemap); null: none. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('rooms').addColumn('basemaps', 'text').execute();
}
