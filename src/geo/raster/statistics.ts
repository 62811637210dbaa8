import type { RasterInfo } from './raster-info.js';

/**
 * Per-band statistics of a raster's original pixels, computed by GDAL: exact minimum,
 * maximum, mean and standard deviation, and the 2nd and 98th percentiles (read from GDAL's
 * 256-bucket histogram, so within 1/256 of the range) for the default stretch, from what
 * `gdalinfo -stats -hist -json` says (run by geo-engine/raster-statistics.ts).
 */

export interface BandStats {
  /** Null when the band has no valid pixel at all. */
  min: number | null;
  max: number | null;
  mean: number | null;
  stddev: number | null;
  p2: number | null;
  p98: number | null;
}

/** A band of `gdalinfo -stats -hist -json`. */
export interface BandJson {
  /** gdalinfo rounds minimum, maximum, mean and stdDev to 3 decimals; these have them all. */
  metadata?: { ''?: Record<string, string> };
  histogram?: { count: number; min: number; max: number; buckets: number[] };
}

/** The value below which `fraction` of the histogram's pixels lie (linear within a bucket). */
export function percentile(histogram: NonNullable<BandJson['histogram']>, fraction: number): number | null {
  const total = histogram.buckets.reduce((sum, n) => sum + n, 0);
  if (!total) return null;
  const width = (histogram.max - histogram.min) / histogram.count;
  const target = fraction * total;
  let seen = 0;
  for (const [i, n] of histogram.buckets.entries()) {
    if (n > 0 && seen + n >= target) return histogram.min + width * (i + (target - seen) / n);
    seen += n;
  }
  return histogram.max;
}

/** A percentile to 7 significant digits: it is within 1/256 of the range anyway. */
const round = (value: number) => Number(value.toPrecision(7));

/** Statistics of every data band (an alpha band is skipped) from GDAL's bands. */
export function statisticsOf(bands: BandJson[], info: RasterInfo): BandStats[] {
  return bands.slice(0, info.bands).map((band) => {
    const metadata = band.metadata?.[''] ?? {};
    const number = (key: string) =>
      metadata[key] === undefined || Number.isNaN(Number(metadata[key])) ? null : Number(metadata[key]);
    const [min, max] = [number('STATISTICS_MINIMUM'), number('STATISTICS_MAXIMUM')];
    const within = (value: number | null) =>
      value === null || min === null || max === null ? null : round(Math.min(max, Math.max(min, value)));
    return {
      min,
      max,
      mean: number('STATISTICS_MEAN'),
      stddev: number('STATISTICS_STDDEV'),
      p2: band.histogram ? within(percentile(band.histogram, 0.02)) : null,
      p98: band.histogram ? within(percentile(band.histogram, 0.98)) : null,
    };
  });
}
