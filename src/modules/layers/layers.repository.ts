import type { Db } from '../../db/database.js';
import { RoomTable } from '../../db/room-table.js';
import { notStaged } from '../../db/staged-jobs.js';
import type { LayerChunksTable, LayersTable } from '../../db/tables.js';
import type { ChunkSummary } from '../../geo/layer-rows.js';

export type LayerRow = LayersTable;

/**
 * Layer rows (vector and raster) and the chunks of vector layers. A layer written by an
 * ingest still running is staged: no read sees it until the job publishes it.
 */
export class LayersRepository extends RoomTable<'layers'> {
  constructor(db: Db) {
    super(db, 'layers', 'created_at', 'job_id');
  }

  /** The room of a visible layer, for routes that address a layer by id alone. */
  async roomOf(layerId: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('layers')
      .select('room_id')
      .where('id', '=', layerId)
      .where(notStaged('job_id'))
      .executeTakeFirst();
    return row?.room_id;
  }

  /** The room's visible layers of one kind, oldest first. */
  async listKind(roomId: string, kind: LayerRow['kind']): Promise<LayerRow[]> {
    return (await this.list(roomId)).filter((row) => row.kind === kind);
  }

  async countKind(db: Db, roomId: string, kind: LayerRow['kind']): Promise<number> {
    const row = await db
      .selectFrom('layers')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('room_id', '=', roomId)
      .where('kind', '=', kind)
      .where(notStaged('job_id'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Every layer a job wrote, visible or not (to undo it). */
  byJob(jobId: string) {
    return this.db.selectFrom('layers').selectAll().where('job_id', '=', jobId).execute();
  }

  /** The room's layers of one kind, staged ones too (to remove everything of a room). */
  allOfRoom(db: Db, roomId: string) {
    return db.selectFrom('layers').selectAll().where('room_id', '=', roomId).execute();
  }

  async update(db: Db, id: string, changes: Partial<LayerRow>): Promise<void> {
    await db.updateTable('layers').set(changes).where('id', '=', id).execute();
  }

  async deleteRow(db: Db, id: string): Promise<void> {
    await db.deleteFrom('layers').where('id', '=', id).execute();
  }

  chunks(layerId: string): Promise<LayerChunksTable[]> {
    return this.db
      .selectFrom('layer_chunks')
      .selectAll()
      .where('layer_id', '=', layerId)
      .orderBy('chunk_index')
      .execute();
  }

  async insertChunks(db: Db, layerId: string, chunks: ChunkSummary[]): Promise<void> {
    const rows = chunks.map((c) => ({
      layer_id: layerId,
      chunk_index: c.index,
      first_row: c.firstRow,
      last_row: c.lastRow,
      feature_count: c.featureCount,
      min_lon: c.bbox[0],
      min_lat: c.bbox[1],
      max_lon: c.bbox[2],
      max_lat: c.bbox[3],
    }));
    for (let i = 0; i < rows.length; i += 500)
      await db
        .insertInto('layer_chunks')
        .values(rows.slice(i, i + 500))
        .execute();
  }
}
