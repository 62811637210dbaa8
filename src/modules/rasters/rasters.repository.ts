import type { Db } from '../../db/database.js';
import { LayerKindTable } from '../../db/layer-kind-table.js';
import type { LayersTable } from '../../db/tables.js';

/** A raster layer's row: the `layers` table's rows of kind `raster`. */
export type RasterRow = LayersTable;

/** Raster layers' rows (their files are stored files, under the layer's folder). */
export class RastersRepository extends LayerKindTable {
  constructor(db: Db) {
    super(db, 'raster');
  }
}
