import { actorOf, type Caller } from '../../auth/access.js';
import { badRequest, emptyUpdate, notFound, unknownField } from '../../errors.js';
import type { RoomRow } from '../../db/tables.js';
import type { WritePath } from '../history/write-path.js';
import type { IconsRepository } from '../icons/icons.repository.js';
import type { MarkerImages } from './marker-images.js';
import { markerColumns, newMarkerRow, presentMarker, presentMarkerFeed, type MarkerRow } from './markers.presenter.js';
import type { MarkersRepository } from './markers.repository.js';
import {
  NOT_CLEARABLE,
  WRITABLE_FIELDS,
  type CreateMarkerInput,
  type ImageMeta,
  type MarkerInput,
} from './markers.schemas.js';

/**
 * The rules the interface states before value validation: an empty PATCH is
 * `empty_update`, an unknown or read-only field `unknown_field:<key>`, and null on a field
 * that cannot be cleared a validation error.
 */
export function checkMarkerBody(body: unknown, { patch }: { patch: boolean }): void {
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    if (patch && (body === undefined || body === null)) throw emptyUpdate();
    throw badRequest('The body must be a JSON object');
  }
  const keys = Object.keys(body);
  if (patch && keys.length === 0) throw emptyUpdate();
  const unknown = keys.find((key) => !WRITABLE_FIELDS.has(key));
  if (unknown !== undefined) throw unknownField(unknown);
  const cleared = keys.find((key) => NOT_CLEARABLE.has(key) && (body as Record<string, unknown>)[key] === null);
  if (cleared)
    throw badRequest(`${cleared} can be changed but not cleared`, [
      { field: `body.${cleared}`, message: 'cannot be null' },
    ]);
  const record = body as Record<string, unknown>;
  if (typeof record.title === 'string' && /[\r\n]/.test(record.title)) {
    throw badRequest('title must not contain newline characters', [
      { field: 'body.title', message: 'contains a newline' },
    ]);
  }
  if (
    'imageKey' in record !== 'thumbnailKey' in record ||
    (record.imageKey === null) !== (record.thumbnailKey === null)
  ) {
    throw badRequest('imageKey and thumbnailKey are sent together: both keys, or both null to remove the image');
  }
}

export class MarkersService {
  constructor(
    private readonly markers: MarkersRepository,
    private readonly icons: IconsRepository,
    private readonly images: MarkerImages,
    private readonly writePath: WritePath,
  ) {}

  async list(room: RoomRow) {
    const rows = await this.markers.list(room.id);
    return { count: rows.length, markers: rows.map(presentMarker) };
  }

  async feed(room: RoomRow) {
    return presentMarkerFeed(await this.markers.feed(room.id));
  }

  async get(room: RoomRow, markerId: string) {
    const row = await this.markers.find(room.id, markerId);
    if (!row) throw notFound('Marker');
    return { success: true, marker: presentMarker(row) };
  }

  async create(room: RoomRow, caller: Caller, input: CreateMarkerInput) {
    const imageMeta = await this.checkReferences(room.id, input);
    const row = newMarkerRow(room.id, input, { createdBy: actorOf(caller).id, createdAt: Date.now(), imageMeta });
    const marker = presentMarker(row);
    await this.writePath.write(room.id, actorOf(caller), async (trx) => ({
      result: null,
      changes: [{ type: 'marker.created', objectType: 'marker', objectId: row.id, changes: input, data: marker }],
      sent: this.markers.insert(trx, [row]),
    }));
    return { success: true, marker };
  }

  async update(room: RoomRow, caller: Caller, markerId: string, input: MarkerInput) {
    const imageMeta = await this.checkReferences(room.id, input);
    const { marker, previous } = await this.writePath.write(room.id, actorOf(caller), async (trx) => {
      const previous = await this.markers.find(room.id, markerId, trx);
      if (!previous) throw notFound('Marker');
      const row: MarkerRow = { ...previous, ...markerColumns(input), updated_at: Date.now() };
      // A new (or removed) image replaces the provenance; it is never inherited.
      if (input.imageKey !== undefined) row.image_meta = imageMeta ? JSON.stringify(imageMeta) : null;
      await this.markers.replace(trx, row);
      const marker = presentMarker(row);
      return {
        result: { marker, previous },
        changes: [{ type: 'marker.updated', objectType: 'marker', objectId: markerId, changes: input, data: marker }],
      };
    });
    if (input.imageKey !== undefined && previous.image_key !== input.imageKey) {
      await this.images.releaseUnreferenced(room.id, [previous.image_key, previous.thumbnail_key]);
    }
    return { success: true, marker };
  }

  async delete(room: RoomRow, caller: Caller, markerId: string, ifLatestVersion?: number) {
    const previous = await this.writePath.write(room.id, actorOf(caller), async (trx) => {
      const previous = await this.markers.find(room.id, markerId, trx);
      if (!previous) throw notFound('Marker');
      await this.writePath.ensureLatest(trx, room.id, ['marker', markerId], ifLatestVersion);
      if (!(await this.markers.delete(trx, room.id, markerId))) throw notFound('Marker');
      return {
        result: previous,
        changes: [{ type: 'marker.deleted', objectType: 'marker', objectId: markerId, data: null }],
      };
    });
    await this.images.releaseUnreferenced(room.id, [previous.image_key, previous.thumbnail_key]);
    return { success: true, markerId };
  }

  /** Icons and images a marker names must belong to this room. */
  private async checkReferences(roomId: string, input: MarkerInput): Promise<ImageMeta | null> {
    if (input.markerIconId != null && !(await this.icons.exists(roomId, input.markerIconId))) {
      throw badRequest('markerIconId does not name an icon of this room', [
        { field: 'body.markerIconId', message: 'unknown icon' },
      ]);
    }
    // Any key that is not null ("" included) must name this room's stored image.
    if (input.imageKey != null && input.thumbnailKey != null) {
      return this.images.metaForPair(roomId, input.imageKey, input.thumbnailKey);
    }
    return null;
  }
}
