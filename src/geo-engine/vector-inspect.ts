import path from 'node:path';
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
  const request = JSON.stringify({
    path: source.gdalPath,
    driver: source.driver,
    openOptions: source.openOptions,
    ...(source.assignedCrs && { assignCrs: source.assignedCrs }),
    // Its features are read without GDAL, every position checked (geojson-table.ts): no extent pass.
    ...(source.positionsCheckedOnRead && { readerChecksLonLat: true }),
  });
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
  const { tables, unknownCrs } = JSON.parse(stdout) as { tables: RawTable[]; unknownCrs?: boolean };
  if (unknownCrs)
    throw new VectorRejected(
      'invalid_source_crs',
      `sourceCrs ${source.assignedCrs} is not a coordinate reference system GDAL knows; give an EPSG code such as 2056 (Swiss LV95)`,
      { field: 'sourceCrs' },
    );
  return tables.map((raw) => decideTable(source, raw));
}

/**
 * `unknown_crs`: the message says so in words and how to go on; `details.field` names the
 * upload field that resolves it (`sourceCrs`), which the page asks for.
 */
const unknownCrs = (what: string, details: Record<string, unknown>) =>
  new VectorRejected(
    'unknown_crs',
    `The coordinate reference system is unknown: ${what}. Upload it again with sourceCrs, the EPSG code of its coordinates (e.g. 2056 for Swiss LV95), or add the CRS to the file (for a shapefile its .prj)`,
    { ...details, field: 'sourceCrs' },
  );

/**
 * A feature of a GeoJSON read without GDAL whose position `problem` found, refused as the
 * inspection refuses a table (see decideTable): numbers that are not finite; plainly projected
 * metres (`unknown_crs`, naming `sourceCrs`); else longitude or latitude out of range.
 */
export function geoJsonPositionRefusal(
  label: string,
  feature: number,
  problem: 'not_finite' | 'projected' | 'out_of_range',
): VectorRejected {
  const details = { table: label, feature };
  if (problem === 'not_finite')
    return new VectorRejected(
      'invalid_file',
      `${label}, feature ${feature}: a coordinate is not a finite number (too large, such as 1e309, or not a number)`,
      details,
    );
  if (problem === 'projected')
    return unknownCrs(
      `${label} names no coordinate reference system and its coordinates look projected, not longitude/latitude as GeoJSON's must be (RFC 7946; first at feature ${feature})`,
      details,
    );
  return new VectorRejected(
    'invalid_file',
    `Coordinates out of range: longitude must be from -180 to 180 and latitude from -90 to 90 (${label}; first at feature ${feature})`,
    details,
  );
}

const fitsLonLat = (e: Bbox) => e[0] >= -180 && e[2] <= 180 && e[1] >= -90 && e[3] <= 90;

/** The name GDAL gives a GeoJSON's or CSV's one table (and a FlatGeobuf's without a name): the file's on disk, ours. */
export const tableNameOnDisk = (source: VectorSource) => path.basename(source.gdalPath).replace(/\.[^.]*$/, '');

function decideTable(source: VectorSource, raw: RawTable): VectorTable {
  const onDisk = tableNameOnDisk(source);
  const label = source.format === 'geojson' || source.format === 'csv' || raw.name === onDisk ? source.label : raw.name;
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
      throw unknownCrs(
        `${label} names no coordinate reference system and its coordinates are not longitude/latitude (extent ${JSON.stringify(raw.extent)}${firstText})`,
        { table: label, extent: raw.extent, ...(first && { [source.format === 'csv' ? 'row' : 'feature']: first }) },
      );
    }
    return { ...base, sourceCrs: 'EPSG:4326', crsAssumed: true, bbox: raw.extent };
  }
  const sourceCrs = raw.crs.authority && raw.crs.code ? `${raw.crs.authority}:${raw.crs.code}` : raw.crs.name;
  if (raw.crs.geographic && raw.extent && !fitsLonLat(raw.extent)) {
    const projected = Math.max(...raw.extent.map(Math.abs)) > 1000;
    if (source.format === 'geojson' && projected) {
      throw unknownCrs(
        `${label} names no coordinate reference system and its coordinates look projected, not longitude/latitude as GeoJSON's must be (RFC 7946; extent ${JSON.stringify(raw.extent)})`,
        { table: label, extent: raw.extent },
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
