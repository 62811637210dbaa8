import { randomUUID } from 'node:crypto';
import type { Static } from 'typebox';
import type { Db } from '../../db/database.js';
import type { RoomTable } from '../../db/room-table.js';
import type { MarkersTable, StoredFilesTable } from '../../db/tables.js';
import { SchemaCheck } from '../../schema-problems.js';
import type { Exchange } from '../exchange/exchange.js';
import { authored, authoredColumns, fileRowOf, fileTable, objectsExchange } from '../exchange/file-tables.js';
import { checker, json, jsonOrNull, num, text, time } from '../exchange/restore-values.js';
import { blobKeys } from '../files/blob-keys.js';
import type { StoredFiles } from '../files/stored-files.js';
import { cleanPhoto } from './marker-images.js';
import { presentMarker } from './markers.presenter.js';
import { ImageMetaSchema, Marker } from './markers.schemas.js';

type ApiMarker = Static<typeof Marker>;

const PHOTO_KINDS = ['marker-image', 'marker-thumbnail'];
const checkMarker = checker('marker', Marker, presentMarker);
const checkImageMeta = new SchemaCheck(ImageMetaSchema);

/** Markers: a feature table, the position is the geometry; icons and photos are restored first and referred to by their new ids. */
export function markersExchange(db: Db, markers: RoomTable<'markers'>): Exchange<MarkersTable> {
  const exchange = objectsExchange({
    source: 'markers',
    description: 'Markers (the position is the geometry)',
    omit: ['room_id', 'latitude', 'longitude', 'import_job_id'],
    columns: {
      id: 'TEXT',
      title: 'TEXT',
      description: 'TEXT',
      color: 'TEXT',
      tags: 'TEXT',
      event_date: 'time',
      marker_icon_id: 'TEXT',
      marker_icon_size: 'INTEGER',
      image_key: 'TEXT',
      thumbnail_key: 'TEXT',
      image_meta: 'TEXT',
      embedded_media_url: 'TEXT',
      media_size: 'TEXT',
      ...authoredColumns,
    },
    store: markers,
    db,
    geometry: { type: 'POINT', of: (row) => ({ type: 'Point', coordinates: [row.longitude, row.latitude] }) },
    // A photo deleted while the room is exported: the marker goes without it, as a marker without a photo.
    filesGone: (row, held) =>
      (row.image_key !== null && !held.has(row.image_key)) ||
      (row.thumbnail_key !== null && !held.has(row.thumbnail_key))
        ? { ...row, image_key: null, thumbnail_key: null, image_meta: null }
        : row,
    restore: {
      kind: 'marker',
      check: checkMarker,
      after: ['marker_icons', 'marker_images'],
      counted: 'markers',
      own(p, context, { geometry }) {
        if (geometry?.type !== 'Point') return null;
        context.countOne();
        const [longitude, latitude] = geometry.coordinates as [number, number];
        const imageKey = context.newIdOf('image', p.image_key);
        const thumbnailKey = context.newIdOf('image', p.thumbnail_key);
        const withImage = imageKey !== undefined && thumbnailKey !== undefined;
        return {
          latitude,
          longitude,
          title: text(p.title),
          description: text(p.description),
          color: text(p.color),
          tags: json(p.tags),
          event_date: eventDate(p.event_date),
          marker_icon_id: p.marker_icon_id ? (context.newIdOf('icon', p.marker_icon_id) ?? null) : null,
          marker_icon_size: num(p.marker_icon_size),
          image_key: withImage ? imageKey : null,
          thumbnail_key: withImage ? thumbnailKey : null,
          image_meta: withImage ? jsonOrNull(imageMeta(p.image_meta)) : null,
          embedded_media_url: text(p.embedded_media_url),
          media_size: text(p.media_size),
          ...authored(p, context),
          import_job_id: null,
        };
      },
    },
  });
  return {
    ...exchange,
    clone: {
      manifest: (rows) => ({ markers: rows.map(presentMarker) }),
      restoredFrom: {
        field: 'markers',
        files: (marker: ApiMarker) => [marker.imageKey, marker.thumbnailKey],
        fileRow: (marker: ApiMarker) =>
          typeof marker.latitude === 'number' && typeof marker.longitude === 'number'
            ? {
                row: fileRowOf(
                  marker,
                  exchange.columns.map((c) => c.name),
                ),
                geometry: { type: 'Point', coordinates: [marker.longitude, marker.latitude] },
              }
            : null,
      },
    },
  };
}

/**
 * Marker photos and thumbnails, by the key markers name them with, with the file in `data`.
 * Restored, each is made again what an upload stores (a clean JPEG without metadata, a
 * thumbnail within 512 px); one that does not decode is left out, and so is its marker's
 * photo. Its provenance is kept only when it has the API's shape.
 */
export function markerPhotosExchange(files: Pick<StoredFiles, 'listKinds'>): Exchange<StoredFilesTable> {
  return {
    ...fileTable({
      table: 'marker_images',
      description: 'Marker photos and thumbnails (JPEG in data)',
      source: 'stored_files',
      omit: ['room_id', 'bytes'],
      fileOnly: ['data'],
      blobLookup: 'key',
      columns: { key: 'TEXT', kind: 'TEXT', content_type: 'TEXT', meta: 'TEXT', created_at: 'time', data: 'BLOB' },
    }),
    export: { rows: (roomId) => files.listKinds(roomId, PHOTO_KINDS), fileKey: (row) => row.key },
    restore: {
      after: [],
      counted: 'images',
      async add(row, context, { data }) {
        const kind = String(row.kind);
        if (!data || !PHOTO_KINDS.includes(kind) || context.newIdOf('image', row.key) !== undefined) return null;
        context.countOne();
        const jpeg = await cleanPhoto(data, kind === 'marker-thumbnail');
        if (!jpeg) return null;
        const key = (kind === 'marker-thumbnail' ? blobKeys.markerThumbnail : blobKeys.markerImage)(
          context.roomId,
          randomUUID(),
        );
        const meta = imageMeta(row.meta);
        await context.store({ key, kind, contentType: 'image/jpeg', data: jpeg, ...(meta !== null && { meta }) });
        context.remember('image', row.key, key);
        return {
          key,
          room_id: context.roomId,
          kind,
          bytes: jpeg.length,
          content_type: 'image/jpeg',
          meta: jsonOrNull(meta),
          created_at: Date.now(),
        };
      },
    },
  };
}

/** A marker's date: any time a JavaScript date can hold (about 275,000 years either side of 1970). */
function eventDate(value: unknown): number | null {
  const ms = time(value);
  return ms !== null && Math.abs(ms) <= 8.64e15 ? ms : null;
}

/** A photo's provenance (JSON text or an object) when it has the API's shape, else null. */
function imageMeta(value: unknown): unknown {
  try {
    const meta = typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
    return meta !== null && meta !== undefined && checkImageMeta.problem(meta) === null ? meta : null;
  } catch {
    return null;
  }
}
