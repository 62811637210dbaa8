import type { RasterInfo } from '../geo/raster/raster-info.js';
import { type BandJson, type BandStats, statisticsOf } from '../geo/raster/statistics.js';
import type { GdalLimits } from './gdal-process.js';
import { gdalInfo } from './raster-inspect.js';

/**
 * Statistics of every data band (an alpha band is skipped) of the GeoTIFF at `path`. Reads
 * all pixels, twice (GDAL computes the statistics, then the histogram between them).
 */
export async function bandStatistics(
  path: string,
  info: RasterInfo,
  limits: GdalLimits & { maxOutputBytes: number },
): Promise<BandStats[]> {
  const json = (await gdalInfo(path, limits, ['-stats', '-hist', '-norat', '-noct'])) as { bands?: BandJson[] };
  return statisticsOf(json.bands ?? [], info);
}
