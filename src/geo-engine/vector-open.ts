import path from 'node:path';
import type { GeoLimits } from '../config.js';
import { VectorRejected } from '../geo/vector/errors.js';
import { GDAL_DRIVERS, type VectorFormat } from '../geo/vector/format.js';
import type { VectorSource, VectorTable } from '../geo/vector/tables.js';
import { detectVectorFormat } from './vector-format.js';
import { inspectSource, tableNameOnDisk } from './vector-inspect.js';
import { vectorMembersInZip, vsizipPath, type ZipLimits } from './vector-zip.js';

/**
 * The entry to an uploaded vector file: which format it is, and which feature tables it
 * holds, with their feature count, geometry type, CRS and extent. Nothing here trusts the
 * file: the format is read from its bytes, a zip is checked before GDAL expands it, and GDAL
 * runs under time and memory limits with only the format's own driver.
 */
export { ACCEPTED_VECTOR_FORMATS, VectorRejected, type VectorRejection } from '../geo/vector/errors.js';
export type { VectorFormat } from '../geo/vector/format.js';
export type { VectorSource, VectorTable } from '../geo/vector/tables.js';

export interface OpenOptions {
  /** `EPSG:nnnn` the file's coordinates are in, whatever it declares (an upload's `sourceCrs`). */
  sourceCrs?: string | null;
  /**
   * A job reads the file, and nobody waits for its refusal before it does (a remote layer's
   * source): a GeoJSON's extent is then not measured by GDAL, a pass of its own; the reader
   * checks every position as it reads (geojson-table.ts), refusing them as the inspection would.
   */
  positionsCheckedOnRead?: boolean;
  /**
   * The members of the GeoJSON FeatureCollection the file holds, all but its features, read
   * already (a remote layer's source). When they name no CRS, or CRS84, GDAL does not open the
   * file: its features are read, checked and their fields typed in one pass (geojson-table.ts).
   */
  collectionMembers?: Record<string, unknown>;
  /**
   * `collectionMembers` are those before the features array only (the file was not read to its
   * end to find them): the reader fails with MembersAfterFeatures if others follow the features.
   */
  membersBeforeFeatures?: boolean;
}

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
  kml: 'The KML holds no placemarks GDAL can read',
  gpx: 'The GPX holds no waypoints, routes or tracks',
  flatgeobuf: 'The FlatGeobuf holds no features GDAL can read',
};

/** GPX tables GDAL derives from routes and tracks (each of their points again): not layers of their own. */
const DERIVED_GPX_TABLES = new Set(['route_points', 'track_points']);

/**
 * Tables that are not layers: a GPX's derived point tables, and the empty tables KML folders
 * and GPX files always declare (a GPX has its five tables whatever it holds).
 */
const isLayerTable = (table: VectorTable) =>
  table.source.format === 'gpx'
    ? !DERIVED_GPX_TABLES.has(table.name) && (table.featureCount ?? 0) > 0
    : table.source.format !== 'kml' || (table.featureCount ?? 0) > 0;

/**
 * Detects the format of the file at `filePath` (uploaded as `originalName`) and lists its
 * feature tables, within `limits` (config.ts). Refusals are VectorRejected: `unsupported_format` (415), or `invalid_file`,
 * `invalid_zip`, `unknown_crs`, `no_feature_tables` (400).
 */
export async function openVectorFile(
  filePath: string,
  originalName: string,
  limits: GeoLimits,
  options: OpenOptions = {},
): Promise<OpenedVectorFile> {
  const detected = await detectVectorFormat(filePath, originalName);
  const sources = await sourcesOf(detected, path.resolve(filePath), originalName, limits.zip, options);
  if (detected === 'geojson' && !options.sourceCrs && isLonLatCollection(options.collectionMembers))
    return {
      format: detected,
      tables: [uninspectedTable(sources[0]!, options.membersBeforeFeatures ? options.collectionMembers : undefined)],
    };
  // A zip is a shapefile or, holding KML instead, a KMZ.
  const format = sources[0]?.format ?? detected;
  const tables: VectorTable[] = [];
  for (const source of sources) tables.push(...(await inspectSource(source, limits.inspect)));
  const layers = tables.filter(isLayerTable);
  if (layers.length === 0) throw new VectorRejected('no_feature_tables', NO_TABLES[format]);
  return { format, tables: layers };
}

/** GeoJSON's own CRS (RFC 7946), named or left unnamed. */
const CRS84 = /^(urn:ogc:def:crs:OGC:(1\.3)?:CRS84|OGC:CRS84|http:\/\/www\.opengis\.net\/def\/crs\/OGC\/1\.3\/CRS84)$/i;

/** A FeatureCollection whose coordinates are longitude/latitude as they stand: no `crs` member, or one naming CRS84. */
export function isLonLatCollection(members: Record<string, unknown> | undefined): boolean {
  if (members?.type !== 'FeatureCollection') return false;
  const crs = members.crs as { type?: unknown; properties?: { name?: unknown } } | null | undefined;
  if (crs === undefined || crs === null) return true;
  const name = crs.type === 'name' ? crs.properties?.name : undefined;
  return typeof name === 'string' && CRS84.test(name);
}

/**
 * A GeoJSON's one table as its reader finds it: counted, typed and measured as its features are
 * read; `headMembers` when its members were read only up to its features.
 */
function uninspectedTable(source: VectorSource, headMembers?: Record<string, unknown>): VectorTable {
  return {
    source,
    name: tableNameOnDisk(source),
    label: source.label,
    featureCount: null,
    geometryType: null,
    sourceCrs: 'EPSG:4326',
    crsAssumed: false,
    bbox: null,
    fidColumn: null,
    fidRange: null,
    fields: null,
    ...(headMembers && { headMembers }),
  };
}

async function sourcesOf(
  format: VectorFormat,
  filePath: string,
  originalName: string,
  zipLimits: ZipLimits,
  { sourceCrs, positionsCheckedOnRead }: OpenOptions,
): Promise<VectorSource[]> {
  const label = path.basename(originalName) || 'the file';
  const source = (of: VectorFormat, gdalPath: string, name: string, openOptions: string[] = []): VectorSource => ({
    format: of,
    driver: GDAL_DRIVERS[of],
    gdalPath,
    openOptions,
    label: name,
    ...(sourceCrs && { assignedCrs: sourceCrs }),
    ...(positionsCheckedOnRead && of === 'geojson' && { positionsCheckedOnRead }),
  });
  switch (format) {
    case 'shapefile': {
      const { shapefiles, kml } = await vectorMembersInZip(filePath, zipLimits);
      if (shapefiles.length > 0)
        return shapefiles.map((member) => source('shapefile', vsizipPath(filePath, member), `${label}/${member}`));
      // A KMZ: LIBKML opens a .kmz only under that extension, so each KML document is opened in the zip.
      if (kml.length > 0) return kml.map((member) => source('kml', vsizipPath(filePath, member), `${label}/${member}`));
      throw new VectorRejected('invalid_zip', 'The zip holds no shapefile (.shp) and no KML (.kml, as in a KMZ)');
    }
    case 'csv':
      // The prefix makes GDAL read it as CSV whatever the stored file's name.
      return [source(format, `CSV:${filePath}`, label, CSV_OPEN_OPTIONS)];
    default:
      return [source(format, filePath, label)];
  }
}
