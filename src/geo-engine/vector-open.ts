import path from 'node:path';
import type { GeoLimits } from '../config.js';
import { VectorRejected } from '../geo/vector/errors.js';
import { GDAL_DRIVERS, type VectorFormat } from '../geo/vector/format.js';
import type { VectorSource, VectorTable } from '../geo/vector/tables.js';
import { detectVectorFormat } from './vector-format.js';
import { inspectSource } from './vector-inspect.js';
import { shapefilesInZip, vsizipPath, type ZipLimits } from './vector-zip.js';

/**
 * The entry to an uploaded vector file: which format it is, and which feature tables it
 * holds, with their feature count, geometry type, CRS and extent. Nothing here trusts the
 * file: the format is read from its bytes, a zip is checked before GDAL expands it, and GDAL
 * runs under time and memory limits with only the format's own driver.
 */
export { ACCEPTED_VECTOR_FORMATS, VectorRejected, type VectorRejection } from '../geo/vector/errors.js';
export type { VectorFormat } from '../geo/vector/format.js';
export type { VectorSource, VectorTable } from '../geo/vector/tables.js';

export interface OpenedVectorFile {
  format: VectorFormat;
  /** At least one; a GeoPackage (or a zip of several shapefiles) may hold several. */
  tables: VectorTable[];
}

/**
 * CSV columns GDAL takes as coordinates (case does not matter): longitude and latitude under
 * their usual names, or a WKT geometry. Columns holding coordinates are not kept as properties.
 */
export const CSV_OPEN_OPTIONS = [
  'X_POSSIBLE_NAMES=longitude,lon,lng,long,x',
  'Y_POSSIBLE_NAMES=latitude,lat,y',
  'GEOM_POSSIBLE_NAMES=wkt,geometry,geom,the_geom,wkt_geom',
  'KEEP_GEOM_COLUMNS=NO',
  'AUTODETECT_TYPE=YES',
  'EMPTY_STRING_AS_NULL=YES',
];

const NO_TABLES: Record<VectorFormat, string> = {
  geopackage: 'The GeoPackage holds no feature table (no table with a geometry column)',
  csv: 'The CSV has no longitude/latitude columns (longitude, lon, lng, long or x with latitude, lat or y) and no WKT column (wkt, geometry, geom)',
  geojson: 'The GeoJSON holds no features GDAL can read',
  shapefile: 'The shapefile holds no features GDAL can read',
};

/**
 * Detects the format of the file at `filePath` (uploaded as `originalName`) and lists its
 * feature tables, within `limits` (config.ts). Refusals are VectorRejected: `unsupported_format` (415), or `invalid_file`,
 * `invalid_zip`, `unknown_crs`, `no_feature_tables` (400).
 */
export async function openVectorFile(
  filePath: string,
  originalName: string,
  limits: GeoLimits,
): Promise<OpenedVectorFile> {
  const format = await detectVectorFormat(filePath, originalName);
  const sources = await sourcesOf(format, path.resolve(filePath), originalName, limits.zip);
  const tables: VectorTable[] = [];
  for (const source of sources) tables.push(...(await inspectSource(source, limits.inspect)));
  if (tables.length === 0) throw new VectorRejected('no_feature_tables', NO_TABLES[format]);
  return { format, tables };
}

async function sourcesOf(
  format: VectorFormat,
  filePath: string,
  originalName: string,
  zipLimits: ZipLimits,
): Promise<VectorSource[]> {
  const driver = GDAL_DRIVERS[format];
  const label = path.basename(originalName) || 'the file';
  switch (format) {
    case 'shapefile': {
      const members = await shapefilesInZip(filePath, zipLimits);
      return members.map((member) => ({
        format,
        driver,
        gdalPath: vsizipPath(filePath, member),
        openOptions: [],
        label: `${label}/${member}`,
      }));
    }
    case 'csv':
      // The prefix makes GDAL read it as CSV whatever the stored file's name.
      return [{ format, driver, gdalPath: `CSV:${filePath}`, openOptions: CSV_OPEN_OPTIONS, label }];
    default:
      return [{ format, driver, gdalPath: filePath, openOptions: [], label }];
  }
}
