import type { Db } from '../../db/database.js';
import type { StoredFiles } from '../files/stored-files.js';
import type { ContentTable } from '../rooms/room-content.js';
import type { FeatureTablesRepository } from './feature-tables.js';
import type { LayersRepository } from './layers.repository.js';

/**
 * Layers as kinds of room content, for `counts` and `clear` (and room deletion): vector
 * layers count as `layers`, rasters as `rasterLayers`. Clearing removes every layer row of
 * the room (staged ones too) and drops the vector layers' own tables in the same transaction;
 * the raster files go after the commit.
 */
export function layerContent(
  layers: LayersRepository,
  featureTables: FeatureTablesRepository,
  files: StoredFiles,
): ContentTable[] {
  const clear = (kind: 'vector' | 'raster') => async (trx: Db, roomId: string) => {
    const rows = (await layers.allOfRoom(trx, roomId)).filter((row) => row.kind === kind);
    for (const row of rows) {
      await layers.deleteRow(trx, row.id);
      if (row.storage_key !== null) await featureTables.drop(trx, Number(row.storage_key));
    }
    return rows.filter((row) => row.job_id === null).length;
  };
  return [
    { kind: 'layers', count: (db, roomId) => layers.countKind(db, roomId, 'vector'), clear: clear('vector') },
    {
      kind: 'rasterLayers',
      count: (db, roomId) => layers.countKind(db, roomId, 'raster'),
      clear: clear('raster'),
      afterClear: (roomId) => files.removeUnder(roomId, `layers/${roomId}/`),
    },
  ];
}
