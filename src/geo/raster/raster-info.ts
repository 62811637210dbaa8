/**
 * What an uploaded raster must be, judged from what `gdalinfo -json` says about it (read by
 * geo-engine/raster-inspect.ts): a GeoTIFF or BigTIFF (opened with the GTiff driver only),
 * readable, georeferenced and of a data type the tiles can draw. A refusal is a
 * RasterRejected with GDAL's reason.
 */
import { withoutSql } from '../gdal-reason.js';

export type RasterRejection = 'invalid_file' | 'unknown_crs' | 'unsupported_raster';

/** An upload the service refuses (400), with a sentence fit for the person who sent it. */
export class RasterRejected extends Error {
  constructor(
    readonly code: RasterRejection,
    message: string,
  ) {
    super(message);
  }
}

export interface RasterInfo {
  width: number;
  height: number;
  /** Data bands; an alpha band is not counted (see hasAlpha). */
  bands: number;
  /** GDAL's name of the stored type: Byte, Int16, UInt16, Int32, UInt32, Float32 or Float64. */
  dataType: string;
  /** The file's own type, when it differs (Int8 is stored as Int16, 64-bit integers as Float64). */
  sourceDataType: string;
  /** The nodata value of the first band, or null (also for NaN, which is always no data). */
  nodata: number | null;
  hasAlpha: boolean;
  /** `EPSG:nnnn` when GDAL knows the code, else the CRS name; EPSG:4326 when assumed. */
  sourceCrs: string;
  /** True when the file had no CRS and its coordinates fit WGS84, so WGS84 was assumed. */
  crsAssumed: boolean;
  /** [minLon, minLat, maxLon, maxLat] of the file's corners as GDAL puts them in WGS84; null when GDAL gives none (ground control points). */
  bbox: [number, number, number, number] | null;
}

/** More bands than this are refused: every tile read pays for all bands of a pixel. */
export const MAX_BANDS = 32;
const DRAWABLE = new Set([
  'Byte',
  'Int8',
  'UInt16',
  'Int16',
  'UInt32',
  'Int32',
  'Float32',
  'Float64',
  'UInt64',
  'Int64',
]);

/** The part of `gdalinfo -json` the checks read. */
export interface GdalInfoJson {
  driverShortName?: string;
  size?: [number, number];
  coordinateSystem?: { wkt?: string };
  geoTransform?: number[];
  gcps?: { gcpList?: unknown[] };
  bands?: { type: string; colorInterpretation?: string; noDataValue?: number | string }[];
  stac?: { 'proj:epsg'?: number | null };
  wgs84Extent?: { coordinates: number[][][] };
}

/** GDAL's reason without the files' paths (no path of the service reaches a response) and without the SQL it quotes. */
export function reasonWithoutPath(reason: string, ...paths: string[]): string {
  let text = withoutSql(reason);
  for (const path of paths) {
    const name = path.split('/').pop() ?? path;
    text = text.split(path).join('the file').split(name).join('the file');
  }
  return text.replace(/[`']the file'/g, 'the file');
}

/** The CRS name of a WKT (its first quoted string). */
function crsName(wkt: string): string {
  return /^\w+\["([^"]+)"/.exec(wkt)?.[1] ?? 'unknown';
}

/** The bounding box of GDAL's WGS84 footprint polygon (the corners; assumed WGS84 when no CRS). */
function footprint(info: GdalInfoJson, assumed: boolean): [number, number, number, number] | null {
  const [width, height] = info.size ?? [0, 0];
  const t = info.geoTransform;
  const corners =
    assumed && t
      ? [
          [t[0], t[3]],
          [t[0] + t[1] * width + t[2] * height, t[3] + t[4] * width + t[5] * height],
        ]
      : info.wgs84Extent?.coordinates[0];
  if (!corners?.length) return null;
  const lons = corners.map((c) => c[0]);
  const lats = corners.map((c) => c[1]);
  return [Math.min(...lons), Math.min(...lats), Math.max(...lons), Math.max(...lats)];
}

/** Whether a north-up raster's corners all lie within longitude/latitude ranges. */
function fitsWgs84(transform: number[], width: number, height: number): boolean {
  const xs = [transform[0], transform[0] + transform[1] * width + transform[2] * height];
  const ys = [transform[3], transform[3] + transform[4] * width + transform[5] * height];
  return xs.every((x) => x >= -180 && x <= 180) && ys.every((y) => y >= -90 && y <= 90);
}

/**
 * Judges an uploaded file by GDAL's description and describes it: refuses what GDAL's GeoTIFF
 * driver did not open (not a TIFF, a PNG renamed .tif), a TIFF without georeferencing, a CRS
 * that is missing where the coordinates do not fit WGS84, complex data, too many bands and
 * more than `maxPixels` pixels (a header can claim a million by a million pixels in a few
 * bytes, and the warp would try to write them all).
 */
export function describeRaster(info: GdalInfoJson, maxPixels: number): RasterInfo {
  if (info.driverShortName !== 'GTiff') throw new RasterRejected('invalid_file', 'Not a GeoTIFF');
  const [width, height] = info.size ?? [0, 0];
  const bands = info.bands ?? [];
  if (!width || !height || !bands.length) throw new RasterRejected('invalid_file', 'The GeoTIFF has no pixels');
  if (width * height > maxPixels) {
    throw new RasterRejected(
      'unsupported_raster',
      `The GeoTIFF has ${width} x ${height} pixels; at most ${maxPixels} pixels are supported`,
    );
  }
  const hasGcps = (info.gcps?.gcpList?.length ?? 0) >= 3;
  if (!info.geoTransform && !hasGcps) {
    throw new RasterRejected(
      'invalid_file',
      'The TIFF has no georeferencing (no geotransform or ground control points): GDAL cannot place it on the map',
    );
  }
  const wkt = info.coordinateSystem?.wkt ?? '';
  let sourceCrs: string;
  let crsAssumed = false;
  if (wkt) {
    const epsg = info.stac?.['proj:epsg'];
    sourceCrs = epsg ? `EPSG:${epsg}` : crsName(wkt);
  } else if (info.geoTransform && fitsWgs84(info.geoTransform, width, height)) {
    sourceCrs = 'EPSG:4326';
    crsAssumed = true;
  } else {
    throw new RasterRejected(
      'unknown_crs',
      'The GeoTIFF has no coordinate reference system and its coordinates are not longitude/latitude',
    );
  }
  const type = bands[0].type;
  if (!DRAWABLE.has(type))
    throw new RasterRejected('unsupported_raster', `Data type ${type} cannot be drawn (complex numbers)`);
  const hasAlpha = bands.length > 1 && bands[bands.length - 1].colorInterpretation === 'Alpha';
  const dataBands = bands.length - (hasAlpha ? 1 : 0);
  if (dataBands > MAX_BANDS)
    throw new RasterRejected(
      'unsupported_raster',
      `The GeoTIFF has ${dataBands} bands; at most ${MAX_BANDS} are supported`,
    );
  const nodata = bands[0].noDataValue;
  return {
    width,
    height,
    bands: dataBands,
    dataType: /^U?Int64$/.test(type) ? 'Float64' : type === 'Int8' ? 'Int16' : type,
    sourceDataType: type,
    nodata: nodata === undefined || Number.isNaN(Number(nodata)) ? null : Number(nodata),
    hasAlpha,
    sourceCrs,
    crsAssumed,
    bbox: footprint(info, crsAssumed),
  };
}
