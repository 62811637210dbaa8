import { type Static, Type } from 'typebox';
import type { Db } from '../../db/database.js';

/** The kinds of room content that `counts` and `clear` cover. */
export const ContentCounts = Type.Object({
  markers: Type.Integer(),
  layers: Type.Integer(),
  rasterLayers: Type.Integer(),
  drawings: Type.Integer(),
  comments: Type.Integer(),
  slides: Type.Integer(),
});
export type ContentCounts = Static<typeof ContentCounts>;
export type ContentKind = keyof ContentCounts;

const CONTENT_KINDS = Object.keys(ContentCounts.properties) as ContentKind[];

/** A kind of room content that `counts` and `clear` must know about. */
export interface ContentTable {
  kind: ContentKind;
  count(db: Db, roomId: string): Promise<number>;
  /** Removes the room's rows of this kind inside the clear transaction; returns how many. */
  clear(trx: Db, roomId: string): Promise<number>;
  /** After the clear committed: remove what lives outside the database (files). */
  afterClear?(roomId: string): Promise<void>;
}

/** The counting and clearing a room-scoped table offers (db/room-table.ts). */
interface CountsAndClears {
  count(db: Db, roomId: string): Promise<number>;
  clear(trx: Db, roomId: string): Promise<number>;
}

/** A room-scoped table as a kind of content. */
export const contentOf = (
  kind: ContentKind,
  table: CountsAndClears,
  afterClear?: (roomId: string) => Promise<void>,
): ContentTable => ({
  kind,
  count: (db, roomId) => table.count(db, roomId),
  clear: (trx, roomId) => table.clear(trx, roomId),
  ...(afterClear && { afterClear }),
});

const zeroes = () => Object.fromEntries(CONTENT_KINDS.map((k) => [k, 0])) as ContentCounts;

/**
 * The registry of content kinds. Each domain's descriptor lists its tables (`content`), which
 * app.ts registers, so `counts` and `clear` cover them without being edited. A kind that no module has
 * registered yet has no rows and counts 0.
 */
export class RoomContent {
  private readonly tables: ContentTable[] = [];

  constructor(private readonly db: Db) {}

  register(table: ContentTable): void {
    this.tables.push(table);
  }

  async counts(roomId: string): Promise<ContentCounts> {
    const counts = zeroes();
    for (const table of this.tables) counts[table.kind] += await table.count(this.db, roomId);
    return counts;
  }

  /** Removes all content of the room inside the caller's transaction; returns what was removed. */
  async clear(trx: Db, roomId: string): Promise<ContentCounts> {
    const removed = zeroes();
    for (const table of this.tables) removed[table.kind] += await table.clear(trx, roomId);
    return removed;
  }

  async afterClear(roomId: string): Promise<void> {
    for (const table of this.tables) await table.afterClear?.(roomId);
  }
}
