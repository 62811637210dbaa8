import { inflateSync } from 'node:zlib';
import { addDecoder, BaseDecoder, GeoTIFF, type GeoTIFFImage, getDecoder } from 'geotiff';
import { ByteLru } from '../geo/raster/byte-lru.js';
import type { TileableShape } from '../geo/raster/tile-window.js';

/**
 * Block-level reading of the tileable GeoTIFFs that ingest writes (EPSG:3857, 256 px tiles,
 * internal overviews), through byte ranges the caller reads (from the blob store): never a
 * whole file. Opened files (their directories) are kept and reused, and decoded blocks sit in
 * one cache bounded by bytes, so a tile costs only the few blocks it covers, usually none.
 */

/** Reads `length` bytes from `offset` of a file (fewer at its end). */
export type ReadRange = (offset: number, length: number) => Promise<Buffer>;

/** A tileable file: `key` names it in the caches (its blob key), `read` reads its bytes. */
export interface TileableSource {
  key: string;
  read: ReadRange;
}

/** Node's own zlib, far faster than geotiff's default pure-JS inflate (pako). */
class NodeZlibDecoder extends BaseDecoder {
  override decodeBlock(buffer: ArrayBuffer): ArrayBuffer {
    const out = inflateSync(new Uint8Array(buffer));
    // A block is larger than Node's buffer pool, so it owns its memory: no copy needed.
    if (out.byteOffset === 0 && out.byteLength === out.buffer.byteLength) return out.buffer as ArrayBuffer;
    return out.buffer.slice(out.byteOffset, out.byteOffset + out.byteLength) as ArrayBuffer;
  }
}
// 8 is Adobe Deflate, 32946 the old Deflate code; decoding stays on this thread (no worker).
addDecoder([8, 32946], async () => NodeZlibDecoder as unknown as typeof BaseDecoder, undefined, false);

type Decoder = Awaited<ReturnType<typeof getDecoder>>;
export type BlockArray =
  | Uint8Array
  | Int8Array
  | Uint16Array
  | Int16Array
  | Uint32Array
  | Int32Array
  | Float32Array
  | Float64Array;

export interface TileableLevel {
  image: GeoTIFFImage;
  width: number;
  height: number;
  /** Size of a pixel in metres (EPSG:3857) along x and y (both positive). */
  resX: number;
  resY: number;
  blockWidth: number;
  blockHeight: number;
  decoder: Decoder;
}

export interface Tileable extends TileableShape {
  id: number;
  /** Upper-left corner in EPSG:3857 metres. */
  originX: number;
  originY: number;
  /** Full resolution first, then each overview, coarser and coarser. */
  levels: TileableLevel[];
  /** Samples per pixel, the alpha sample included. */
  samples: number;
  /** Index of an alpha sample (added by ingest to integer rasters without nodata), else null. */
  alphaSample: number | null;
  /** The file's nodata value (NaN when it is NaN), or null. */
  nodata: number | null;
  tiff: GeoTIFF;
}

async function openLevels(tiff: GeoTIFF): Promise<TileableLevel[]> {
  const levels: TileableLevel[] = [];
  const count = await tiff.getImageCount();
  for (let i = 0; i < count; i++) {
    const image = await tiff.getImage(i);
    const directory = image.fileDirectory;
    if (((directory.getValue('NewSubfileType') as number | undefined) ?? 0) & 4) continue; // a mask
    // Block offsets and sizes in one read each, instead of two tiny reads per block later.
    await directory.loadValue(image.isTiled ? 'TileOffsets' : 'StripOffsets');
    await directory.loadValue(image.isTiled ? 'TileByteCounts' : 'StripByteCounts');
    const compression = (directory.getValue('Compression') as number | undefined) ?? 1;
    const decoder = await getDecoder(compression, {
      tileWidth: image.getTileWidth(),
      tileHeight: image.getTileHeight(),
      planarConfiguration: image.planarConfiguration,
      bitsPerSample: directory.getValue('BitsPerSample') as number[],
      predictor: ((await directory.loadValue('Predictor')) as number | undefined) ?? 1,
    });
    levels.push({
      image,
      width: image.getWidth(),
      height: image.getHeight(),
      resX: 0,
      resY: 0,
      blockWidth: image.getTileWidth(),
      blockHeight: image.getTileHeight(),
      decoder,
    });
  }
  const [full] = levels;
  const [resX, resY] = full.image.getResolution();
  // GDAL's convention: every overview covers the full extent.
  for (const level of levels) {
    level.resX = (Math.abs(resX) * full.width) / level.width;
    level.resY = (Math.abs(resY) * full.height) / level.height;
  }
  return levels;
}

/** The file's nodata as its samples hold it (a 32-bit float compares only with a 32-bit float). */
function nodataAsStored(image: GeoTIFFImage): number | null {
  const nodata = image.getGDALNoData();
  return nodata !== null && image.getSampleFormat(0) === 3 && image.getBitsPerSample(0) === 32
    ? Math.fround(nodata)
    : nodata;
}

