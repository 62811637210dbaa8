import { Type, type Static, type TSchema } from 'typebox';
import { Value } from 'typebox/value';
import type { FieldProblem } from '../../errors.js';
import { COLORMAP_NAMES, isColormap } from './colormaps.js';

/**
 * A raster layer's display settings (http-interface.md "Raster layer and its display
 * settings", decisions.md "Layers and rasters"): the stored object, its check against the
 * raster itself, and the fully resolved settings the tile renderer works with.
 */

const Nullable = <T extends TSchema>(schema: T, description: string) =>
  Type.Union([schema, Type.Null()], { description });
const Triple = Type.Array(Type.Number(), { minItems: 3, maxItems: 3 });
const PerBand = (description: string) => Nullable(Type.Union([Type.Number(), Triple]), description);

/** Each key with its type; `description` doubles as the end of the problem sentence. */
export const RasterDisplayFields = {
  colormap: Type.String({
    minLength: 1,
    maxLength: 64,
    description: `a colormap name (${COLORMAP_NAMES.slice(0, 4).join(', ')}, ... see GET /api/colormaps; a "_r" suffix reverses)`,
  }),
  band: Type.Integer({ minimum: 1, description: 'a band number from 1, for single-band rendering' }),
  vmin: Nullable(Type.Number(), 'a number (stretch start), or null for the automatic stretch'),
  vmax: Nullable(Type.Number(), 'a number (stretch end), or null for the automatic stretch'),
  opacity: Type.Number({ minimum: 0, maximum: 1, description: 'a number from 0 to 1' }),
  renderMode: Type.Union([Type.Literal('single'), Type.Literal('rgb')], {
    description: '"single" (one band through a colormap) or "rgb" (a composite of rgbBands)',
  }),
  rgbBands: Type.Array(Type.Integer({ minimum: 1 }), {
    minItems: 3,
    maxItems: 3,
    description: 'three band numbers from 1: red, green, blue',
  }),
  nodata: Nullable(Type.Number(), "a number shown transparent (besides the file's own nodata), or null"),
  reverse: Type.Boolean({ description: 'true or false: reverses the colormap' }),
  resampling: Type.Union([Type.Literal('nearest'), Type.Literal('bilinear')], {
    description: '"nearest" or "bilinear"',
  }),
  rgbMin: PerBand('a number or three numbers (stretch start of red, green, blue), or null for automatic'),
  rgbMax: PerBand('a number or three numbers (stretch end of red, green, blue), or null for automatic'),
};

type DisplayKey = keyof typeof RasterDisplayFields;
const KEYS = Object.keys(RasterDisplayFields) as DisplayKey[];

/** The display object as stored and sent; every key optional (a PATCH sends some). */
export const RasterDisplay = Type.Object(
  Object.fromEntries(KEYS.map((key) => [key, Type.Optional(RasterDisplayFields[key])])) as {
    [K in DisplayKey]: ReturnType<typeof Type.Optional<(typeof RasterDisplayFields)[K]>>;
  },
  { additionalProperties: false, description: 'Raster display settings' },
);
export type RasterDisplay = Static<typeof RasterDisplay>;

/** What the rules need to know about the raster (a subset of the ingest result). */
export interface RasterFacts {
  bands: number;
  dataType: string;
  stats: { min: number | null; max: number | null; p2?: number | null; p98?: number | null }[];
}

/** One problem of a display object, naming its field (the shape of a 400's `details`). */
export type DisplayProblem = FieldProblem;

/**
 * Every problem of a display object (a PATCH body, an upload's `display`, or the merge of
 * both with the stored one) against the raster: unknown keys, wrong types, a band the
 * raster lacks, an unknown colormap, vmin not below vmax, rgbMin not below rgbMax. Each
 * problem names its field, so a 400 can say which one; an empty list means valid.
 */
