/**
 * The point query's answer from what GDAL reads at a location of the source GeoTIFF
 * (`gdallocationinfo -xml`, run by geo-engine/raster-point.ts): one value per data band, null
 * at nodata (the file's, or a display's) and everywhere outside the raster.
 */

/** What the answer needs to know of the source file (the raster's stored facts). */
export interface SourceBands {
  /** Data bands; an alpha band, when there is one, is the last band of the file. */
  bands: number;
  hasAlpha: boolean;
  /** The file's nodata value, or null. */
  nodata: number | null;
  /** GDAL's name of the file's own sample type (Float32 values compare as 32-bit floats). */
  sourceDataType: string;
}

/**
 * The values `gdallocationinfo -xml` reports, band by band, as GDAL wrote them; null when
 * the location is off the file (GDAL's `<Alert>` and no band report).
 */
export function locationValues(xml: string): string[] | null {
  const values = [...xml.matchAll(/<BandReport band="(\d+)">\s*<Value>([^<]*)<\/Value>/g)]
    .sort((a, b) => Number(a[1]) - Number(b[1]))
    .map((m) => m[2]!.trim());
  return values.length ? values : null;
}

/** The shortest decimal that is the same 32-bit float (1816.34, not 1816.3399658203125). */
export function shortestFloat32(value: number): number {
  for (let digits = 6; digits < 9; digits++) {
    const short = Number(value.toPrecision(digits));
    if (Math.fround(short) === value) return short;
  }
  return value;
}

/**
 * Every data band's value from GDAL's report (`locationValues`): all null off the file or
 * where the alpha band is 0, null for NaN and for the file's nodata or `extraNodata` (a
 * display's), compared in the file's own type.
 */
export function pointValues(
  reported: string[] | null,
  source: SourceBands,
  extraNodata: number | null,
): (number | null)[] {
  const none = new Array<number | null>(source.bands).fill(null);
  if (!reported) return none;
  if (source.hasAlpha && Number(reported[source.bands]) === 0) return none;
  const float32 = source.sourceDataType === 'Float32';
  const asStored = (value: number) => (float32 ? Math.fround(value) : value);
  const hidden = [source.nodata, extraNodata].filter((v): v is number => v !== null).map(asStored);
  return none.map((_, band) => {
    const text = reported[band];
    if (text === undefined) return null;
    const value = asStored(Number(text));
    if (Number.isNaN(value) || hidden.includes(value)) return null;
    return float32 ? shortestFloat32(value) : value;
  });
}
