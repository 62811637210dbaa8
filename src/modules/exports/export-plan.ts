import type { LayerField } from '../../geo/feature-fields.js';
import type { GpkgColumn, GpkgColumnType, GpkgGeometryType, SqlValue } from '../../geo-engine/gpkg-writer.js';
import type { GeoJsonGeometry } from '../../geo/gpkg/wkb.js';
import type { IngestDatabase } from '../layers/vector-ingest.js';

/**
 * What the export worker (room-export.worker.ts) writes: the small tables ready to insert,
 * and for each vector layer where its features are. A value may name a file (or a byte range
 * of one) that the worker reads into a BLOB.
 */
export type PlanValue = SqlValue | { file: string; start?: number; end?: number };

export interface ExportPlan {
  outputPath: string;
  database: IngestDatabase;
  attributeTables: { table: string; description: string; columns: GpkgColumn[]; rows: PlanValue[][] }[];
  featureTables: {
    table: string;
    description: string;
    geometryType: GpkgGeometryType;
    columns: GpkgColumn[];
    rows: { geometry: GeoJsonGeometry | null; values: SqlValue[] }[];
  }[];
  layerTables: {
    table: string;
    identifier: string;
    description: string;
    key: number;
    featureCount: number;
    lastRow: number;
    /** POINT, LINESTRING or POLYGON for a layer of one kind (the worker makes it the table's exact type), else GEOMETRY. */
    geometryType: GpkgGeometryType;
    fields: LayerField[] | null;
  }[];
}

const SINGLE_TYPES: Partial<Record<GpkgGeometryType, string>> = {
  POINT: 'Point',
  LINESTRING: 'LineString',
  POLYGON: 'Polygon',
};

/**
 * The type a layer's table declares, from the layer's kind (`POINT`, `LINESTRING`, `POLYGON`
 * or `GEOMETRY`) and the GeoJSON types its features have: the kind when all are single-part,
 * its MULTI* form when some are multi-part (the writer writes the others as one-part multis,
 * as GDAL's PROMOTE_TO_MULTI does), GEOMETRY otherwise.
 */
export function exactGeometryType(kind: GpkgGeometryType, types: string[]): GpkgGeometryType {
  const single = SINGLE_TYPES[kind];
  if (!single) return kind;
  if (types.every((type) => type === single)) return kind;
  if (types.every((type) => type === single || type === `Multi${single}`)) return `MULTI${kind}` as GpkgGeometryType;
  return 'GEOMETRY';
}

export type FromExportWorker =
  | { type: 'progress'; fraction: number; message: string }
  | { type: 'done' }
  | { type: 'error'; message: string };

const COLUMN_TYPES: Record<LayerField['type'], GpkgColumnType> = {
  integer: 'INTEGER',
  real: 'REAL',
  string: 'TEXT',
  boolean: 'BOOLEAN',
  date: 'DATE',
  datetime: 'DATETIME',
  json: 'TEXT',
  choice: 'TEXT',
};

/** The column of each field; a name the table already uses (`fid`, `geom`, or the same name in other case) gets `_2`, `_3`. */
export function layerColumns(fields: LayerField[]): GpkgColumn[] {
  const taken = new Set(['fid', 'geom']);
  return fields.map((field) => {
    let name = field.name;
    for (let n = 2; taken.has(name.toLowerCase()); n += 1) name = `${field.name}_${n}`;
    taken.add(name.toLowerCase());
    return { name, type: COLUMN_TYPES[field.type] };
  });
}

/** A feature's properties as the values of its fields' columns; a value that does not fit its column's type is kept as text. */
export function layerValues(fields: LayerField[], properties: Record<string, unknown>): SqlValue[] {
  return fields.map((field) => {
    const value = properties[field.name];
    if (value === null || value === undefined) return null;
    switch (field.type) {
      case 'integer':
      case 'real':
        return typeof value === 'number' ? value : String(value);
      case 'boolean':
        return typeof value === 'boolean' ? (value ? 1 : 0) : String(value);
      case 'json':
        return JSON.stringify(value);
      default:
        return typeof value === 'object' ? JSON.stringify(value) : String(value);
    }
  });
}
