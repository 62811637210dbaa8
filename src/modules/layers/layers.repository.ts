import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { LayerKindTable } from '../../db/layer-kind-table.js';
import { notStaged } from '../../db/staged-jobs.js';
import type { LayerChunksTable, LayersTable } from '../../db/tables.js';
import type { ChunkSummary } from '../../geo/layer-rows.js';

export type LayerRow = LayersTable;

/**
 * The columns of a remote layer's source, null on every other layer. An export leaves them
 * out: an imported or cloned layer holds the data as it was, not linked to its address.
 */
export const SOURCE_COLUMNS = [
  'source_url',
  'refresh_minutes',
  'last_refresh_at',
  'last_attempt_at',
  'last_error',
  'refresh_job_id',
] as const;
export type SourceColumns = Pick<LayerRow, (typeof SOURCE_COLUMNS)[number]>;
export const NO_SOURCE: SourceColumns = {
  source_url: null,
  refresh_minutes: null,
  last_refresh_at: null,
  last_attempt_at: null,
  last_error: null,
  refresh_job_id: null,
};

/**
 * Vector layers' rows and their chunks. `find`, `list` and `roomOf` see rasters too: the
 * routes that address a layer by id alone (`DELETE /api/layers/:layerId`) take either kind.
 */
export class LayersRepository extends LayerKindTable {
  constructor(db: Db) {
    super(db, 'vector');
  }

  /** The room of a visible layer (vector or raster), for routes that address a layer by id alone. */
  async roomOf(layerId: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('layers')
      .select('room_id')
      .where('id', '=', layerId)
      .where(notStaged('job_id'))
      .executeTakeFirst();
    return row?.room_id;
  }

  /** A published vector layer of the room with its tables' key, or undefined. */
  async findVector(roomId: string, layerId: string): Promise<(LayerRow & { storage_key: number }) | undefined> {
    const row = await this.findOfKind(roomId, layerId);
    return row && row.storage_key !== null ? { ...row, storage_key: Number(row.storage_key) } : undefined;
  }

  /**
   * A published vector layer of the room, its row marked changed now and so locked until the
   * transaction ends: the edits of one layer's features run one after the other (PostgreSQL),
   * each seeing the rows and versions the one before wrote.
   */
  async touchVector(
    trx: Db,
    roomId: string,
    layerId: string,
  ): Promise<(LayerRow & { storage_key: number }) | undefined> {
    const row = await trx
      .updateTable('layers')
      .set({ updated_at: Date.now() })
      .where('id', '=', layerId)
      .where('room_id', '=', roomId)
      .where('kind', '=', 'vector')
      .where(notStaged('job_id'))
      .returningAll()
      .executeTakeFirst();
    return row && row.storage_key !== null ? { ...row, storage_key: Number(row.storage_key) } : undefined;
  }

  /**
   * The layer's chunks. Every feature is in one, so none for a layer with features means the
   * layer was deleted since its row was read (its chunks go with it): an error, which a read
   * of the layer's tables turns into 404 once the layer is gone (errors.ts `unlessDeletedMeanwhile`).
   */
  async chunks(layer: LayerRow): Promise<LayerChunksTable[]> {
    const chunks = await this.db
      .selectFrom('layer_chunks')
      .selectAll()
      .where('layer_id', '=', layer.id)
      .orderBy('chunk_index')
      .execute();
    if (chunks.length === 0 && Number(layer.feature_count) > 0)
      throw new Error(`The chunks of layer ${layer.id} are missing`);
    return chunks;
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

  /** Remote layers whose next refresh is due: `refresh_minutes` past their last try. */
  async dueRefreshes(now: number): Promise<LayerRow[]> {
    return this.db
      .selectFrom('layers')
      .selectAll()
      .where('kind', '=', 'vector')
      .where('refresh_minutes', 'is not', null)
      .where(notStaged('job_id'))
      .where(sql<boolean>`coalesce(last_attempt_at, 0) + refresh_minutes * 60000 <= ${now}`)
      .execute();
  }

  /** Gives a layer's chunks to another (a refresh putting its fresh tables in the layer's place), dropping the other's own. */
  async moveChunks(trx: Db, from: string, to: string): Promise<void> {
    await trx.deleteFrom('layer_chunks').where('layer_id', '=', to).execute();
    await trx.updateTable('layer_chunks').set({ layer_id: to }).where('layer_id', '=', from).execute();
  }
}
