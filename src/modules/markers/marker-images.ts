import type { Db } from '../../db/database.js';
import { badRequest } from '../../errors.js';
import type { StoredFiles } from '../files/stored-files.js';

/** The photo's own provenance, read from its EXIF before the stored copy is stripped. */
export interface ImageMeta {
  takenAt?: number | null;
  camera?: { make?: string | null; model?: string | null } | null;
  gps?: { latitude: number; longitude: number; altitude?: number | null } | null;
}

/**
 * Marker photos: `markers/<roomId>/<uuid>.jpg` and `markers/<roomId>/<uuid>_thumb.jpg`,
 * recorded in stored_files (kind `marker-image` / `marker-thumbnail`, meta = ImageMeta of
 * the image). Markers reference them by key.
 */
export class MarkerImages {
  constructor(
    private readonly db: Db,
    private readonly files: StoredFiles,
  ) {}

  /**
   * The provenance to keep on a marker that references this pair; 400 validation_error
   * unless both keys name images uploaded to this room.
   */
  async metaForPair(roomId: string, imageKey: string, thumbnailKey: string): Promise<ImageMeta | null> {
    const [image, thumbnail] = await Promise.all([this.files.find(roomId, imageKey), this.files.find(roomId, thumbnailKey)]);
    if (!image || image.kind !== 'marker-image') throw badRequest('imageKey does not name an image uploaded to this room');
    if (!thumbnail || thumbnail.kind !== 'marker-thumbnail') {
      throw badRequest('thumbnailKey does not name a thumbnail uploaded to this room');
    }
    return image.meta ? (JSON.parse(image.meta) as ImageMeta) : null;
  }

  /** Deletes those of `keys` that no marker of the room references any more. */
  async releaseUnreferenced(roomId: string, keys: (string | null)[]): Promise<void> {
    const candidates = [...new Set(keys.filter((k): k is string => Boolean(k)))];
    if (candidates.length === 0) return;
    const referenced = await this.db
      .selectFrom('markers')
      .select(['image_key', 'thumbnail_key'])
      .where('room_id', '=', roomId)
      .where((eb) => eb.or([eb('image_key', 'in', candidates), eb('thumbnail_key', 'in', candidates)]))
      .execute();
    const inUse = new Set(referenced.flatMap((r) => [r.image_key, r.thumbnail_key]));
    await this.files.remove(candidates.filter((key) => !inUse.has(key)));
  }
}
