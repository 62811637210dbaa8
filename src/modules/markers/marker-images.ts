import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import exifReader from 'exif-reader';
import sharp from 'sharp';
import { badRequest } from '../../errors.js';
import { blobKeys } from '../files/blob-keys.js';
import type { StoredFiles } from '../files/stored-files.js';
import type { MarkersRepository } from './markers.repository.js';
import type { ImageMeta } from './markers.schemas.js';

/** Each of the image and the thumbnail may be at most this large (decisions: 20 MB). */
export const MAX_IMAGE_BYTES = 20 * 1024 * 1024;
/** A thumbnail that is sent is stored fitting this square; one made here fits the smaller one. */
const THUMBNAIL_PX = 512;
const MADE_THUMBNAIL_PX = 256;
/** sharp's metadata().format values accepted: JPEG, PNG, WebP, and HEIF (HEIC and AVIF). */
const ACCEPTED_FORMATS = new Set(['jpeg', 'png', 'webp', 'heif']);

export interface UploadedImage {
  imageKey: string;
  thumbnailKey: string;
  /** The photo's own provenance, read from its EXIF before the stored copy is stripped. */
  exif: ImageMeta;
}

/**
 * Marker photos: `markers/<roomId>/<uuid>.jpg` and `markers/<roomId>/<uuid>_thumb.jpg`,
 * recorded in stored_files (kind `marker-image` / `marker-thumbnail`, meta = ImageMeta of
 * the image). Markers reference them by key.
 */
export class MarkerImages {
  constructor(
    private readonly markers: MarkersRepository,
    private readonly files: StoredFiles,
  ) {}

  /**
   * The provenance to keep on a marker that references this pair; 400 validation_error
   * unless both keys name images uploaded to this room.
   */
  async metaForPair(roomId: string, imageKey: string, thumbnailKey: string): Promise<ImageMeta | null> {
    const [image, thumbnail] = await Promise.all([
      this.files.find(roomId, imageKey),
      this.files.find(roomId, thumbnailKey),
    ]);
    if (image?.kind !== 'marker-image') throw badRequest('imageKey does not name an image uploaded to this room');
    if (thumbnail?.kind !== 'marker-thumbnail') {
      throw badRequest('thumbnailKey does not name a thumbnail uploaded to this room');
    }
    return image.meta ? (JSON.parse(image.meta) as ImageMeta) : null;
  }

  /** Whether both files of a photo are still stored in the room (a restored marker may name a removed one). */
  async stillStored(roomId: string, imageKey: string, thumbnailKey: string): Promise<boolean> {
    const [image, thumbnail] = await Promise.all([
      this.files.find(roomId, imageKey),
      this.files.find(roomId, thumbnailKey),
    ]);
    return image?.kind === 'marker-image' && thumbnail?.kind === 'marker-thumbnail';
  }

  /** Deletes those of `keys` that no marker of the room references any more. */
  async releaseUnreferenced(roomId: string, keys: (string | null)[]): Promise<void> {
    const candidates = [...new Set(keys.filter((k): k is string => Boolean(k)))];
    if (candidates.length === 0) return;
    const inUse = await this.markers.imageKeysInUse(roomId, candidates);
    await this.files.remove(
      roomId,
      candidates.filter((key) => !inUse.has(key)),
    );
  }

  /**
   * Decodes the files (400 naming the field when one does not decode or is not JPEG, PNG,
   * WebP, HEIC or AVIF), reads the image's provenance from its EXIF, and stores both as
   * JPEGs without metadata, together or not at all (413 quota_exceeded). Without a
   * thumbnail, one is made from the image (longest side 256 px).
   */
  async upload(roomId: string, image: string, thumbnail?: string): Promise<UploadedImage> {
    // One after the other: the first file that fails is the one named, and memory stays lower.
    const { jpeg: imageJpeg, exif: exifBlock } = await reencode('image', image);
    const { jpeg: thumbnailJpeg } = thumbnail
      ? await reencode('thumbnail', thumbnail, THUMBNAIL_PX)
      : await reencode('image', imageJpeg, MADE_THUMBNAIL_PX);
    const exif = provenance(exifBlock);
    const id = randomUUID();
    const imageKey = blobKeys.markerImage(roomId, id);
    const thumbnailKey = blobKeys.markerThumbnail(roomId, id);
    await this.files.store([
      { roomId, key: imageKey, kind: 'marker-image', contentType: 'image/jpeg', data: imageJpeg, meta: exif },
      { roomId, key: thumbnailKey, kind: 'marker-thumbnail', contentType: 'image/jpeg', data: thumbnailJpeg },
    ]);
    return { imageKey, thumbnailKey, exif };
  }

  /**
   * The stored image or thumbnail named by `key`, or null (the route answers 404) when the key
   * is not exactly `markers/<roomId>/<uuid>.jpg` or `..._thumb.jpg` of this room, or not stored;
   * 404 too when it is deleted while being read.
   */
  async open(roomId: string, key: string): Promise<{ stream: Readable; bytes: number } | null> {
    if (!blobKeys.isMarkerPhotoOf(roomId, key)) return null;
    const row = await this.files.find(roomId, key);
    if (!row || (row.kind !== 'marker-image' && row.kind !== 'marker-thumbnail')) return null;
    return this.files.open(key, 'Image');
  }
}

/**
 * A photo or thumbnail that did not come through `upload` (an import), made what `upload`
 * stores: a clean JPEG, a thumbnail within 512 px; null when it does not decode.
 */
