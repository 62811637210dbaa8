import type { SqlValue } from '../../geo-engine/gpkg-writer.js';
import type { ExportColumn } from '../exchange/exchange.js';

/**
 * The tables of a room export that belong to no domain: what the file is, and the rasters'
 * GeoTIFFs. The domains' tables are declared by their exchanges (exchange/exchange.ts): each
 * is the database table's columns (room and job columns left out), with times as ISO 8601
 * text (DATETIME) instead of epoch milliseconds and JSON kept as text. Markers and drawings
 * are feature tables (their position or shape is the geometry); the rest are attribute
 * tables. Each vector layer is a feature table of its own, named in `layers.table_name`.
 */

/** What the export writes in `maproom_export`, so that an import knows its own files. */
export const EXPORT_FORMAT = 'maproom-room-export';
/** The export file's format version, kept in its metadata table: fixed, a rule of the file. */
export const EXPORT_VERSION = 1;

export type { ExportColumn };

const col = (name: string, type: ExportColumn['type'] = 'TEXT'): ExportColumn => ({ name, type });

/** The original GeoTIFF of each raster (`include_tiffs`), in parts (SQLite caps a value at 1 GB). */
export const RASTER_FILES = {
  table: 'raster_files',
  description: "The rasters' original GeoTIFFs, in parts of data to concatenate by part",
  columns: [col('layer_id'), col('part', 'INTEGER'), col('data', 'BLOB')] as ExportColumn[],
};

export const META = {
  table: 'maproom_export',
  description: 'What this file is: a Maproom room export (format, version, source room, options)',
  columns: [col('key'), col('value')] as ExportColumn[],
};

/** Names a vector layer's table may not take (besides the domains' tables). */
export const RESERVED_TABLES = new Set([RASTER_FILES.table, META.table]);

/** A database value as the file stores it (times as ISO text). */
export function toFileValue(column: ExportColumn, value: unknown): SqlValue {
  if (value === null || value === undefined) return null;
  if (column.time) return new Date(Number(value)).toISOString();
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value as SqlValue;
}

/** A value read from the file as the database stores it. */
export function toRowValue(column: ExportColumn, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (column.time) {
    const ms = Date.parse(String(value));
    return Number.isFinite(ms) ? ms : null;
  }
  return value;
}

/** The values of a row in the order of the spec's columns (BLOB columns are filled by the caller). */
export function valuesOf(columns: ExportColumn[], row: object): SqlValue[] {
  const values = row as Record<string, unknown>;
  return columns.map((column) => (column.type === 'BLOB' ? null : toFileValue(column, values[column.name])));
}

/** A short, readable, unique table name for a vector layer (`districts`, `districts_2`). */
export function layerTableName(name: string, taken: Set<string>): string {
  let base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 48);
  if (!/^[a-z]/.test(base)) base = `layer_${base}`.replace(/_+$/, '');
  if (base.startsWith('gpkg') || base.startsWith('rtree') || base.startsWith('sqlite')) base = `layer_${base}`;
  let candidate = base;
  for (let n = 2; RESERVED_TABLES.has(candidate) || taken.has(candidate); n += 1) candidate = `${base}_${n}`;
  taken.add(candidate);
  return candidate;
}
