import type { DeclaredField } from '../feature-fields.js';
import type { LayerGeometryType } from '../feature-summary.js';
import { withoutSql } from '../gdal-reason.js';
import type { Bbox } from '../tile-math.js';
import { GDAL_DRIVERS, type VectorFormat } from './format.js';

/** What GDAL opens for one table: the driver, the path (`/vsizip/...` or `CSV:...`) and open options. */
export interface VectorSource {
  format: VectorFormat;
  driver: string;
  gdalPath: string;
  openOptions: string[];
  /** The file as its sender knows it (the uploaded name, or the zip member): paths of ours never reach a message. */
  label: string;
  /** `EPSG:nnnn` the sender says the coordinates are in (`sourceCrs`), taken over what the file declares. */
  assignedCrs?: string;
  /** A GeoJSON whose extent GDAL does not measure: its reader checks every position (vector-open.ts's OpenOptions). */
  positionsCheckedOnRead?: boolean;
}

/** GDAL's reason with every path of ours replaced by the source's label, and without the SQL GDAL quotes. */
export function scrubReason(reason: string, source: VectorSource): string {
  const paths = [source.gdalPath, source.gdalPath.replace(/^CSV:/, ''), source.gdalPath.replace(/^\/vsizip\//, '')];
  let text = withoutSql(reason);
  for (const found of paths.sort((a, b) => b.length - a.length)) text = text.split(found).join(source.label);
  return text.replace(/\/(?:tmp|var|home|data|srv|opt|root|run)\/[^\s'"`]*/g, source.label);
}

/** One feature table of an uploaded file, as the upload route and the ingest need it. */
export interface VectorTable {
  source: VectorSource;
  /** The table's name in the file (a GeoPackage table, a shapefile's base name), as GDAL knows it. */
  name: string;
  /**
   * The table as messages name it: its name, or the sender's file name where GDAL names the one
   * table after the file (GeoJSON, CSV), whose name on disk is ours.
   */
  label: string;
  /** Null when the features are not counted before they are read (a GeoJSON read without GDAL). */
  featureCount: number | null;
  /** Multi-parts folded in; null when the table declares no type and holds no geometry (or is read without GDAL). */
  geometryType: LayerGeometryType | null;
  /** `EPSG:nnnn` when known, else the CRS's name; `EPSG:4326` when assumed. */
  sourceCrs: string;
  /** True when the file has no CRS and its coordinates fit longitude/latitude, so WGS84 was taken. */
  crsAssumed: boolean;
  /** Longitude/latitude bounds (from the table's extent; the ingest measures them exactly). */
  bbox: Bbox | null;
  /** The FID column's name (GeoPackage), or null when the driver numbers features itself. */
  fidColumn: string | null;
  /** [first, last] FID when a filter on FIDs is fast (GeoPackage, shapefile): the table can be read in parts. */
  fidRange: [number, number] | null;
  /**
   * The attribute fields GDAL declares, in the table's order; null for a GeoJSON read without
   * GDAL, whose fields are typed from its features as they are read (geojson-field-types.ts).
   */
  fields: DeclaredField[] | null;
  /**
   * The FeatureCollection's members before its features, when the decision to read it without
   * GDAL was taken on them alone: its reader fails with MembersAfterFeatures if others follow.
   */
  headMembers?: Record<string, unknown>;
}

/** The driver name for a format (re-exported for callers that build sources). */
export const driverOf = (format: VectorFormat) => GDAL_DRIVERS[format];
