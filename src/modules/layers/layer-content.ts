import type { ContentTable } from '../domain/room-content.js';
import type { FeatureTablesRepository } from './feature-tables.js';
import type { LayersRepository } from './layers.repository.js';

/**
 * Vector layers as a kind of room content (`layers`), for `counts` and `clear` (and room
 * deletion). Clearing removes every vector layer row of the room (staged ones too) and drops
 * their own tables in the same transaction.
 */
export const layerContent = (layers: LayersRepository, featureTables: FeatureTablesRepository): ContentTable => ({
  kind: 'layers',
  count: (db, roomId) => layers.count(db, roomId),
  clear: (trx, roomId) =>
    layers.clear(trx, roomId, async (row) => {
      if (row.storage_key !== null) await featureTables.drop(trx, Number(row.storage_key));
    }),
});
