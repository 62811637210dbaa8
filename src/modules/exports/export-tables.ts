import type { GpkgColumn, GpkgColumnType, SqlValue } from '../../geo-engine/gpkg-writer.js';
import type { Tables } from '../../db/tables.js';

/**
 * The tables of a room export, described once: the export writes them from database rows,
 * the import reads them back into rows. Each is the database table's columns (room and job
 * columns left out), with times as ISO 8601 text (DATETIME) instead of epoch milliseconds and
 * JSON kept as text. Markers and drawings are feature tables (their position or shape is the
 * geometry); the rest are attribute tables. Each vector layer is a feature table of its own,
 * named in `layers.table_name`.
 */

/** What the export writes in `maproom_export`, so that an import knows its own files. */
export const EXPORT_FORMAT = 'maproom-room-export';
export const EXPORT_VERSION = 1;

export interface ExportColumn extends GpkgColumn {
  /** Epoch milliseconds in the database, ISO 8601 text in the file. */
  time?: boolean;
}

export interface ContentSpec<T extends keyof Tables> {
  source: T;
  /** The table's name in the GeoPackage. */
  table: string;
  description: string;
  columns: ExportColumn[];
}

const col = (name: string, type: GpkgColumnType = 'TEXT'): ExportColumn => ({ name, type });
const time = (name: string): ExportColumn => ({ name, type: 'DATETIME', time: true });
const authored = [col('created_by'), time('created_at'), time('updated_at')];

export const MARKERS: ContentSpec<'markers'> = {
  source: 'markers',
  table: 'markers',
  description: 'Markers (the position is the geometry)',
  columns: [
    col('id'),
    col('title'),
    col('description'),
    col('color'),
    col('tags'),
    time('event_date'),
    col('marker_icon_id'),
    col('marker_icon_size', 'INTEGER'),
    col('image_key'),
    col('thumbnail_key'),
    col('image_meta'),
    col('embedded_media_url'),
    col('media_size'),
    ...authored,
  ],
};

export const DRAWINGS: ContentSpec<'drawings'> = {
  source: 'drawings',
  table: 'drawings',
  description: 'Drawn shapes',
  columns: [col('id'), col('label'), col('style'), ...authored],
};

export const COMMENTS: ContentSpec<'comments'> = {
  source: 'comments',
  table: 'comments',
  description: 'Comment threads on markers, drawings and layers',
  columns: [
    col('id'),
    col('object_id'),
    col('object_type'),
    col('object_name'),
    col('body'),
    col('lat', 'REAL'),
    col('lng', 'REAL'),
    col('resolved', 'BOOLEAN'),
    col('author_kind'),
    col('author_id'),
    time('created_at'),
    time('updated_at'),
  ],
};

export const REPLIES: ContentSpec<'comment_replies'> = {
  source: 'comment_replies',
  table: 'comment_replies',
  description: 'Replies to comments',
  columns: [col('id'), col('comment_id'), col('body'), col('author_kind'), col('author_id'), time('created_at')],
};

export const SLIDES: ContentSpec<'slides'> = {
  source: 'slides',
  table: 'slides',
  description: 'The slides of the presentation, in order',
  columns: [
    col('id'),
    col('position', 'INTEGER'),
    col('title'),
    col('body'),
    col('view'),
    col('base_layer'),
    col('marker_ids'),
    col('layer_ids'),
    col('raster_layer_ids'),
    col('drawing_ids'),
    ...authored,
  ],
};

/** Marker icons, with the file itself in `data`. */
export const ICONS: ContentSpec<'marker_icons'> = {
  source: 'marker_icons',
  table: 'marker_icons',
  description: 'Marker icons (SVG or PNG in data)',
  columns: [
    col('id'),
    col('name'),
    col('size', 'INTEGER'),
    col('content_type'),
    col('created_by'),
    time('created_at'),
    col('data', 'BLOB'),
  ],
};

/** Marker photos and thumbnails, by the key markers name them with, with the file in `data`. */
export const IMAGES: ContentSpec<'stored_files'> = {
  source: 'stored_files',
  table: 'marker_images',
  description: 'Marker photos and thumbnails (JPEG in data)',
  columns: [col('key'), col('kind'), col('content_type'), col('meta'), time('created_at'), col('data', 'BLOB')],
};

/** Vector layers and rasters: settings, styles, display and facts; `table_name` names a vector layer's feature table. */
export const LAYERS: ContentSpec<'layers'> = {
  source: 'layers',
  table: 'layers',
  description:
    'Vector and raster layers: name, style, raster display; table_name is the feature table of a vector layer',
  columns: [
    col('id'),
    col('kind'),
    col('table_name'),
    col('tiles_table'),
    col('name'),
    col('description'),
    col('style'),
    col('display'),
    col('geometry_type'),
    col('feature_count', 'INTEGER'),
    col('bbox'),
    col('source_format'),
    col('source_crs'),
    col('raster'),
    col('fields'),
    ...authored,
  ],
};

export const ROOM: ContentSpec<'rooms'> = {
  source: 'rooms',
  table: 'room',
  description: "The room's settings",
  columns: [
    col('id'),
    col('name'),
    col('description'),
    col('is_public', 'BOOLEAN'),
    col('presentation_is_public', 'BOOLEAN'),
    col('auto_zoom_enabled', 'BOOLEAN'),
    col('default_view_lat', 'REAL'),
    col('default_view_lng', 'REAL'),
    col('default_view_zoom', 'REAL'),
    col('default_theme'),
    col('default_base_layer'),
    col('timeline_settings'),
    time('created_at'),
  ],
};

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

/** Names a vector layer's table may not take. */
export const RESERVED_TABLES = new Set(
  [MARKERS, DRAWINGS, COMMENTS, REPLIES, SLIDES, ICONS, IMAGES, LAYERS, ROOM, RASTER_FILES, META].map(
    (spec) => spec.table,
  ),
);

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
