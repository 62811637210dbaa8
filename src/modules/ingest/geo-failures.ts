import { fileRefused, unsupportedFileFormat, type AppError } from '../../errors.js';
import { GdalError } from '../../geo-engine/gdal-process.js';
import { RasterRejected } from '../../geo/raster/raster-info.js';
import { VectorRejected } from '../../geo/vector/errors.js';

/**
 * The one place where failures of the geo code become the contract's errors. geo/ refuses a
 * file with its own errors (VectorRejected, RasterRejected, GdalError), which know nothing of
 * HTTP; the ingest, and the exports that read files with GDAL, translate them here. Anything
 * else passes through unchanged (a bug stays a 500).
 */

/** A refused vector file or GeoTIFF: 415 for a format the service does not take, else 400 with the refusal's code. */
export function refusalOf(error: unknown): unknown {
  if (error instanceof VectorRejected) {
    return error.code === 'unsupported_format'
      ? unsupportedFileFormat(error.message, error.details)
      : fileRefused(error.code, error.message, error.details);
  }
  if (error instanceof RasterRejected) return fileRefused(error.code, error.message);
  return error;
}

/** A refused GeoTIFF, where GDAL running past its time or memory limit is a refusal too (400 unsupported_raster). */
export function rasterRefusalOf(error: unknown): unknown {
  if (error instanceof GdalError && (error.failure === 'timeout' || error.failure === 'memory')) {
    return fileRefused('unsupported_raster', `The GeoTIFF could not be processed within the limits: ${error.reason}`);
  }
  return refusalOf(error);
}

/**
 * GDAL that could not read a file it was given (not missing, not stopped) as the caller's
 * refusal, `refuse(GDAL's reason)`; anything else as it is.
 */
export function unreadableFileOf(error: unknown, refuse: (reason: string) => AppError): unknown {
  if (error instanceof GdalError && error.failure !== 'missing' && error.failure !== 'aborted')
    return refuse(error.message);
  return error;
}