export async function cleanPhoto(data: Buffer, thumbnail: boolean): Promise<Buffer | null> {
  try {
    return (await reencode(thumbnail ? 'thumbnail' : 'image', data, thumbnail ? THUMBNAIL_PX : undefined)).jpeg;
  } catch {
    return null;
  }
}

/** A JPEG of the decoded picture (a file or bytes), upright, on white, without EXIF, XMP, IPTC or ICC data. */
async function reencode(
  field: string,
  data: string | Buffer,
  maxPx?: number,
): Promise<{ jpeg: Buffer; exif?: Buffer }> {
  const refuse = (why: string) => badRequest(`${field} ${why}`, [{ field, message: why }]);
  let metadata: sharp.Metadata;
  try {
    metadata = await sharp(data).metadata();
  } catch {
    throw refuse('is not an image that can be decoded');
  }
  if (!metadata.format || !ACCEPTED_FORMATS.has(metadata.format))
    throw refuse('must be a JPEG, PNG, WebP, HEIC or AVIF image');
  try {
    // failOn 'error': a photo with a harmless decoder warning is kept; one that cannot be
    // decoded fails. Without withMetadata() sharp writes no EXIF, XMP, IPTC or ICC profile.
    let pipeline = sharp(data, { failOn: 'error' }).rotate();
    if (maxPx) pipeline = pipeline.resize(maxPx, maxPx, { fit: 'inside', withoutEnlargement: true });
    const jpeg = await pipeline.flatten({ background: '#ffffff' }).jpeg({ quality: 85, mozjpeg: true }).toBuffer();
    return { jpeg, exif: metadata.exif };
  } catch {
    throw refuse('is not an image that can be decoded');
  }
}

/** The provenance in an EXIF block: all null when there is none or it does not parse. */
export function provenance(exifBlock: Buffer | undefined): ImageMeta {
  const meta: ImageMeta = { takenAt: null, camera: null, gps: null };
  if (!exifBlock) return meta;
  let tags: ReturnType<typeof exifReader>;
  try {
    tags = exifReader(exifBlock);
  } catch {
    return meta;
  }
  meta.takenAt = takenAt(tags.Photo);
  const make = text(tags.Image?.Make);
  const model = text(tags.Image?.Model);
  if (make !== null || model !== null) meta.camera = { make, model };
  meta.gps = position(tags.GPSInfo);
  return meta;
}

/**
 * DateTimeOriginal is a wall-clock time without a zone; exif-reader reads it as UTC. When
 * OffsetTimeOriginal gives the zone it is applied, and SubSecTimeOriginal adds milliseconds.
 */
function takenAt(photo: Record<string, unknown> | undefined): number | null {
  const date = photo?.DateTimeOriginal;
  if (!(date instanceof Date) || Number.isNaN(date.getTime())) return null;
  let ms = date.getTime();
  const offset = text(photo?.OffsetTimeOriginal)?.match(/^([+-])(\d{2}):(\d{2})$/);
  if (offset) ms -= (offset[1] === '-' ? -1 : 1) * (Number(offset[2]) * 60 + Number(offset[3])) * 60_000;
  const subSeconds = text(photo?.SubSecTimeOriginal)?.match(/^\d{1,9}$/);
  if (subSeconds) ms += Math.floor(Number(`0.${subSeconds[0]}`) * 1000);
  return ms;
}

/** Signed decimal degrees from the degrees/minutes/seconds and N/S, E/W references. */
function position(gps: Record<string, unknown> | undefined): ImageMeta['gps'] {
  if (!gps) return null;
  const latitude = degrees(gps.GPSLatitude, gps.GPSLatitudeRef, 'S');
  const longitude = degrees(gps.GPSLongitude, gps.GPSLongitudeRef, 'W');
  if (latitude === null || longitude === null || Math.abs(latitude) > 90 || Math.abs(longitude) > 180) return null;
  let altitude: number | null =
    typeof gps.GPSAltitude === 'number' && Number.isFinite(gps.GPSAltitude) ? gps.GPSAltitude : null;
  // GPSAltitudeRef 1 means below sea level (a BYTE, read as a number or a one-byte buffer).
  const ref = Buffer.isBuffer(gps.GPSAltitudeRef) ? gps.GPSAltitudeRef[0] : gps.GPSAltitudeRef;
  if (altitude !== null && ref === 1) altitude = -altitude;
  return { latitude, longitude, altitude };
}

function degrees(value: unknown, ref: unknown, negative: 'S' | 'W'): number | null {
  const parts = Array.isArray(value) ? value : typeof value === 'number' ? [value] : null;
  if (
    !parts ||
    parts.length === 0 ||
    parts.length > 3 ||
    !parts.every((n) => typeof n === 'number' && Number.isFinite(n))
  )
    return null;
  const [d = 0, m = 0, s = 0] = parts as number[];
  const abs = d + m / 60 + s / 3600;
  return text(ref)?.toUpperCase() === negative ? -abs : abs;
}

/** An EXIF ASCII value, trimmed, at most 200 characters; null when absent or empty. */
function text(value: unknown): string | null {
  // exif-reader gives a Buffer for ASCII values holding bytes above 127 (often UTF-8 in practice).
  const raw = Buffer.isBuffer(value) ? value.toString('utf8') : value;
  if (typeof raw !== 'string') return null;
  // eslint-disable-next-line no-control-regex
  const clean = raw
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim()
    .slice(0, 200);
  return clean === '' ? null : clean;
}