/** geotiff's source of bytes over `read`, zero-filled past the end as its own file source is. */
function rangeSource(read: ReadRange): Parameters<typeof GeoTIFF.fromSource>[0] {
  const slice = async ({ offset, length }: { offset: number; length: number }): Promise<ArrayBuffer> => {
    const bytes = await read(offset, length);
    if (bytes.length === length && bytes.byteOffset === 0 && bytes.buffer.byteLength === length)
      return bytes.buffer as ArrayBuffer;
    const copy = new Uint8Array(length);
    copy.set(bytes.subarray(0, length));
    return copy.buffer;
  };
  return {
    fileSize: null,
    fetch: (slices: { offset: number; length: number }[]) => Promise.all(slices.map(slice)),
    fetchSlice: async (s: { offset: number; length: number }) => ({ ...s, data: await slice(s) }),
    close: async () => undefined,
  };
}

async function openFile(source: TileableSource, id: number): Promise<Tileable> {
  const tiff = await GeoTIFF.fromSource(rangeSource(source.read));
  try {
    const levels = await openLevels(tiff);
    const first = levels[0].image;
    if (!first.littleEndian) throw new Error('big-endian tileable files are not supported');
    if (first.planarConfiguration !== 1) throw new Error('tileable files must be pixel-interleaved');
    const extra = first.fileDirectory.getValue('ExtraSamples') as number[] | undefined;
    const samples = first.getSamplesPerPixel();
    const [originX, originY] = first.getOrigin();
    return {
      id,
      originX,
      originY,
      levels,
      samples,
      alphaSample: extra && extra[extra.length - 1] === 2 ? samples - 1 : null,
      nodata: nodataAsStored(first),
      tiff,
    };
  } catch (error) {
    await tiff.close();
    throw error;
  }
}

/** Typed view of a decoded block, in the file's sample type. */
function typedView(image: GeoTIFFImage, buffer: ArrayBuffer): BlockArray {
  const format = image.getSampleFormat(0);
  const bits = image.getBitsPerSample(0);
  if (format === 3) return bits === 64 ? new Float64Array(buffer) : new Float32Array(buffer);
  const signed = format === 2;
  if (bits === 8) return signed ? new Int8Array(buffer) : new Uint8Array(buffer);
  if (bits === 16) return signed ? new Int16Array(buffer) : new Uint16Array(buffer);
  if (bits === 32) return signed ? new Int32Array(buffer) : new Uint32Array(buffer);
  throw new Error(`unsupported sample size: ${bits} bits`);
}

/** The sizes of the caches of opened tileable files (from config.ts). */
export interface TileableFilesOptions {
  /** Byte budget of the decoded-block cache. */
  blockCacheBytes: number;
  /** Tileable files kept open. */
  openFiles: number;
  /** How long a forgotten file stays open for reads already under way. */
  closeDelayMs: number;
}

/**
 * The opened tileable files and their decoded blocks: one object, built in app.ts with sizes
 * from the configuration, shared by everyone who reads tiles.
 */
export class TileableFiles {
  private nextId = 1;
  private readonly blockCache: ByteLru<BlockArray>;
  private readonly openFiles = new Map<string, Promise<Tileable>>();

  constructor(private readonly options: TileableFilesOptions) {
    this.blockCache = new ByteLru<BlockArray>(options.blockCacheBytes);
  }

  /** Bytes held by the block cache now (for metrics and tests). */
  get cachedBytes(): number {
    return this.blockCache.bytes;
  }

  /**
   * The opened tileable file, reused across calls with the same key; the least recently used
   * one is closed when more than the configured number are open.
   */
  async open(source: TileableSource): Promise<Tileable> {
    const { key } = source;
    let file = this.openFiles.get(key);
    if (file) {
      this.openFiles.delete(key);
      this.openFiles.set(key, file);
      return file;
    }
    file = openFile(source, this.nextId++);
    this.openFiles.set(key, file);
    file.catch(() => this.openFiles.delete(key));
    while (this.openFiles.size > Math.max(1, this.options.openFiles)) {
      const [oldest] = this.openFiles.keys();
      void this.close(oldest);
    }
    return file;
  }

  /**
   * Forgets the file of `key` (layer deleted or replaced): closes it once reads already
   * under way have had time to finish, and drops its cached blocks.
   */
  async close(key: string): Promise<void> {
    const file = this.openFiles.get(key);
    if (!file) return;
    this.openFiles.delete(key);
    const opened = await file.catch(() => null);
    if (!opened) return;
    this.blockCache.deleteWhere((key) => key.startsWith(`${opened.id}/`));
    setTimeout(() => void opened.tiff.close(), this.options.closeDelayMs).unref();
  }

  /**
   * One decoded block of a level (pixel-interleaved: every sample of a pixel side by side),
   * from the cache or read and decoded once, even when several tiles ask at the same time.
   */
  readBlock(file: Tileable, levelIndex: number, blockX: number, blockY: number): Promise<BlockArray> {
    const key = `${file.id}/${levelIndex}/${blockX}/${blockY}`;
    const cached = this.blockCache.get(key);
    if (cached) return cached;
    const level = file.levels[levelIndex];
    const block = level.image
      .getTileOrStrip(blockX, blockY, 0, level.decoder)
      .then(({ data }) => typedView(level.image, data as ArrayBuffer));
    this.blockCache.set(
      key,
      block,
      level.blockWidth * level.blockHeight * file.samples * (level.image.getBitsPerSample(0) / 8),
    );
    block.catch(() => this.blockCache.delete(key));
    return block;
  }
}
