import type { FieldProblem } from '../../errors.js';
import { isColormap } from './colormaps.js';

/**
 * A raster layer's display settings (docs/http-interface.md "Raster layer and its display
 * settings", docs/contract-decisions.md "Layers and rasters"): the stored object, the rules that hold
 * between its keys and the raster itself, and the fully resolved settings the tile renderer
 * works with.
 */

/**
 * The display object as stored and sent; every key optional (a PATCH sends some). Its
 * TypeBox schema, which the API documents and checks, is RasterDisplay in
 * modules/rasters/rasters.schemas.ts (the two are checked to be one shape there).
 */
export interface RasterDisplay {
  colormap?: string;
  band?: number;
  vmin?: number | null;
  vmax?: number | null;
  opacity?: number;
  renderMode?: 'single' | 'rgb';
  rgbBands?: number[];
  nodata?: number | null;
  reverse?: boolean;
  resampling?: 'nearest' | 'bilinear';
  rgbMin?: number | number[] | null;
  rgbMax?: number | number[] | null;
}

/** What the rules need to know about the raster (a subset of the ingest result). */
export interface RasterFacts {
  bands: number;
  dataType: string;
  stats: { min: number | null; max: number | null; p2?: number | null; p98?: number | null }[];
}

/** One problem of a display object, naming its field (the shape of a 400's `details`). */
export type DisplayProblem = FieldProblem;

/**
 * The problems of a display object whose keys each have the right type (checked first by the
 * schema, modules/rasters/raster-display.ts) against the raster and between its keys: a band
 * the raster lacks, "rgb" without three bands, an unknown colormap, vmin not below vmax,
 * rgbMin not below rgbMax. Each problem names its field; an empty list means valid.
 */
export function displayRuleProblems(d: RasterDisplay, raster: RasterFacts): DisplayProblem[] {
  const problems: DisplayProblem[] = [];
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
