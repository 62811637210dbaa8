import type { Db } from './database.js';
import { RoomTable } from './room-table.js';
import { notStaged } from './staged-jobs.js';
import type { LayersTable } from './tables.js';

/**
 * The `layers` table holds vector layers and rasters, told apart by `kind`. Each domain reads
 * and writes its own kind through one of these (layers/layers.repository.ts,
 * rasters/rasters.repository.ts); what `RoomTable` offers still sees both kinds (a layer
 * addressed by id alone, a whole room's export). A layer written by an ingest still running
 * is staged: no read sees it until the job publishes it.
 */
export class LayerKindTable extends RoomTable<'layers'> {
  constructor(
    db: Db,
    private readonly kind: LayersTable['kind'],
  ) {
    super(db, 'layers', 'created_at', 'job_id');
  }

  /** The room's visible layers of this kind, oldest first. */
  async listOfKind(roomId: string): Promise<LayersTable[]> {
    return (await this.list(roomId)).filter((row) => row.kind === this.kind);
  }

  /** A visible layer of this kind in the room. */
  async findOfKind(roomId: string, id: string, db: Db = this.db): Promise<LayersTable | undefined> {
    const row = await this.find(roomId, id, db);
    return row?.kind === this.kind ? row : undefined;
  }

  /** The room's visible layers of this kind (room `counts`). */
  override async count(db: Db, roomId: string): Promise<number> {
    const row = await db
      .selectFrom('layers')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('room_id', '=', roomId)
      .where('kind', '=', this.kind)
      .where(notStaged('job_id'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /**
   * Removes the room's layers of this kind, staged ones too (room `clear`), each after
   * `removing(row)` (a vector layer's own tables); answers how many were visible.
   */
  override async clear(db: Db, roomId: string, removing?: (row: LayersTable) => Promise<void>): Promise<number> {
    const rows = await db
      .selectFrom('layers')
      .selectAll()
      .where('room_id', '=', roomId)
      .where('kind', '=', this.kind)
      .execute();
    for (const row of rows) {
      await removing?.(row);
      await this.deleteRow(db, row.id);
    }
    return rows.filter((row) => row.job_id === null).length;
  }

  /** Every layer of this kind a job wrote, visible or not (to undo it). */
  byJob(jobId: string): Promise<LayersTable[]> {
    return this.db.selectFrom('layers').selectAll().where('job_id', '=', jobId).where('kind', '=', this.kind).execute();
  }

  async update(db: Db, id: string, changes: Partial<LayersTable>): Promise<void> {
    await db.updateTable('layers').set(changes).where('id', '=', id).execute();
  }

  async deleteRow(db: Db, id: string): Promise<void> {
    await db.deleteFrom('layers').where('id', '=', id).execute();
  }
}
