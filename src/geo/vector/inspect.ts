import { fileURLToPath } from 'node:url';
import { GdalError, runGdal, type GdalLimits } from '../gdal.js';
import type { LayerGeometryType } from '../feature-summary.js';
import type { DeclaredField } from '../feature-fields.js';
import type { Bbox } from '../tile-math.js';
import { VectorRejected } from './errors.js';
import { GDAL_DRIVERS, type VectorFormat } from './format.js';

/** What GDAL opens for one table: the driver, the path (`/vsizip/...` or `CSV:...`) and open options. */
export interface VectorSource {
  format: VectorFormat;
  driver: string;
  gdalPath: string;
  openOptions: string[];
  /** The file as its sender knows it (the uploaded name, or the zip member): paths of ours never reach a message. */
  label: string;
}

/** GDAL's reason with every path of ours replaced by the source's label. */
export function scrubReason(reason: string, source: VectorSource): string {
  const paths = [source.gdalPath, source.gdalPath.replace(/^CSV:/, ''), source.gdalPath.replace(/^\/vsizip\//, '')];
  let text = reason;
  for (const found of paths.sort((a, b) => b.length - a.length)) text = text.split(found).join(source.label);
  return text.replace(/\/(?:tmp|var|home|data|srv|opt|root|run)\/[^\s'"`]*/g, source.label);
}

/** One feature table of an uploaded file, as the upload route and the ingest need it. */
export interface VectorTable {
  source: VectorSource;
  /** The table's name in the file (a GeoPackage table, a shapefile's base name). */
  name: string;
  featureCount: number;
  /** Multi-parts folded in; null when the table declares no type and holds no geometry. */
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
  /** The attribute fields GDAL declares, in the table's order. */
  fields: DeclaredField[];
}

/** Limits for the inspection: counting features of a big GeoJSON or CSV file reads all of it. */
export const INSPECT_LIMITS: GdalLimits = { timeoutMs: 10 * 60_000, memoryBytes: 2 * 1024 ** 3 };

const SCRIPT = fileURLToPath(new URL('../python/inspect_vector.py', import.meta.url));

interface RawTable {
  name: string;
  featureCount: number;
  geometryType: string;
  crs: { authority: string | null; code: string | null; name: string; geographic: boolean } | null;
  extent: Bbox | null;
  wgs84Extent: Bbox | null;
  firstOutsideLonLat: number | null;
  fidColumn: string | null;
  fidRange: [number, number] | null;
  fields: DeclaredField[];
}

/**
 * The feature tables GDAL finds in a source, with their CRS decided: a declared CRS is kept
 * (reprojection happens when features are read); a file with no CRS is taken as WGS84 when
 * its extent fits longitude/latitude, else `unknown_crs`. A geographic table whose features
 * pass longitude/latitude bounds is `invalid_file` naming the first such feature (or
 * `unknown_crs` for GeoJSON whose numbers are plainly projected metres). GDAL failing to
 * open the file, or passing its time or memory limit, is `invalid_file` with GDAL's reason;
 * an abort, or GDAL missing, stays a GdalError.
 */
export async function inspectSource(source: VectorSource, limits: GdalLimits = INSPECT_LIMITS): Promise<VectorTable[]> {
  const request = JSON.stringify({ path: source.gdalPath, driver: source.driver, openOptions: source.openOptions });
  let stdout: string;
  try {
    ({ stdout } = await runGdal('python3', [SCRIPT, request], { ...limits, maxOutputBytes: 16 * 1024 * 1024 }));
  } catch (error) {
    if (error instanceof GdalError && error.failure !== 'aborted' && error.failure !== 'missing')
      throw new VectorRejected(
        'invalid_file',
        `GDAL cannot read ${source.label}: ${scrubReason(error.reason, source)}`,
      );
    throw error;
  }
  const { tables } = JSON.parse(stdout) as { tables: RawTable[] };
  return tables.map((raw) => decideTable(source, raw));
}

const fitsLonLat = (e: Bbox) => e[0] >= -180 && e[2] <= 180 && e[1] >= -90 && e[3] <= 90;

function decideTable(source: VectorSource, raw: RawTable): VectorTable {
  const base = {
    source,
    name: raw.name,
    featureCount: raw.featureCount,
    geometryType: foldType(raw.geometryType),
    fidColumn: raw.fidColumn,
    fidRange: raw.fidRange,
    fields: raw.fields,
  };
  // ogr2ogr takes the table's name as a bare argument: a name like `--config` would be an option.
  if (raw.name.startsWith('-'))
    throw new VectorRejected(
      'invalid_file',
      `The table name "${raw.name.slice(0, 100)}" starts with "-"; rename the table`,
      { table: raw.name },
    );
  const where = `${raw.name}: extent ${JSON.stringify(raw.extent)}`;
  const first = raw.firstOutsideLonLat;
  const firstText = first ? `; first at ${source.format === 'csv' ? 'row' : 'feature'} ${first}` : '';
  if (!raw.crs) {
    if (raw.extent && !fitsLonLat(raw.extent)) {
      throw new VectorRejected(
        'unknown_crs',
        `The file declares no coordinate reference system and its coordinates are not longitude/latitude (${where}${firstText}); add the CRS (for a shapefile its .prj file)`,
        first ? { table: raw.name, [source.format === 'csv' ? 'row' : 'feature']: first } : { table: raw.name },
      );
    }
    return { ...base, sourceCrs: 'EPSG:4326', crsAssumed: true, bbox: raw.extent };
  }
  const sourceCrs = raw.crs.authority && raw.crs.code ? `${raw.crs.authority}:${raw.crs.code}` : raw.crs.name;
  if (raw.crs.geographic && raw.extent && !fitsLonLat(raw.extent)) {
    const projected = Math.max(...raw.extent.map(Math.abs)) > 1000;
    if (source.format === 'geojson' && projected) {
      throw new VectorRejected(
        'unknown_crs',
        `GeoJSON coordinates must be longitude/latitude (RFC 7946); these look like projected coordinates (${where}) and the file names no CRS`,
        { table: raw.name },
      );
    }
    throw new VectorRejected(
      'invalid_file',
      `Coordinates out of range: longitude must be from -180 to 180 and latitude from -90 to 90 (${where}${firstText})`,
      first ? { table: raw.name, feature: first } : { table: raw.name },
    );
  }
  return { ...base, sourceCrs, crsAssumed: false, bbox: raw.wgs84Extent };
}

/** OGR's flattened type name folded to the layer's type: multi-parts count as their part. */
function foldType(name: string): LayerGeometryType | null {
  switch (name) {
    case 'Point':
    case 'MultiPoint':
      return 'Point';
    case 'LineString':
    case 'MultiLineString':
    case 'CircularString':
    case 'CompoundCurve':
    case 'MultiCurve':
      return 'LineString';
    case 'Polygon':
    case 'MultiPolygon':
    case 'CurvePolygon':
    case 'MultiSurface':
    case 'PolyhedralSurface':
    case 'TIN':
    case 'Triangle':
      return 'Polygon';
    case 'None':
      return null;
    default:
      return 'Mixed';
  }
}

/** The driver name for a format (re-exported for callers that build sources). */
export const driverOf = (format: VectorFormat) => GDAL_DRIVERS[format];
