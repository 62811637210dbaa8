import type { LayersTable } from '../../db/tables.js';
import type { LayerField } from '../../geo/feature-fields.js';
import type { GpkgGeometryType } from '../../geo-engine/gpkg-writer.js';
import type { Exchange, FileRow, KindExchange } from '../exchange/exchange.js';
import { fileTable, layerKind } from '../exchange/file-tables.js';
import type { LayerMeta } from './layer-ingest.js';
import { presentVectorLayer } from './layers.presenter.js';
import { type LayersRepository, SOURCE_COLUMNS } from './layers.repository.js';
import { DEFAULT_STYLE, type StyleInput, styleCheck } from './layers.schemas.js';

/**
 * Vector layers and rasters: settings, styles, display and facts. `table_name` names a vector
 * layer's feature table and `tiles_table` a raster's tile pyramid in the file (the export
 * fills them in); each row's kind says which features, tiles and GeoTIFFs the file holds of
 * it and what the import restores it from (`files`), the export and the import execute that,
 * and a clone copies what its manifest lists through the ingest. Each kind's own part
 * (`vectorLayers` here, `rasterLayers` in rasters/) is given by app.ts.
 */
export function layersExchange(
  layers: LayersRepository,
  kinds: KindExchange<LayersTable, LayerMeta>[],
): Exchange<LayersTable, LayerMeta> {
  const kindOf = (row: FileRow) => {
    const kind = kinds.find((k) => k.kind === row.kind);
    if (!kind) throw new Error(`No exchange restores layers of kind ${String(row.kind)}`);
    return kind;
  };
  return {
    ...fileTable({
      source: 'layers',
      table: 'layers',
      description:
        'Vector and raster layers: name, style, raster display; table_name is the feature table of a vector layer',
      omit: ['room_id', 'storage_key', 'last_row', 'size_bytes', 'file_key', 'job_id', ...SOURCE_COLUMNS],
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
    export: {
      rows: (roomId) => layers.list(roomId),
      parts: (row, include) => kinds.find((k) => k.kind === row.kind)?.files.exported(row, include) ?? [],
    },
    ingest: {
      staged: (row, fallbackName) => kindOf(row).staged(row, fallbackName),
      source: (row) => kinds.find((k) => k.kind === row.kind)?.files.source(row) ?? null,
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
  files: {
    // Its features as a feature table named after it (`table_name`), read by the export worker
    // from the stored features; of the layer's kind, which the worker makes the exact type (a
    // layer of polygons may hold multi-polygons too: MULTIPOLYGON), else GEOMETRY (a mixed layer).
    exported: (row) =>
      row.storage_key === null
        ? []
        : [
            {
              type: 'features',
              column: 'table_name',
              name: row.name,
              description: row.description ?? '',
              key: Number(row.storage_key),
              featureCount: Number(row.feature_count),
              lastRow: Number(row.last_row),
              geometryType: TABLE_KINDS[row.geometry_type ?? ''] ?? 'GEOMETRY',
              fields: row.fields ? (JSON.parse(row.fields) as LayerField[]) : null,
            },
          ],
    source: (row) => (typeof row.table_name === 'string' ? { type: 'features', table: row.table_name } : null),
  },
});

/** The GeoPackage type of a layer of one kind of geometry (see `exactGeometryType`). */
const TABLE_KINDS: Record<string, GpkgGeometryType> = { Point: 'POINT', LineString: 'LINESTRING', Polygon: 'POLYGON' };

/** A stored style that is still valid, else the default. */
function styleOf(value: unknown): StyleInput {
  try {
    const style = JSON.parse(String(value)) as unknown;
    return styleCheck.problem(style) === null ? (style as StyleInput) : DEFAULT_STYLE;
  } catch {
    return DEFAULT_STYLE;
  }
}
