import type { CopyInto, CopyRows } from '../../db/copy-into.js';
import type { Db } from '../../db/database.js';
import { RoomTable } from '../../db/room-table.js';
import { notStaged } from '../../db/staged-jobs.js';
import { containsText } from '../../db/text-match.js';
import type { MarkersTable } from '../../db/tables.js';
import type { Bbox } from '../../geo/tile-math.js';

/** Which markers a page or a count takes: in a bbox, with an event date in `[from, to]` (either end open). */
export interface MarkerFilter {
  bbox?: Bbox;
  eventDate?: { from: number | null; to: number | null };
}

/** The room's markers' extent: their bbox and the range of their event dates (null where none has one). */
export interface MarkerExtent {
  bbox: Bbox | null;
  eventDates: [number, number] | null;
}

export type MarkerFeedRow = Pick<
  MarkersTable,
  'id' | 'latitude' | 'longitude' | 'color' | 'marker_icon_id' | 'marker_icon_size'
>;

/** Every column of a marker row (the compiler checks that none is missing), in the order COPY writes them. */
const COLUMNS = Object.keys({
  id: 0,
  room_id: 0,
  latitude: 0,
  longitude: 0,
  title: 0,
  description: 0,
  color: 0,
  tags: 0,
  event_date: 0,
  marker_icon_id: 0,
  marker_icon_size: 0,
  image_key: 0,
  thumbnail_key: 0,
  image_meta: 0,
  embedded_media_url: 0,
  media_size: 0,
  created_by: 0,
  created_at: 0,
  updated_at: 0,
  import_job_id: 0,
} satisfies Record<keyof MarkersTable, 0>);

export class MarkersRepository extends RoomTable<'markers'> {
  /** `copyInto`: the database's COPY (PostgreSQL), which `copyMany` uses. */
  constructor(
    db: Db,
    private readonly copyInto?: CopyInto,
  ) {
    super(db, 'markers', 'created_at', 'import_job_id');
  }

  /** Whether `copyMany` can write (PostgreSQL). */
  get copies(): boolean {
    return this.copyInto !== undefined;
  }

  /**
   * Writes the rows with one COPY, its own transaction, reading them as the database takes
   * them (a bulk import's markers, PostgreSQL only); how many it wrote.
   */
  copyMany(rows: CopyRows): Promise<number> {
    if (!this.copyInto) throw new Error('COPY is PostgreSQL only');
    return this.copyInto('markers', COLUMNS, rows);
  }

  /** What the markers feed answers of each marker, in the list's order (oldest first). */
  feed(roomId: string): Promise<MarkerFeedRow[]> {
    return this.filtered(roomId, {})
      .select(['id', 'latitude', 'longitude', 'color', 'marker_icon_id', 'marker_icon_size'])
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }

  /** A page of the room's markers in id order, after `afterId` (keyset). */
  page(roomId: string, filter: MarkerFilter, afterId: string | null, limit: number): Promise<MarkersTable[]> {
    let query = this.filtered(roomId, filter).selectAll().orderBy('id').limit(limit);
    if (afterId !== null) query = query.where('id', '>', afterId);
    return query.execute();
  }

  async countWhere(roomId: string, filter: MarkerFilter): Promise<number> {
    const row = await this.filtered(roomId, filter)
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async extent(roomId: string): Promise<MarkerExtent> {
    const row = await this.filtered(roomId, {})
      .select((eb) => [
        eb.fn.min('longitude').as('w'),
        eb.fn.min('latitude').as('s'),
        eb.fn.max('longitude').as('e'),
        eb.fn.max('latitude').as('n'),
        eb.fn.min('event_date').as('first'),
        eb.fn.max('event_date').as('last'),
      ])
      .executeTakeFirstOrThrow();
    return {
      bbox: row.w === null ? null : [Number(row.w), Number(row.s), Number(row.e), Number(row.n)],
      eventDates: row.first === null ? null : [Number(row.first), Number(row.last)],
    };
  }

  /** At most `limit` of the room's markers whose title or description holds `text` (any case), by title. */
  search(roomId: string, text: string, limit: number): Promise<MarkersTable[]> {
    return this.filtered(roomId, {})
      .selectAll()
      .where((eb) => eb.or([containsText('title', text), containsText('description', text)]))
      .orderBy('title')
      .orderBy('id')
      .limit(limit)
      .execute();
  }

  private filtered(roomId: string, { bbox, eventDate }: MarkerFilter) {
    let query = this.db.selectFrom('markers').where('room_id', '=', roomId).where(notStaged('import_job_id'));
    if (bbox)
      query = query
        .where('longitude', '>=', bbox[0])
        .where('latitude', '>=', bbox[1])
        .where('longitude', '<=', bbox[2])
        .where('latitude', '<=', bbox[3]);
    if (eventDate) {
      query = query.where('event_date', 'is not', null);
      if (eventDate.from !== null) query = query.where('event_date', '>=', eventDate.from);
      if (eventDate.to !== null) query = query.where('event_date', '<=', eventDate.to);
    }
    return query;
  }

  /** Undoes what an interrupted bulk import wrote. */
  async deleteImported(db: Db, jobId: string): Promise<number> {
    const result = await db.deleteFrom('markers').where('import_job_id', '=', jobId).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** The keys among `keys` that a marker of the room references as its image or thumbnail. */
  async imageKeysInUse(roomId: string, keys: string[]): Promise<Set<string | null>> {
    const rows = await this.db
      .selectFrom('markers')
      .select(['image_key', 'thumbnail_key'])
      .where('room_id', '=', roomId)
      .where((eb) => eb.or([eb('image_key', 'in', keys), eb('thumbnail_key', 'in', keys)]))
      .execute();
    return new Set(rows.flatMap((r) => [r.image_key, r.thumbnail_key]));
  }
}
