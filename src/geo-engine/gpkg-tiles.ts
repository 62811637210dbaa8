import { invalidFile } from '../errors.js';
import { reasonWithoutPath } from '../geo/raster/raster-info.js';
import { GdalError, type GdalLimits, runGdal } from './gdal-process.js';

/**
 * Raster tile pyramids in GeoPackages, through GDAL: an export writes a raster's tiles, an
 * import reads them back as a GeoTIFF when the original GeoTIFF is not in the file.
 */

/** Appends a raster (already in Web Mercator) as a GeoPackage tile pyramid: its full zoom, then every overview down to one tile. */
export async function appendTilePyramid(
  gpkg: string,
  tiff: string,
  table: string,
  limits: GdalLimits & { maxOutputBytes: number },
): Promise<void> {
  await runGdal(
    'gdal_translate',
    [
      '-q',
      '-of',
      'GPKG',
      tiff,
      gpkg,
      '-co',
      'APPEND_SUBDATASET=YES',
      '-co',
      `RASTER_TABLE=${table}`,
      '-co',
      'TILING_SCHEME=GoogleMapsCompatible',
    ],
    limits,
  );
  const { stdout } = await runGdal('gdalinfo', ['-json', '-oo', `TABLE=${table}`, gpkg], limits);
  const size = (JSON.parse(stdout) as { size: [number, number] }).size;
  const levels: string[] = [];
  for (let factor = 2; Math.max(...size) / factor >= 256 / 2; factor *= 2) levels.push(String(factor));
  if (levels.length > 0) await runGdal('gdaladdo', ['-q', '-oo', `TABLE=${table}`, gpkg, ...levels], limits);
}

/** A GeoPackage tile pyramid as a GeoTIFF (its full resolution), for the raster ingest. */
export async function tilePyramidToTiff(
  gpkg: string,
  table: string,
  out: string,
  limits: GdalLimits & { maxOutputBytes: number },
): Promise<void> {
  try {
    await runGdal(
      'gdal_translate',
      [
        '-q',
        '-of',
        'GTiff',
        '-co',
        'TILED=YES',
        '-co',
        'COMPRESS=DEFLATE',
        '-co',
        'BIGTIFF=IF_SAFER',
        `GPKG:${gpkg}:${table}`,
        out,
      ],
      limits,
    );
  } catch (error) {
    if (error instanceof GdalError && error.failure !== 'missing' && error.failure !== 'aborted')
      throw invalidFile(
        `The export's tile table ${table} cannot be read: ${reasonWithoutPath(error.reason, gpkg, out)}`,
      );
    throw error;
  }
}
