import { type Kysely, sql } from 'kysely';
import type { Dialect } from './index.js';

/** Each id list of a slide and the kind of object it names. */
const LISTS = [
  ['marker_ids', 'marker'],
  ['layer_ids', 'layer'],
  ['raster_layer_ids', 'raster'],
  ['drawing_ids', 'drawing'],
] as const;

/**
 * What each slide shows, one row per object (`slide_objects`), so that "does the published
 * deck show this object?" is one indexed query instead of parsing every slide's JSON lists.
 * The slides keep their lists (the API answers them); the slides repository writes both in
 * the same transaction. The rows of the slides written before this step are filled from the
 * lists.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('slide_objects')
    .addColumn('room_id', 'text', (c) => c.notNull().references('rooms.id').onDelete('cascade'))
    .addColumn('slide_id', 'text', (c) => c.notNull().references('slides.id').onDelete('cascade'))
    .addColumn('object_type', 'text', (c) => c.notNull())
    .addColumn('object_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('slide_objects_pk', ['slide_id', 'object_type', 'object_id'])
    .execute();
  await db.schema
    .createIndex('slide_objects_object')
    .on('slide_objects')
    .columns(['room_id', 'object_type', 'object_id'])
    .execute();
  await fillSlideObjects(db, dialect);
}

/**
 * Adds the rows of every slide's id lists that are missing (a list that is not a JSON array
 * of ids fails the step: the service has only ever written arrays).
 */
export async function fillSlideObjects(db: Kysely<any>, dialect: Dialect): Promise<void> {
  for (const [column, type] of LISTS) {
    const ids =
      dialect === 'sqlite'
        ? sql`json_each(${sql.ref(`s.${column}`)}) AS j`
        : sql`jsonb_array_elements_text(${sql.ref(`s.${column}`)}::jsonb) AS j(value)`;
    // WHERE true: SQLite reads an ON right after the FROM list as a join's, not the upsert's.
    await sql`
      INSERT INTO slide_objects (room_id, slide_id, object_type, object_id)
      SELECT DISTINCT s.room_id, s.id, ${sql.lit(type)}, j.value FROM slides AS s, ${ids} WHERE true
      ON CONFLICT DO NOTHING`.execute(db);
  }
}
