import type { LayersTable } from '../../db/tables.js';
import { layerKind } from '../exchange/exchange.js';
import { parsedOrNull } from '../exchange/restore-values.js';
import { presentRasterLayer } from './rasters.presenter.js';

/**
 * The rasters of the layers table (layers/layers.exchange.ts): in a manifest, their settings
 * with their display (a clone copies their GeoTIFF); restored with their display as the file holds it.
 */
export const rasterLayers = layerKind({
  kind: 'raster',
  field: 'rasterLayers',
  shown: (row: LayersTable) => ({ display: presentRasterLayer(row).display }),
  restored: (row) => ({ display: parsedOrNull(row.display) }),
});
