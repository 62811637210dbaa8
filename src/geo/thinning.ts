import { firstDifferingLevel } from './hilbert.js';
import { latToY, lonToX, type Bbox } from './tile-math.js';

/**
 * Keeps low-zoom tiles of big layers small. Each feature gets a `minzoom`: the first zoom whose
 * tiles show it. At zoom z a tile is divided into a grid of 2^cellsPerTileLog2 cells per side;
 * a feature shows from z on when it is the first feature (in Hilbert order) of its cell at z,
 * or when its bbox is at least 1/2^largeFeatureLog2 of the tile wide at z (it has a visible
 * shape). So a tile never holds more than one small feature per cell (1,024 with 32 cells per
 * side) plus the features that are large there, and a feature shown at z stays shown at every
 * higher zoom (cells only split as zoom grows).
 *
 * Because every cell at every zoom is a contiguous run of Hilbert keys, "first of its cell" is
 * decided by comparing a feature's key with the previous feature's key: a single pass over the
 * features in key order, with constant memory, whatever the layer's size.
 */
export interface ThinningRule {
  /** log2 of the grid cells per tile side (5: 32 cells of 128 extent units, 16 px of a 512 px tile). */
  cellsPerTileLog2: number;
  /** A feature this wide (1/2^n of a tile; 6: 64 extent units, 8 px of a 512 px tile) always shows. */
  largeFeatureLog2: number;
  /** From this zoom on every feature shows. */
  maxZoom: number;
}

/**
 * Measured on 1,000,000 building footprints (see the report in bench/): 64 cells per side gave
 * z10 tiles of up to 4,000 features and a p95 of 59 ms; 32 cells up to 1,100 and 25 ms.
 */
export const DEFAULT_THINNING: ThinningRule = { cellsPerTileLog2: 5, largeFeatureLog2: 6, maxZoom: 16 };

/** The larger side of a longitude/latitude bbox, as a fraction of Web Mercator's width. */
export function mercatorSize(bbox: Bbox): number {
  return Math.max(lonToX(bbox[2]) - lonToX(bbox[0]), latToY(bbox[1]) - latToY(bbox[3]));
}

/** The first zoom at which a feature of this Mercator size counts as large (Infinity for points). */
export function sizeZoom(size: number, rule: ThinningRule = DEFAULT_THINNING): number {
  if (!(size > 0)) return Infinity;
  return Math.max(0, Math.ceil(-rule.largeFeatureLog2 - Math.log2(size)));
}

/**
 * A function to call once per feature, in ascending Hilbert key order (of the bbox centre, see
 * hilbert.ts), with the feature's key and Mercator size; it returns the feature's minzoom.
 */
export function createMinzoomAssigner(rule: ThinningRule = DEFAULT_THINNING): (key: number, size: number) => number {
  let previous: number | null = null;
  return (key, size) => {
    const level = previous === null ? 0 : firstDifferingLevel(previous, key);
    previous = key;
    const cellZoom = Math.max(0, level - rule.cellsPerTileLog2);
    return Math.min(cellZoom, sizeZoom(size, rule), rule.maxZoom);
  };
}
