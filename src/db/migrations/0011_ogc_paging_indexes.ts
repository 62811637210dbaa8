import { type Kysely, sql } from 'kysely';
import type { Dialect } from './index.js';

/**
 * What OGC API – Features pages by: markers by room and id (a keyset page of a room's markers
 * reads only its rows, in order), and an index on `id` in every vector layer's feature table
 * that exists already (new layers get it when their ingest finishes,
 * layers/feature-writers.ts), so that `/items/:featureId` finds a feature without reading the
 * whole table.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema.createIndex('markers_room_id').ifNotExists().on('markers').columns(['room_id', 'id']).execute();
  const layers = await db
    .selectFrom('layers')
    .select('storage_key')
    .where('kind', '=', 'vector')
    .where('storage_key', 'is not', null)
    .execute();
  for (const { storage_key: key } of layers) {
    const table = `layer_${Number(key)}_features`;
    const found =
      dialect === 'sqlite'
        ? sql`SELECT name FROM sqlite_master WHERE type = 'table' AND name = ${table}`
        : sql`SELECT to_regclass(${table}) AS name WHERE to_regclass(${table}) IS NOT NULL`;
    if ((await found.execute(db)).rows.length === 0) continue;
    await sql`CREATE INDEX IF NOT EXISTS ${sql.id(`${table}_id`)} ON ${sql.table(table)} (id)`.execute(db);
  }
}