export function displayProblems(display: unknown, raster: RasterFacts): DisplayProblem[] {
  if (typeof display !== 'object' || display === null || Array.isArray(display)) {
    return [{ field: 'display', message: 'display must be a JSON object' }];
  }
  const problems: DisplayProblem[] = [];
  const values = display as Record<string, unknown>;
  for (const [key, value] of Object.entries(values)) {
    // Own keys only: `toString` or `__proto__` must be unknown keys, not the prototype's.
    const schema: TSchema | undefined = Object.hasOwn(RasterDisplayFields, key)
      ? (RasterDisplayFields as Record<string, TSchema>)[key]
      : undefined;
    if (!schema) problems.push({ field: key, message: `unknown display key "${key}" (known: ${KEYS.join(', ')})` });
    else if (!Value.Check(schema, value))
      problems.push({ field: key, message: `${key} must be ${(schema as { description?: string }).description}` });
  }
  if (problems.length) return problems;

  const d = values as RasterDisplay;
  const bandProblem = (band: number) =>
    band > raster.bands ? `the raster has ${raster.bands} band${raster.bands === 1 ? '' : 's'}, no band ${band}` : null;
  const band = d.band === undefined ? null : bandProblem(d.band);
  if (band) problems.push({ field: 'band', message: band });
  const rgb = d.rgbBands?.map(bandProblem).find(Boolean);
  if (rgb) problems.push({ field: 'rgbBands', message: rgb });
  if (d.renderMode === 'rgb' && !d.rgbBands && raster.bands < 3) {
    problems.push({
      field: 'renderMode',
      message: `"rgb" needs three bands (rgbBands); the raster has ${raster.bands}`,
    });
  }
  if (d.colormap !== undefined && !isColormap(d.colormap)) {
    problems.push({ field: 'colormap', message: `unknown colormap "${d.colormap}"; see GET /api/colormaps` });
  }
  if (typeof d.vmin === 'number' && typeof d.vmax === 'number' && !(d.vmin < d.vmax)) {
    problems.push({ field: 'vmin', message: `vmin (${d.vmin}) must be below vmax (${d.vmax})` });
  }
  const lows = perBand(d.rgbMin);
  const highs = perBand(d.rgbMax);
  if (lows && highs && lows.some((low, i) => !(low < highs[i]))) {
    problems.push({ field: 'rgbMin', message: 'each rgbMin must be below the rgbMax of the same band' });
  }
  return problems;
}

/**
 * The stored display after a PATCH: keys of `patch` replace those of `stored`; `null`
 * (for vmin, vmax, nodata, rgbMin, rgbMax) is kept and means "automatic" when rendering.
 */
export function mergeDisplay(stored: RasterDisplay, patch: RasterDisplay): RasterDisplay {
  return { ...stored, ...patch };
}

/**
 * The stored display after `patch` (a PATCH body, or an upload's `display` over the default):
 * its keys replace the stored ones, and where it picks other bands without saying how to
 * stretch them, the stretch follows the new bands (vmin/vmax for `band`; rgbMin/rgbMax for
 * `rgbBands` of a raster that is not 8-bit), so that a band of other values is not drawn
 * saturated. `patch` must be free of problems (displayProblems) first.
 */
export function applyDisplay(stored: RasterDisplay, patch: RasterDisplay, raster: RasterFacts): RasterDisplay {
  const next = mergeDisplay(stored, patch);
  if (patch.band !== undefined && patch.band !== stored.band && patch.vmin === undefined && patch.vmax === undefined) {
    [next.vmin, next.vmax] = autoStretch(raster, patch.band);
  }
  const newRgb = patch.rgbBands !== undefined && JSON.stringify(patch.rgbBands) !== JSON.stringify(stored.rgbBands);
  if (newRgb && raster.dataType !== 'Byte' && patch.rgbMin === undefined && patch.rgbMax === undefined) {
    const stretches = patch.rgbBands!.map((band) => autoStretch(raster, band));
    next.rgbMin = stretches.map(([low]) => low);
    next.rgbMax = stretches.map(([, high]) => high);
  }
  return next;
}

