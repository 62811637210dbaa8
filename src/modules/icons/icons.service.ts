import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { actorOf, type Caller } from '../../auth/access.js';
import { badRequest, notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import { blobKeys } from '../files/blob-keys.js';
import type { StoredFiles } from '../files/stored-files.js';
import type { WritePath } from '../history/write-path.js';
import { presentIcon } from './icons.presenter.js';
import type { IconRow, IconsRepository } from './icons.repository.js';
import { sanitizeSvg, SVG_LIMITS, SvgTooComplex } from './svg-sanitizer.js';

/** An icon file may be at most this large (interface: 1 MB). */
export const MAX_ICON_BYTES = 1024 * 1024;
export const ICON_SIZE = { min: 8, max: 256 } as const;
/** An icon's name at most: the icons' schema's bound. */
export const ICON_NAME_MAX = 100;
/** A PNG icon may have at most this many pixels: fixed, a 1 MB PNG can inflate to gigabytes and an icon needs 256. */
export const MAX_PNG_PIXELS = 4096 * 4096;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export interface NewIcon {
  /** The uploaded file (a temporary file). */
  file: string;
  name: string;
  size: number;
}

const notAnIcon = () =>
  badRequest('icon must be an SVG document or a PNG image', [{ field: 'icon', message: 'not a valid SVG or PNG' }]);

/** Marker icons of a room: an SVG (sanitised) or PNG (re-encoded) file and its row. */
export class IconsService {
  constructor(
    private readonly icons: IconsRepository,
    private readonly files: StoredFiles,
    private readonly writePath: WritePath,
  ) {}

  async create(roomId: string, caller: Caller, input: NewIcon): Promise<{ iconId: string }> {
    const { data, contentType, ext } = await prepare(input.file);
    const iconId = newId('icon-api');
    const key = blobKeys.icon(roomId, iconId, ext);
    await this.files.store([{ roomId, key, kind: 'marker-icon', contentType, data }]);
    const row: IconRow = {
      id: iconId,
      room_id: roomId,
      name: input.name,
      size: input.size,
      file_key: key,
      content_type: contentType,
      created_by: actorOf(caller).id,
      created_at: Date.now(),
    };
    try {
      await this.writePath.write(roomId, actorOf(caller), async (trx) => {
        await this.icons.insert(row, trx);
        const icon = presentIcon(row);
        return {
          result: null,
          changes: [
            {
              type: 'icon.created',
              objectType: 'icon',
              objectId: iconId,
              changes: { name: input.name, size: input.size },
              data: icon,
            },
          ],
        };
      });
    } catch (error) {
      await this.files.remove(roomId, [key]);
      throw error;
    }
    return { iconId };
  }

  async list(roomId: string) {
    const rows = await this.icons.listForRoom(roomId);
    return { icons: rows.map(presentIcon) };
  }

  /** The icon's file; 404 when the room has no such icon, or it went while being read. */
  async open(roomId: string, iconId: string) {
    const row = await this.icons.find(roomId, iconId);
    if (!row) throw notFound('Icon');
    return { ...(await this.files.open(row.file_key, 'Icon')), contentType: row.content_type };
  }
}

const prepare = async (path: string) => prepareIcon(await readFile(path)); // at most MAX_ICON_BYTES: the upload's cap

/** The bytes to store: a PNG decoded and re-encoded (no metadata, nothing appended), or sanitised SVG; 400 for anything else. */
export async function prepareIcon(file: Buffer): Promise<{ data: Buffer; contentType: string; ext: 'png' | 'svg' }> {
  if (file.length > MAX_ICON_BYTES)
    throw badRequest(`icon must be at most ${MAX_ICON_BYTES} bytes`, [{ field: 'icon', message: 'too large' }]);
  if (file.subarray(0, 8).equals(PNG_SIGNATURE)) {
    try {
      const image = sharp(file, { failOn: 'error', limitInputPixels: MAX_PNG_PIXELS });
      if ((await image.metadata()).format !== 'png') throw notAnIcon();
      return { data: await image.png().toBuffer(), contentType: 'image/png', ext: 'png' };
    } catch {
      throw notAnIcon();
    }
  }
  let svg: string | null;
  try {
    svg = await sanitizeSvg(file);
  } catch (error) {
    if (error instanceof SvgTooComplex) {
      throw badRequest(
        `icon is too complex for an icon: at most ${SVG_LIMITS.depth} levels of nesting and ${SVG_LIMITS.elements} elements`,
        [{ field: 'icon', message: 'too complex' }],
      );
    }
    throw notAnIcon();
  }
  if (svg === null) throw notAnIcon();
  return { data: Buffer.from(svg, 'utf8'), contentType: 'image/svg+xml', ext: 'svg' };
}
