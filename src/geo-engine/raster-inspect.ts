import {
  describeRaster,
  type GdalInfoJson,
  RasterRejected,
  type RasterInfo,
  reasonWithoutPath,
} from '../geo/raster/raster-info.js';
import { GdalError, type GdalLimits, runGdal } from './gdal-process.js';

/** `gdalinfo -json` of a raster, opened as a GeoTIFF only; a refusal says GDAL's reason. */
export async function gdalInfo(
  path: string,
  limits: GdalLimits & { maxOutputBytes: number },
  extraArgs: string[] = [],
): Promise<unknown> {
  try {
    const { stdout } = await runGdal('gdalinfo', ['-json', '-if', 'GTiff', ...extraArgs, path], limits);
    return JSON.parse(stdout);
  } catch (error) {
    if (error instanceof GdalError && error.failure === 'failed') {
      throw new RasterRejected('invalid_file', `Not a readable GeoTIFF: ${reasonWithoutPath(error.reason, path)}`);
    }
    throw error;
  }
}

/**
 * Checks an uploaded file and describes it (geo/raster/raster-info.ts judges GDAL's
 * description): refuses what GDAL's GeoTIFF driver cannot open (not a TIFF, a PNG renamed
 * .tif, a broken header) and what the rules refuse. Pixel data is checked later, when ingest
 * reads it all.
 */
export async function inspectRaster(
  path: string,
  limits: GdalLimits & { maxOutputBytes: number },
  maxPixels: number,
): Promise<RasterInfo> {
  const info = (await gdalInfo(path, limits, ['-nomd', '-norat', '-noct'])) as GdalInfoJson;
  return describeRaster(info, maxPixels);
}
