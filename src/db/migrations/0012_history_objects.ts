import type { Kysely } from 'kysely';

/**
 * One object's history entries, in order (restore, snapshot): an index on room, object and
 * version, so reading them costs the object's entries, not the room's whole history.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('history_object').on('history').columns(['room_id', 'object_id', 'version']).execute();
}
