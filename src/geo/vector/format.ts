import { unsupportedFormat, VectorRejected } from './errors.js';

/** The vector formats an upload may be in. */
export type VectorFormat = 'geojson' | 'shapefile' | 'geopackage' | 'csv' | 'kml' | 'gpx' | 'flatgeobuf';

/** The one GDAL driver that opens each format (a file cannot pose as another format). */
export const GDAL_DRIVERS: Record<VectorFormat, string> = {
  geojson: 'GeoJSON',
  shapefile: 'ESRI Shapefile',
  geopackage: 'GPKG',
  csv: 'CSV',
  // LIBKML rather than KML: it reads ExtendedData (a placemark's fields), which KML drops.
  kml: 'LIBKML',
  gpx: 'GPX',
  flatgeobuf: 'FlatGeobuf',
};

/** How many first bytes decide the format. */
export const HEAD_BYTES = 4096;
const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');
/** GeoPackage application ids (header bytes 68 to 71): "GPKG", and "GP10"/"GP11" of GeoPackage 1.0/1.1. */
const GPKG_APPLICATION_IDS = new Set(['GPKG', 'GP10', 'GP11']);
/** FlatGeobuf's magic bytes: "fgb", the major version 3, "fgb", then any patch version. */
const FLATGEOBUF_MAGIC = Buffer.from('fgb\x03fgb', 'latin1');
const CSV_EXTENSIONS = new Set(['.csv', '.tsv', '.txt']);
const SHAPEFILE_PARTS = new Set(['.shp', '.shx', '.dbf', '.prj']);

/** A name's extension with its dot, lower case (`.geojson`), or '' (as node's path.extname). */
function extensionOf(name: string): string {
  const base = name.slice(name.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot).toLowerCase() : '';
}

/**
 * The format of an uploaded file, decided by its first bytes (`head`, at most HEAD_BYTES) and
 * checked against its original name: a zip (which must hold a shapefile, or be a KMZ holding
 * KML), a GeoPackage, a FlatGeobuf, GeoJSON (a JSON object), KML or GPX (XML whose first
 * bytes hold `<kml` or `<gpx`) or a CSV (a text file named .csv, .tsv or .txt). Anything else
 * is refused as `unsupported_format`.
 */
export function vectorFormatOf(head: Buffer, originalName: string): VectorFormat {
  const extension = extensionOf(originalName);
  if (head.length === 0) throw new VectorRejected('invalid_file', 'The file is empty');
  if (head[0] === 0x50 && head[1] === 0x4b && (head[2] === 3 || head[2] === 5) && (head[3] === 4 || head[3] === 6))
    return 'shapefile';
  if (head.subarray(0, FLATGEOBUF_MAGIC.length).equals(FLATGEOBUF_MAGIC)) return 'flatgeobuf';
  if (head.subarray(0, SQLITE_MAGIC.length).equals(SQLITE_MAGIC)) {
    const applicationId = head.subarray(68, 72).toString('latin1');
    if (GPKG_APPLICATION_IDS.has(applicationId) || extension === '.gpkg') return 'geopackage';
    throw unsupportedFormat('The file is an SQLite database but not a GeoPackage');
  }
  if (SHAPEFILE_PARTS.has(extension)) {
    throw unsupportedFormat(
      `A shapefile's ${extension} file alone cannot be read: upload the .shp, .shx, .dbf and .prj together in one .zip`,
    );
  }
  if (head.includes(0)) throw unsupportedFormat('The file is neither text nor a known binary format');
  const text = head
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart();
  if (text.startsWith('{')) return 'geojson';
  if (text.startsWith('<')) {
    if (/<(\w+:)?kml[\s>]/.test(text)) return 'kml';
    if (/<(\w+:)?gpx[\s>]/.test(text)) return 'gpx';
    throw unsupportedFormat('The file is XML but neither KML nor GPX');
  }
  if (CSV_EXTENSIONS.has(extension)) return 'csv';
  if (extension === '.geojson' || extension === '.json') {
    throw new VectorRejected(
      'invalid_file',
      'The file is named as GeoJSON but does not start with a JSON object (a FeatureCollection)',
    );
  }
  throw unsupportedFormat('The file is not in an accepted format');
}
