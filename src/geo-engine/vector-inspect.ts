import { fileURLToPath } from 'node:url';
import { GdalError, runGdal, type GdalLimits } from './gdal-process.js';
import type { LayerGeometryType } from '../geo/feature-summary.js';
import type { DeclaredField } from '../geo/feature-fields.js';
import type { Bbox } from '../geo/tile-math.js';
import { VectorRejected } from '../geo/vector/errors.js';
import { scrubReason, type VectorSource, type VectorTable } from '../geo/vector/tables.js';

const SCRIPT = fileURLToPath(new URL('./python/inspect_vector.py', import.meta.url));

interface RawTable {
  name: string;
  featureCount: number;
  geometryType: string;
  crs: { authority: string | null; code: string | null; name: string; geographic: boolean } | null;
  extent: Bbox | null;
  wgs84Extent: Bbox | null;
  firstOutsideLonLat: number | null;
  /** The first feature with a coordinate that is not finite (0: GDAL's extent saw one, no feature showed it). */
  firstNonFinite: number | null;
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
export async function inspectSource(
  source: VectorSource,
  limits: GdalLimits & { maxOutputBytes: number },
): Promise<VectorTable[]> {
  const request = JSON.stringify({ path: source.gdalPath, driver: source.driver, openOptions: source.openOptions });
  let stdout: string;
  try {
    ({ stdout } = await runGdal('python3', [SCRIPT, request], limits));
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
  // GDAL names a GeoJSON's or CSV's one table after the file on disk, which is ours.
  const label = source.format === 'geojson' || source.format === 'csv' ? source.label : raw.name;
  const base = {
    source,
    name: raw.name,
    label,
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
  if (raw.firstNonFinite !== null) {
    const unit = source.format === 'csv' ? 'row' : 'feature';
    const at = raw.firstNonFinite > 0 ? `, ${unit} ${raw.firstNonFinite}` : '';
    throw new VectorRejected(
      'invalid_file',
      `${label}${at}: a coordinate is not a finite number (too large, such as 1e309, or not a number)`,
      raw.firstNonFinite > 0 ? { table: label, [unit]: raw.firstNonFinite } : { table: label },
    );
  }
  const where = `${label}: extent ${JSON.stringify(raw.extent)}`;
  const first = raw.firstOutsideLonLat;
  const firstText = first ? `; first at ${source.format === 'csv' ? 'row' : 'feature'} ${first}` : '';
  if (!raw.crs) {
    if (raw.extent && !fitsLonLat(raw.extent)) {
      throw new VectorRejected(
        'unknown_crs',
        `The file declares no coordinate reference system and its coordinates are not longitude/latitude (${where}${firstText}); add the CRS (for a shapefile its .prj file)`,
        first ? { table: label, [source.format === 'csv' ? 'row' : 'feature']: first } : { table: label },
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
        { table: label },
      );
    }
    throw new VectorRejected(
      'invalid_file',
      `Coordinates out of range: longitude must be from -180 to 180 and latitude from -90 to 90 (${where}${firstText})`,
      first ? { table: label, feature: first } : { table: label },
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
