/**
 * Where the pixels of a 256 px Web Mercator tile fall in a tileable raster: which level
 * (the coarsest overview still at least as fine as the tile), which source pixels each
 * output pixel samples, and how a decoded block's pixels land in that window (the blocks are
 * read by geo-engine/raster-tiles.ts).
 */

/** What the window arithmetic needs of an opened tileable file (geo-engine's Tileable has it all). */
export interface TileableShape {
  /** Samples per pixel, the alpha sample included. */
  samples: number;
  /** Index of an alpha sample, else null. */
  alphaSample: number | null;
  /** The file's nodata value as stored, or null. */
  nodata: number | null;
  /** Full resolution first, then each overview: pixel size in metres and block layout. */
  levels: { resX: number; resY: number; width: number; height: number; blockWidth: number; blockHeight: number }[];
}

export const TILE_SIZE = 256;
/** Half the width of the Web Mercator square, in metres. */
export const MERCATOR_HALF = 20037508.342789244;

/** Web Mercator metres of a longitude/latitude (WGS84); null beyond the Mercator square. */
export function lonLatToMercator(lon: number, lat: number): [number, number] | null {
  if (!(Math.abs(lon) <= 180 && Math.abs(lat) <= 85.0511287798066)) return null;
  const x = (lon * MERCATOR_HALF) / 180;
  const y = (Math.log(Math.tan(((90 + lat) * Math.PI) / 360)) * MERCATOR_HALF) / Math.PI;
  return [x, y];
}

/** Sampling positions along one axis of the tile, in window coordinates. */
export interface AxisSampling {
  /** Nearest source pixel of each output pixel, -1 where it falls outside the raster. */
  near: Int32Array;
  /** Bilinear neighbours (clamped to the raster) and the weight of the second one. */
  lo: Int32Array;
  hi: Int32Array;
  weight: Float32Array;
  /** First source pixel of the window and its length. */
  start: number;
  length: number;
  /** Output pixel i is window pixel i, weight 0 (an aligned grid at its own zoom). */
  identity: boolean;
}

/**
 * Samples along one axis: output pixel i has its centre at `first + (i + 0.5) * step`
 * source pixels (continuous coordinates: pixel c spans [c, c+1)), in a raster of `size`.
 * The window covers the nearest pixels, and their neighbours only for bilinear sampling
 * (a neighbour of weight 0 is not needed). Null when no output pixel falls on the raster.
 */
export function sampleAxis(first: number, step: number, size: number, bilinear: boolean): AxisSampling | null {
  // On an aligned grid these are whole numbers, up to rounding errors.
  const start = Math.abs(first - Math.round(first)) < 1e-6 ? Math.round(first) : first;
  const scale = Math.abs(step - Math.round(step)) < 1e-9 ? Math.round(step) : step;
  const near = new Int32Array(TILE_SIZE);
  const lo = new Int32Array(TILE_SIZE);
  const hi = new Int32Array(TILE_SIZE);
  const weight = new Float32Array(TILE_SIZE);
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < TILE_SIZE; i++) {
    const u = start + (i + 0.5) * scale;
    const c = Math.floor(u);
    near[i] = c >= 0 && c < size ? c : -1;
    const left = Math.floor(u - 0.5);
    weight[i] = u - 0.5 - left;
    lo[i] = Math.min(size - 1, Math.max(0, left));
    hi[i] = weight[i] === 0 ? lo[i] : Math.min(size - 1, Math.max(0, left + 1));
    if (near[i] >= 0) {
      min = Math.min(min, c, bilinear ? lo[i] : c);
      max = Math.max(max, c, bilinear ? hi[i] : c);
    }
  }
  if (min > max) return null;
  for (let i = 0; i < TILE_SIZE; i++) {
    if (near[i] >= 0) near[i] -= min;
    // Outside the window only when not bilinear, and then never read.
    lo[i] = Math.max(0, lo[i] - min);
    hi[i] = Math.max(0, hi[i] - min);
  }
  const identity = max - min + 1 === TILE_SIZE && near.every((c, i) => c === i) && weight.every((w) => w === 0);
  return { near, lo, hi, weight, start: min, length: max - min + 1, identity };
}

/** The level to draw zoom `z` from: the coarsest one whose pixels are not larger than the tile's. */
export function levelForZoom(raster: TileableShape, z: number): number {
  const tileRes = (2 * MERCATOR_HALF) / (TILE_SIZE * 2 ** z);
  let pick = 0;
  raster.levels.forEach((level, i) => {
    if (level.resX <= tileRes * 1.001) pick = i;
  });
  return pick;
}

/** Where a block's pixels go in the window: the part of both, in level pixel coordinates. */
export interface Overlap {
  x0: number;
  x1: number;
  y0: number;
  y1: number;
  /** The block's first pixel. */
  blockX: number;
  blockY: number;
}

/**
 * Copies the overlapping part of a decoded (pixel-interleaved) block into the window's
 * bands as Float32, NaN wherever there is no data: the file's nodata (compared in the
 * file's own type, so exact for every type), NaN itself, or a transparent alpha sample.
 */
export function copyBlock(
  raster: TileableShape,
  block: ArrayLike<number> & { subarray(a: number, b: number): ArrayLike<number> },
  blockWidth: number,
  overlap: Overlap,
  cols: AxisSampling,
  rows: AxisSampling,
  samples: number[],
  out: Float32Array[],
): void {
  const { samples: spp, nodata, alphaSample: alpha } = raster;
  const count = overlap.x1 - overlap.x0;
  for (let y = overlap.y0; y < overlap.y1; y++) {
    const source = ((y - overlap.blockY) * blockWidth + (overlap.x0 - overlap.blockX)) * spp;
    const target = (y - rows.start) * cols.length + (overlap.x0 - cols.start);
    samples.forEach((sample, s) => {
      const band = out[s];
      if (spp === 1) band.set(block.subarray(source, source + count), target);
      else for (let x = 0; x < count; x++) band[target + x] = block[source + x * spp + sample];
      if (nodata !== null)
        for (let x = 0; x < count; x++) if (block[source + x * spp + sample] === nodata) band[target + x] = Number.NaN;
    });
    if (alpha !== null) {
      for (let x = 0; x < count; x++)
        if (block[source + x * spp + alpha] === 0) for (const band of out) band[target + x] = Number.NaN;
    }
  }
}
