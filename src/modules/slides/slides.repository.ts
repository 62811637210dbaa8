import type { DeckObjectRef } from '../../auth/access-source.js';
import type { Db } from '../../db/database.js';
import { inChunks, RoomTable } from '../../db/room-table.js';
import { notStaged } from '../../db/staged-jobs.js';
import type { SlideObjectsTable, SlideObjectType, SlidesTable } from '../../db/tables.js';

/** Each id list of a slide and the kind of object it names. */
const LISTS: [keyof SlidesTable & `${string}_ids`, SlideObjectType][] = [
  ['marker_ids', 'marker'],
  ['layer_ids', 'layer'],
  ['raster_layer_ids', 'raster'],
  ['drawing_ids', 'drawing'],
];

/** The rows of what a slide shows, from its id lists. */
const objectsOf = (slide: SlidesTable): SlideObjectsTable[] =>
  LISTS.flatMap(([column, type]) =>
    [...new Set(JSON.parse(slide[column]) as string[])].map((id) => ({
      room_id: slide.room_id,
      slide_id: slide.id,
      object_type: type,
      object_id: id,
    })),
  );

/**
 * Writes the `slide_objects` rows of these slides (replacing the ones they had), inside the
 * transaction that writes the slides. Every write of slides calls it: the repository's own,
 * and a restore that inserts slide rows itself.
 */
export async function writeSlideObjects(trx: Db, slides: SlidesTable[]): Promise<void> {
  for (const chunk of inChunks(slides.map((s) => s.id))) {
    await trx.deleteFrom('slide_objects').where('slide_id', 'in', chunk).execute();
  }
  for (const chunk of inChunks(slides.flatMap(objectsOf), 200)) {
    await trx.insertInto('slide_objects').values(chunk).execute();
  }
}

/**
 * The slides of rooms, in deck order (`position` from 0), and what each shows as rows of
 * `slide_objects`, written with the slide: the one source the deck's access rule reads.
 */
export class SlidesRepository extends RoomTable<'slides'> {
  constructor(db: Db) {
    super(db, 'slides', 'position');
  }

  override async insert(db: Db, rows: SlidesTable[]): Promise<void> {
    await super.insert(db, rows);
    await writeSlideObjects(db, rows);
  }

  override async replace(db: Db, row: SlidesTable): Promise<void> {
    await super.replace(db, row);
    await writeSlideObjects(db, [row]);
  }

  override async delete(db: Db, roomId: string, id: string): Promise<boolean> {
    await db.deleteFrom('slide_objects').where('room_id', '=', roomId).where('slide_id', '=', id).execute();
    return super.delete(db, roomId, id);
  }

  override async clear(db: Db, roomId: string): Promise<number> {
    await db.deleteFrom('slide_objects').where('room_id', '=', roomId).execute();
    return super.clear(db, roomId);
  }

  /**
   * The deck's one rule: whether a slide of the room shows the object. An icon is shown when
   * a marker a slide shows uses it, a photo or thumbnail when that marker has it.
   */
  async isShown(roomId: string, object: DeckObjectRef): Promise<boolean> {
    const shown = this.db
      .selectFrom('slide_objects as s')
      .select('s.slide_id')
      .where('s.room_id', '=', roomId)
      .where('s.object_type', '=', object.type === 'icon' || object.type === 'photo' ? 'marker' : object.type);
    const query =
      object.type === 'icon' || object.type === 'photo'
        ? shown
            .innerJoin('markers as m', (join) =>
              join.onRef('m.room_id', '=', 's.room_id').onRef('m.id', '=', 's.object_id'),
            )
            .where(notStaged('m.import_job_id'))
            .where((eb) =>
              object.type === 'icon'
                ? eb('m.marker_icon_id', '=', object.id)
                : eb.or([eb('m.image_key', '=', object.id), eb('m.thumbnail_key', '=', object.id)]),
            )
        : shown.where('s.object_id', '=', object.id);
    return (await query.limit(1).executeTakeFirst()) !== undefined;
  }

  /** The position after the room's last slide (0 for a room without slides). */
  async nextPosition(trx: Db, roomId: string): Promise<number> {
    const last = await trx
      .selectFrom('slides')
      .select((eb) => eb.fn.max('position').as('p'))
      .where('room_id', '=', roomId)
      .executeTakeFirst();
    return last?.p === null || last?.p === undefined ? 0 : Number(last.p) + 1;
  }

  /** Gives the slides their positions in the order of `order`. */
  async renumber(trx: Db, roomId: string, order: string[]): Promise<void> {
    for (const [position, id] of order.entries()) {
      await trx.updateTable('slides').set({ position }).where('room_id', '=', roomId).where('id', '=', id).execute();
    }
  }
}
