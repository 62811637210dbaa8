import pLimit from 'p-limit';
import { locationValues, pointValues, type SourceBands } from '../geo/raster/point-values.js';
import { type GdalLimits, runGdal } from './gdal-process.js';

/** The source file's facts the point query needs: its bands, and whether its CRS was assumed (no CRS in the file). */
export interface PointSource extends SourceBands {
  crsAssumed: boolean;
}

/**
 * Every data band's value at a longitude/latitude (WGS84) in the uploaded GeoTIFF at `path`,
 * read by GDAL in the file's own CRS: exactly what `gdallocationinfo -wgs84 path lon lat`
 * answers (the pixel that holds the point, never a neighbour of the warped copy). A file
 * without a CRS was taken as WGS84, so its coordinates are the longitude and latitude.
 */
export async function sourceValuesAt(
  path: string,
  lon: number,
  lat: number,
  source: PointSource,
  extraNodata: number | null,
  limits: GdalLimits & { maxOutputBytes: number },
): Promise<(number | null)[]> {
  const where = source.crsAssumed ? '-geoloc' : '-wgs84';
  const { stdout } = await runGdal('gdallocationinfo', [where, '-xml', path, String(lon), String(lat)], limits);
  return pointValues(locationValues(stdout), source, extraNodata);
}

/**
 * Point queries through GDAL, at most `concurrency` processes at once per instance (the
 * others wait their turn): a point query is open to anyone who may read the raster, and each
 * one is a process of its own.
 */
export class RasterPoints {
  private readonly turn: ReturnType<typeof pLimit>;

  constructor(
    concurrency: number,
    private readonly limits: GdalLimits & { maxOutputBytes: number },
  ) {
    this.turn = pLimit(concurrency);
  }

  /** `env`: GDAL configuration to reach `path` (an object store's virtual path). */
  valuesAt(path: string, lon: number, lat: number, source: PointSource, extraNodata: number | null, env = {}) {
    const limits = { ...this.limits, env: { ...this.limits.env, ...env } };
    return this.turn(() => sourceValuesAt(path, lon, lat, source, extraNodata, limits));
  }
}
