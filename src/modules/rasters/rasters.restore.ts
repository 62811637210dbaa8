import { notRestorable } from '../../errors.js';
import type { KeptState, Restorable } from '../history/restorable.js';
import { presentRasterLayer } from './rasters.presenter.js';
import type { RasterRow, RastersRepository } from './rasters.repository.js';
import type { RasterLayer } from './rasters.schemas.js';

/**
 * A raster's metadata (name, description, display) back as history kept it. A deleted raster's
 * files left with it, so its entries cannot be restored (409 `not_restorable`: upload it again).
 */
export function rasterRestorable(rasters: RastersRepository): Restorable {
  return {
    objectType: 'rasterLayer',
    async restore(trx, roomId, kept) {
      const state = kept as KeptState & RasterLayer;
      const current = await rasters.findOfKind(roomId, state.id, trx);
      if (!current) throw notRestorable(`The raster ${state.id} was deleted with its files; upload it again`);
      const row: RasterRow = {
        ...current,
        name: state.name,
        description: state.description ?? null,
        display: JSON.stringify(state.display),
        updated_at: Date.now(),
      };
      await rasters.replace(trx, row);
      return {
        change: {
          type: 'rasterLayer.updated',
          objectType: 'rasterLayer',
          objectId: row.id,
          data: presentRasterLayer(row),
        },
      };
    },
  };
}
