import type { LayersTable } from '../../db/tables.js';
import { layerKind } from '../exchange/file-tables.js';
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
  files: {
    // Its stored raster as a tile pyramid (`tiles_table`), and its original GeoTIFF in parts.
    exported: (row, include) => {
      if (!row.file_key) return [];
      const sourceKey = (JSON.parse(row.raster ?? '{}') as { sourceKey?: string }).sourceKey;
      return [
        ...(include.tiles
          ? [{ type: 'tiles', column: 'tiles_table', name: `${row.name} tiles`, fileKey: row.file_key } as const]
          : []),
        ...(include.tiffs && sourceKey ? [{ type: 'file', fileKey: sourceKey } as const] : []),
      ];
    },
    source: (row) => ({
      type: 'geoTiff',
      tiles: typeof row.tiles_table === 'string' ? row.tiles_table : null,
      skipped: {
        rasterLayer: String(row.name),
        reason: 'the export holds neither its GeoTIFF (include_tiffs) nor its tiles (include_tiles)',
      },
    }),
  },
});
