import { notRestorable } from '../../errors.js';
import type { KeptState, Restorable } from '../history/restorable.js';
import { presentVectorLayer } from './layers.presenter.js';
import type { LayerRow, LayersRepository } from './layers.repository.js';
import type { VectorLayer } from './layers.schemas.js';

/**
 * A vector layer's metadata (name, description, style) back as history kept it. History keeps
 * no features: a deleted layer's feature table left with it, so its entries cannot be restored
 * (409 `not_restorable`: upload the file again).
 */
export function layerRestorable(layers: LayersRepository): Restorable {
  return {
    objectType: 'layer',
    async restore(trx, roomId, kept) {
      const state = kept as KeptState & VectorLayer;
      // Locked first: an edit of its features changes the row too (its count, last row, fields).
      const current = await layers.touchVector(trx, roomId, state.id);
      if (!current) throw notRestorable(`The layer ${state.id} was deleted with its features; upload its file again`);
      const row: LayerRow = {
        ...current,
        name: state.name,
        description: state.description ?? null,
        style: JSON.stringify(state.style),
        updated_at: Date.now(),
      };
      await layers.replace(trx, row);
      return {
        change: { type: 'layer.updated', objectType: 'layer', objectId: row.id, data: presentVectorLayer(row) },
      };
    },
  };
}
