import type { LayersTable } from '../../db/tables.js';
import { type Exchange, exchangeTable, type KindExchange, layerKind } from '../exchange/exchange.js';
import type { LayerMeta } from './layer-ingest.js';
import { presentVectorLayer } from './layers.presenter.js';
import type { LayersRepository } from './layers.repository.js';
import { DEFAULT_STYLE, type StyleInput, styleCheck } from './layers.schemas.js';

/**
 * Vector layers and rasters: settings, styles, display and facts. `table_name` names a vector
 * layer's feature table and `tiles_table` a raster's tile pyramid in the file (the export
 * fills them in); the features, tiles and GeoTIFFs themselves are written and restored by the
 * export and the import through the layer and raster ingest, and a clone copies what its
 * manifest lists through the same ingest. Each kind's own part (`vectorLayers` here,
 * `rasterLayers` in rasters/) is given by app.ts.
 */
export function layersExchange(
  layers: LayersRepository,
  kinds: KindExchange<LayersTable, LayerMeta>[],
): Exchange<LayersTable, LayerMeta> {
  return {
    ...exchangeTable<LayersTable>()({
      table: 'layers',
      description:
        'Vector and raster layers: name, style, raster display; table_name is the feature table of a vector layer',
      omit: ['room_id', 'storage_key', 'size_bytes', 'file_key', 'job_id'],
      fileOnly: ['table_name', 'tiles_table'],
      columns: {
        id: 'TEXT',
        kind: 'TEXT',
        table_name: 'TEXT',
        tiles_table: 'TEXT',
        name: 'TEXT',
        description: 'TEXT',
        style: 'TEXT',
        display: 'TEXT',
        geometry_type: 'TEXT',
        feature_count: 'INTEGER',
        bbox: 'TEXT',
        source_format: 'TEXT',
        source_crs: 'TEXT',
        raster: 'TEXT',
        fields: 'TEXT',
        created_by: 'TEXT',
        created_at: 'time',
        updated_at: 'time',
      },
    }),
    rows: (roomId) => layers.list(roomId),
    staged: (row, fallbackName) => {
      const kind = kinds.find((k) => k.kind === row.kind);
      if (!kind) throw new Error(`No exchange restores layers of kind ${String(row.kind)}`);
      return kind.staged(row, fallbackName);
    },
    clone: {
      manifest: (rows) => Object.assign({}, ...kinds.map((k) => k.manifest(rows.filter((row) => row.kind === k.kind)))),
    },
  };
}

/** The vector layers of the layers table: in a manifest, their settings (a clone copies their features); restored with a style still valid, else the default. */
export const vectorLayers: KindExchange<LayersTable, LayerMeta> = layerKind({
  kind: 'vector',
  field: 'layers',
  shown: (row: LayersTable) => ({ style: presentVectorLayer(row).style }),
  restored: (row) => ({ style: styleOf(row.style) }),
});

/** A stored style that is still valid, else the default. */
function styleOf(value: unknown): StyleInput {
  try {
    const style = JSON.parse(String(value)) as unknown;
    return styleCheck.problem(style) === null ? (style as StyleInput) : DEFAULT_STYLE;
  } catch {
    return DEFAULT_STYLE;
  }
}
