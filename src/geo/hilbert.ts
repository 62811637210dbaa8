import { latToY, lonToX } from './tile-math.js';

/**
 * Hilbert keys of positions on the Web Mercator square. Sorting features by the key of their
 * bbox centre keeps neighbours together (chunks of consecutive features are compact areas),
 * and every quadtree cell (every tile, at every zoom) is one contiguous run of keys: two keys
 * share a cell at level L exactly when they agree on their top 2·L bits.
 */

/** Levels of the curve: 2^26 cells per side (about 0.6 m at the equator); keys fit in 52 bits. */
export const HILBERT_LEVELS = 26;
const SIDE = 2 ** HILBERT_LEVELS;

/** The Hilbert key (0 to 4^26 - 1, a safe integer) of the cell at integer column `x`, row `y`. */
export function hilbertKeyOfCell(x: number, y: number): number {
  let key = 0;
  for (let s = SIDE / 2; s >= 1; s /= 2) {
    const rx = (x & s) > 0 ? 1 : 0;
    const ry = (y & s) > 0 ? 1 : 0;
    key += s * s * ((3 * rx) ^ ry);
    if (ry === 0) {
      if (rx === 1) {
        x = SIDE - 1 - x;
        y = SIDE - 1 - y;
      }
      const t = x;
      x = y;
      y = t;
    }
  }
  return key;
}

/** The Hilbert key of a longitude/latitude position. */
export function hilbertKey(lon: number, lat: number): number {
  const toCell = (v: number) => Math.max(0, Math.min(SIDE - 1, Math.floor(v * SIDE)));
  return hilbertKeyOfCell(toCell(lonToX(lon)), toCell(latToY(lat)));
}

/**
 * The coarsest level (1 to HILBERT_LEVELS) at which two keys lie in different quadtree cells;
 * HILBERT_LEVELS + 1 when the keys are equal.
 */
export function firstDifferingLevel(a: number, b: number): number {
  if (a === b) return HILBERT_LEVELS + 1;
  // The keys split into two 26-bit halves, so bit operations stay within 32-bit integers.
  const half = 2 ** HILBERT_LEVELS;
  const high = Math.floor(a / half) ^ Math.floor(b / half);
  const bit = high !== 0 ? 26 + (31 - Math.clz32(high)) : 31 - Math.clz32((a % half) ^ (b % half));
  return HILBERT_LEVELS - Math.floor(bit / 2);
}
