import { stat } from 'node:fs/promises';
import { type TileableFacts, type TileableInfoJson, tileableFactsOf } from '../geo/raster/tileable.js';
import type { GdalLimits } from './gdal-process.js';
import { gdalInfo } from './raster-inspect.js';

/** Reads the extent, resolution and overviews of the tileable file GDAL wrote (`limits`: a header read's). */
export async function describeTileable(
  path: string,
  limits: GdalLimits & { maxOutputBytes: number },
): Promise<TileableFacts> {
  const info = (await gdalInfo(path, limits, ['-nomd'])) as TileableInfoJson;
  return tileableFactsOf(info, (await stat(path)).size);
}
