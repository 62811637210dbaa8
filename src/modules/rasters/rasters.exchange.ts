import type { LayersTable } from '../../db/tables.js';
import type { KindExchange } from '../exchange/exchange.js';
import { parsedOrNull, textOr } from '../exchange/restore-values.js';
import type { IngestMeta } from '../ingest/ingest.js';
import { presentRasterLayer } from './rasters.presenter.js';

/**
 * The rasters of the layers table (layers/layers.exchange.ts): in a manifest, their settings
 * (a clone copies their GeoTIFF); restored with their display as the file holds it.
 */
export const rasterLayers = {
  kind: 'raster',
  manifest: (rows) => ({
    rasterLayers: rows.map((l) => ({
      id: l.id,
      name: l.name,
      description: l.description,
      display: presentRasterLayer(l).display,
    })),
  }),
  staged: (row, fallbackName) => ({
    layerName: textOr(row.name, fallbackName).slice(0, 200),
    description: typeof row.description === 'string' ? row.description : null,
    display: parsedOrNull(row.display),
  }),
} satisfies KindExchange<LayersTable, IngestMeta>;
