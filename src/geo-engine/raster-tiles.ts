import sharp from 'sharp';
import { ByteLru } from '../geo/raster/byte-lru.js';
import type { ResolvedDisplay } from '../geo/raster/display.js';
import { shortestFloat32 } from '../geo/raster/point-values.js';
import { bleedColours, paintRgb, paintSingle, resample } from '../geo/raster/paint.js';
import {
  type AxisSampling,
  copyBlock,
  levelForZoom,
  lonLatToMercator,
  MERCATOR_HALF,
  type Overlap,
  sampleAxis,
  TILE_SIZE,
} from '../geo/raster/tile-window.js';
import type { Tileable, TileableFiles, TileableSource } from './raster-reader.js';

/**
 * Rendered raster tiles (256 px PNG, Web Mercator z/x/y) and the values of the tileable file
 * that ingest wrote (the API's point query reads the source file instead: raster-point.ts).
 * A tile reads only the blocks it covers, from the level that fits its zoom; rendered PNGs
 * are cached by bytes, keyed by the display they used.
 */

/** Bytes a cached tile is counted for besides its PNG (its key and bookkeeping): an estimate, not a limit. */
export const TILE_ENTRY_BYTES = 1024;

/**
 * The renderer, with its cache of PNGs: one object, built in app.ts with a byte budget from
 * the configuration, over the shared opened files.
 */
export class RasterTiles {
  private readonly pngCache: ByteLru<Buffer | null>;
  private transparent: Promise<Buffer> | undefined;

  constructor(
    private readonly files: TileableFiles,
    options: { tileCacheBytes: number },
  ) {
    this.pngCache = new ByteLru<Buffer | null>(options.tileCacheBytes);
  }