/** A number or a triple as a triple; null/undefined stays null. */
function perBand(value: number | number[] | null | undefined): [number, number, number] | null {
  if (value === null || value === undefined) return null;
  return typeof value === 'number' ? [value, value, value] : [value[0], value[1], value[2]];
}

/** The stretch of a band (from 1) from its statistics: 2nd to 98th percentile, else min to max. */
export function autoStretch(raster: RasterFacts, band: number): [number, number] {
  const s = raster.stats[band - 1];
  if (!s || s.min === null || s.max === null) return [0, 1];
  let [low, high] = s.p2 != null && s.p98 != null && s.p2 < s.p98 ? [s.p2, s.p98] : [s.min, s.max];
  if (!(low < high)) [low, high] = [low - 0.5, high + 0.5];
  return [low, high];
}

/**
 * The display a new raster gets: three or more 8-bit bands show as an RGB composite of
 * bands 1, 2, 3 (bilinear, like a photo); anything else shows band 1 through viridis,
 * stretched to its 2nd-98th percentiles (nearest, so cells stay visible).
 */
export function defaultDisplay(raster: RasterFacts): RasterDisplay {
  if (raster.bands >= 3 && raster.dataType === 'Byte') {
    return {
      renderMode: 'rgb',
      rgbBands: [1, 2, 3],
      rgbMin: [0, 0, 0],
      rgbMax: [255, 255, 255],
      opacity: 1,
      resampling: 'bilinear',
      nodata: null,
    };
  }
  const [vmin, vmax] = autoStretch(raster, 1);
  return {
    renderMode: 'single',
    band: 1,
    colormap: 'viridis',
    reverse: false,
    vmin,
    vmax,
    opacity: 1,
    resampling: 'nearest',
    nodata: null,
  };
}

/** A display with every choice made, as the tile renderer needs it. */
export interface ResolvedDisplay {
  mode: 'single' | 'rgb';
  /** 0-based band indexes: one for single, three for rgb. */
  bands: number[];
  /** Stretch per used band: value `low` maps to 0, `high` to 1. */
  low: number[];
  high: number[];
  colormap: string;
  reverse: boolean;
  /** 0..255, baked into every drawn pixel's alpha. */
  alpha: number;
  bilinear: boolean;
  /** The display's own nodata value, transparent besides the file's; null if none. */
  nodata: number | null;
}

/**
 * Fills in what a (valid) display leaves open: mode, bands, stretch from the statistics
 * (8-bit RGB defaults to 0..255), colormap viridis, opacity 1, nearest resampling.
 */
export function resolveDisplay(display: RasterDisplay, raster: RasterFacts): ResolvedDisplay {
  const rgb = display.renderMode === 'rgb';
  const bands = rgb ? (display.rgbBands ?? [1, 2, 3]) : [display.band ?? 1];
  const auto = bands.map((band) =>
    raster.dataType === 'Byte' && rgb ? ([0, 255] as [number, number]) : autoStretch(raster, band),
  );
  const lows = rgb ? perBand(display.rgbMin) : null;
  const highs = rgb ? perBand(display.rgbMax) : null;
  const low = bands.map((_, i) => (rgb ? (lows?.[i] ?? auto[i][0]) : (display.vmin ?? auto[i][0])));
  const high = bands.map((_, i) => (rgb ? (highs?.[i] ?? auto[i][1]) : (display.vmax ?? auto[i][1])));
  return {
    mode: rgb ? 'rgb' : 'single',
    bands: bands.map((band) => band - 1),
    low,
    high,
    colormap: display.colormap ?? 'viridis',
    reverse: display.reverse ?? false,
    alpha: Math.round((display.opacity ?? 1) * 255),
    bilinear: display.resampling === 'bilinear',
    nodata: display.nodata ?? null,
  };
}
