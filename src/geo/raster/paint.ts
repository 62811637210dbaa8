import { colormapTable } from './colormaps.js';
import type { ResolvedDisplay } from './display.js';
import { TILE_SIZE, type AxisSampling } from './tile-window.js';

/**
 * The pixel work of a tile: window values resampled onto the 256 x 256 tile (nearest or
 * bilinear), then coloured through a colormap or as an RGB composite into RGBA bytes.
 * Plain loops over typed arrays: this is the hot path of every tile.
 */

const PIXELS = TILE_SIZE * TILE_SIZE;

/** Bilinear value from four neighbours, some of which may have no data (NaN). */
function partialBilinear(values: number[], fx: number, fy: number, near: number): number {
  const weights = [(1 - fx) * (1 - fy), fx * (1 - fy), (1 - fx) * fy, fx * fy];
  let sum = 0;
  let total = 0;
  values.forEach((value, k) => {
    if (value === value) {
      sum += value * weights[k];
      total += weights[k];
    }
  });
  return total > 0 ? sum / total : near;
}

/**
 * One window band on the tile's pixels: NaN outside the raster and where the nearest pixel
 * has no data; bilinear blends only neighbours that have data. On an aligned grid at its
 * own zoom the window is the tile already.
 */
export function resample(band: Float32Array, cols: AxisSampling, rows: AxisSampling, bilinear: boolean): Float32Array {
  if (cols.identity && rows.identity) return band;
  const out = new Float32Array(PIXELS).fill(Number.NaN);
  const width = cols.length;
  for (let j = 0; j < TILE_SIZE; j++) {
    if (rows.near[j] < 0) continue;
    const base = rows.near[j] * width;
    const o = j * TILE_SIZE;
    if (!bilinear) {
      for (let i = 0; i < TILE_SIZE; i++) if (cols.near[i] >= 0) out[o + i] = band[base + cols.near[i]];
      continue;
    }
    const top = rows.lo[j] * width;
    const bottom = rows.hi[j] * width;
    const fy = rows.weight[j];
    for (let i = 0; i < TILE_SIZE; i++) {
      if (cols.near[i] < 0) continue;
      const near = band[base + cols.near[i]];
      if (near !== near) continue;
      const fx = cols.weight[i];
      const a = band[top + cols.lo[i]];
      const b = band[top + cols.hi[i]];
      const c = band[bottom + cols.lo[i]];
      const d = band[bottom + cols.hi[i]];
      out[o + i] =
        a === a && b === b && c === c && d === d
          ? (a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy
          : partialBilinear([a, b, c, d], fx, fy, near);
    }
  }
  return out;
}

/**
 * Step 0..255 of a value in a stretch, as matplotlib maps a normalised value onto its 256
 * colours: floor(256 (v - low) / (high - low)), clamped. `scale` is 256 / (high - low); for
 * an empty stretch (infinite scale) values below `low` get 0, the others 255 (NaN lands there).
 */
function step(value: number, low: number, scale: number): number {
  const s = Math.floor((value - low) * scale);
  return s < 0 ? 0 : Math.min(s, 255);
}

/** 256 / (high - low); an empty stretch puts everything below `low` at 0, the rest at 255. */
const stretchScale = (low: number, high: number) => (high > low ? 256 / (high - low) : Number.POSITIVE_INFINITY);

/** Colours one band through the display's colormap; false when no pixel is visible. */
export function paintSingle(rgba: Buffer, values: Float32Array, display: ResolvedDisplay): boolean {
  const lut = colormapTable(display.colormap, display.reverse) ?? colormapTable('viridis')!;
  const low = display.low[0];
  const scale = stretchScale(low, display.high[0]);
  let drawn = false;
  for (let k = 0; k < PIXELS; k++) {
    const value = values[k];
    if (value !== value) continue;
    const s = step(value, low, scale) * 3;
    const o = k * 4;
    rgba[o] = lut[s];
    rgba[o + 1] = lut[s + 1];
    rgba[o + 2] = lut[s + 2];
    rgba[o + 3] = display.alpha;
    drawn = true;
  }
  return drawn && display.alpha > 0;
}

/** An RGB composite, each band stretched on its own; transparent where all three have no data. */
export function paintRgb(rgba: Buffer, bands: Float32Array[], display: ResolvedDisplay): boolean {
  const scales = [0, 1, 2].map((c) => stretchScale(display.low[c], display.high[c]));
  let drawn = false;
  for (let c = 0; c < 3; c++) {
    const values = bands[c];
    const low = display.low[c];
    const scale = scales[c];
    for (let k = 0; k < PIXELS; k++) {
      const value = values[k];
      if (value !== value) continue;
      rgba[k * 4 + c] = step(value, low, scale);
      rgba[k * 4 + 3] = display.alpha;
      drawn = true;
    }
  }
  return drawn && display.alpha > 0;
}

/** How far (pixels) colours reach into the transparent pixels around the data; see bleedColours. */
export const BLEED_PIXELS = 4;

/**
 * Gives the transparent pixels next to the data (up to `passes` pixels away) the colour of
 * their drawn neighbours, alpha left at 0. A map draws tiles with linear filtering and
 * mipmaps on unpremultiplied PNGs (MapLibre's raster layer premultiplies after sampling), so
 * a transparent black neighbour darkens the data's outermost pixels: a dark 1 to 2 px line
 * along the raster's edges. With the colour carried over only the alpha fades there.
 */
export function bleedColours(rgba: Buffer, passes = BLEED_PIXELS): void {
  const side = TILE_SIZE;
  // 1: has a colour (drawn, or filled by an earlier pass); 0: transparent and not yet filled.
  const coloured = new Uint8Array(PIXELS);
  let transparent = 0;
  for (let k = 0; k < PIXELS; k++) {
    if (rgba[k * 4 + 3] > 0) coloured[k] = 1;
    else transparent++;
  }
  if (transparent === 0 || transparent === PIXELS) return;
  let frontier: number[] = [];
  for (let k = 0; k < PIXELS; k++) if (!coloured[k] && hasColouredNeighbour(coloured, k, side)) frontier.push(k);
  for (let pass = 0; pass < passes && frontier.length > 0; pass++) {
    for (const k of frontier) {
      let r = 0;
      let g = 0;
      let b = 0;
      let n = 0;
      for (const m of neighbours(k, side)) {
        if (coloured[m] !== 1) continue;
        r += rgba[m * 4];
        g += rgba[m * 4 + 1];
        b += rgba[m * 4 + 2];
        n++;
      }
      rgba[k * 4] = Math.round(r / n);
      rgba[k * 4 + 1] = Math.round(g / n);
      rgba[k * 4 + 2] = Math.round(b / n);
    }
    // Marked after the pass, so a pass reads only colours of the passes before it.
    for (const k of frontier) coloured[k] = 1;
    const next = new Set<number>();
    for (const k of frontier) for (const m of neighbours(k, side)) if (!coloured[m]) next.add(m);
    frontier = [...next];
  }
}

/** The 4-neighbours of pixel k inside the tile. */
function neighbours(k: number, side: number): number[] {
  const x = k % side;
  const list: number[] = [];
  if (x > 0) list.push(k - 1);
  if (x < side - 1) list.push(k + 1);
  if (k >= side) list.push(k - side);
  if (k < PIXELS - side) list.push(k + side);
  return list;
}

function hasColouredNeighbour(coloured: Uint8Array, k: number, side: number): boolean {
  return neighbours(k, side).some((m) => coloured[m] === 1);
}