  /** One fully transparent 256 px PNG, made once and shared by every empty tile. */
  transparentTile(): Promise<Buffer> {
    this.transparent ??= sharp({
      create: { width: TILE_SIZE, height: TILE_SIZE, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } },
    })
      .png()
      .toBuffer();
    return this.transparent;
  }

  /** Forgets a tileable file by its key (layer deleted or replaced): its directories and cached blocks. */
  forget(key: string): Promise<void> {
    return this.files.close(key);
  }

  /**
   * The tile z/x/y of the raster `source` drawn with `display`, as a PNG; null when the tile
   * shows nothing (outside the data, all nodata, or fully transparent), so the route can
   * answer 204 or a shared transparent tile.
   */
  async renderTile(
    source: TileableSource,
    z: number,
    x: number,
    y: number,
    display: ResolvedDisplay,
  ): Promise<Buffer | null> {
    const tiles = 2 ** z;
    if (
      !(
        Number.isInteger(z) &&
        z >= 0 &&
        z <= 30 &&
        Number.isInteger(x) &&
        Number.isInteger(y) &&
        x >= 0 &&
        y >= 0 &&
        x < tiles &&
        y < tiles
      )
    )
      return null;
    const raster = await this.files.open(source);
    const key = `${raster.id}|${z}/${x}/${y}|${JSON.stringify(display)}`;
    let png = this.pngCache.get(key);
    if (!png) {
      png = this.drawTile(raster, z, x, y, display);
      this.pngCache.set(key, png, TILE_ENTRY_BYTES);
      png.then(
        (buffer) => this.pngCache.set(key, Promise.resolve(buffer), TILE_ENTRY_BYTES + (buffer?.length ?? 0)),
        () => this.pngCache.delete(key),
      );
    }
    return png;
  }

  private async drawTile(
    raster: Tileable,
    z: number,
    x: number,
    y: number,
    display: ResolvedDisplay,
  ): Promise<Buffer | null> {
    const levelIndex = levelForZoom(raster, z);
    const level = raster.levels[levelIndex];
    const tileRes = (2 * MERCATOR_HALF) / (TILE_SIZE * 2 ** z);
    const minX = -MERCATOR_HALF + x * TILE_SIZE * tileRes;
    const maxY = MERCATOR_HALF - y * TILE_SIZE * tileRes;
    const cols = sampleAxis((minX - raster.originX) / level.resX, tileRes / level.resX, level.width, display.bilinear);
    const rows = sampleAxis((raster.originY - maxY) / level.resY, tileRes / level.resY, level.height, display.bilinear);
    if (!cols || !rows) return null;
    const values = await this.readWindow(raster, levelIndex, cols, rows, display.bands);
    if (display.nodata !== null) {
      const hidden = Math.fround(display.nodata);
      for (const band of values) for (let i = 0; i < band.length; i++) if (band[i] === hidden) band[i] = Number.NaN;
    }
    const pixels = values.map((band) => resample(band, cols, rows, display.bilinear));
    const rgba = Buffer.alloc(TILE_SIZE * TILE_SIZE * 4);
    const drawn = display.mode === 'rgb' ? paintRgb(rgba, pixels, display) : paintSingle(rgba, pixels[0], display);
    if (!drawn) return null;
    bleedColours(rgba);
    return (
      sharp(rgba, { raw: { width: TILE_SIZE, height: TILE_SIZE, channels: 4 } })
        // Level 3 without filtering: measured half the bytes of level 1 for the same ~2.5 ms.
        .png({ compressionLevel: 3, adaptiveFiltering: false })
        .toBuffer()
    );
  }

  /**
   * The values of every band at a longitude/latitude (WGS84), from the full-resolution level:
   * null at nodata (the file's, or `extraNodata`, a display's), or for all bands outside the
   * raster. What the tiles draw there (the tests check the warp with it); an identify tool
   * asks the source file (raster-point.ts), whose pixel this one may not be.
   */
  async valuesAt(
    source: TileableSource,
    lon: number,
    lat: number,
    extraNodata: number | null = null,
  ): Promise<(number | null)[]> {
    const raster = await this.files.open(source);
    const bands = raster.samples - (raster.alphaSample === null ? 0 : 1);
    const none = new Array<number | null>(bands).fill(null);
    const point = lonLatToMercator(lon, lat);
    if (!point) return none;
    const level = raster.levels[0];
    const col = Math.floor((point[0] - raster.originX) / level.resX);
    const row = Math.floor((raster.originY - point[1]) / level.resY);
    if (col < 0 || row < 0 || col >= level.width || row >= level.height) return none;
    const block = await this.files.readBlock(
      raster,
      0,
      Math.floor(col / level.blockWidth),
      Math.floor(row / level.blockHeight),
    );
    const base = ((row % level.blockHeight) * level.blockWidth + (col % level.blockWidth)) * raster.samples;
    if (raster.alphaSample !== null && block[base + raster.alphaSample] === 0) return none;
    const hidden = extraNodata === null ? null : block instanceof Float32Array ? Math.fround(extraNodata) : extraNodata;
    return none.map((_, band) => {
      const value = block[base + band];
      if (value !== value || value === raster.nodata || value === hidden) return null;
      return block instanceof Float32Array ? shortestFloat32(value) : value;
    });
  }

  /**
   * The values of `samples` in a window of a level, as Float32 with NaN wherever there is no
   * data. Reads each block the window covers once (usually from the cache).
   */
  private async readWindow(
    raster: Tileable,
    levelIndex: number,
    cols: AxisSampling,
    rows: AxisSampling,
    samples: number[],
  ): Promise<Float32Array[]> {
    const level = raster.levels[levelIndex];
    const { blockWidth: bw, blockHeight: bh } = level;
    const out = samples.map(() => new Float32Array(cols.length * rows.length).fill(Number.NaN));
    const reads: Promise<void>[] = [];
    for (let by = Math.floor(rows.start / bh); by <= Math.floor((rows.start + rows.length - 1) / bh); by++) {
      for (let bx = Math.floor(cols.start / bw); bx <= Math.floor((cols.start + cols.length - 1) / bw); bx++) {
        const overlap: Overlap = {
          x0: Math.max(cols.start, bx * bw),
          x1: Math.min(cols.start + cols.length, (bx + 1) * bw, level.width),
          y0: Math.max(rows.start, by * bh),
          y1: Math.min(rows.start + rows.length, (by + 1) * bh, level.height),
          blockX: bx * bw,
          blockY: by * bh,
        };
        reads.push(
          this.files
            .readBlock(raster, levelIndex, bx, by)
            .then((block) => copyBlock(raster, block, bw, overlap, cols, rows, samples, out)),
        );
      }
    }
    await Promise.all(reads);
    return out;
  }
}
