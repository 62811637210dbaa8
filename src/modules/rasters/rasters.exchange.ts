import type { LayersTable } from '../../db/tables.js';
import type { KindExchange } from '../exchange/exchange.js';
import { presentRasterLayer } from './rasters.presenter.js';

/** The rasters of the layers table (layers/layers.exchange.ts): in a manifest, their settings (a clone copies their GeoTIFF). */
export const rasterLayers: KindExchange<LayersTable> = {
  kind: 'raster',
  manifest: (rows) => ({
    rasterLayers: rows.map((l) => ({
      id: l.id,
      name: l.name,
      description: l.description,
      display: presentRasterLayer(l).display,
    })),
  }),
};
