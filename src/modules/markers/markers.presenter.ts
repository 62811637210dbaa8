import type { MarkersTable } from '../../db/tables.js';
import type { MarkerInput } from './markers.schemas.js';

export type MarkerRow = MarkersTable;

const parse = (json: string | null) => (json === null ? null : JSON.parse(json));

export function presentMarker(row: MarkerRow) {
  return {
    id: row.id,
    latitude: row.latitude,
    longitude: row.longitude,
    title: row.title,
    description: row.description,
    color: row.color,
    tags: parse(row.tags) as string[] | null,
    eventDate: row.event_date,
    markerIconId: row.marker_icon_id,
    markerIconSize: row.marker_icon_size,
    imageKey: row.image_key,
    thumbnailKey: row.thumbnail_key,
    imageMeta: parse(row.image_meta),
    embeddedMediaUrl: row.embedded_media_url,
    mediaSize: row.media_size,
    createdBy: row.created_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The columns for the API fields present in `input` (absent fields are left out). */
export function markerColumns(input: MarkerInput): Partial<MarkerRow> {
  const columns: Partial<MarkerRow> = {};
  const set = <K extends keyof MarkerRow>(key: K, value: MarkerRow[K] | undefined) => {
    if (value !== undefined) columns[key] = value;
  };
  set('latitude', input.latitude);
  set('longitude', input.longitude);
  set('title', input.title);
  set('description', input.description);
  set('color', input.color);
  set('tags', input.tags === undefined ? undefined : input.tags === null ? null : JSON.stringify(input.tags));
  set('event_date', input.eventDate);
  set('marker_icon_id', input.markerIconId);
  set('marker_icon_size', input.markerIconSize);
  set('image_key', input.imageKey);
  set('thumbnail_key', input.thumbnailKey);
  set('embedded_media_url', input.embeddedMediaUrl);
  set('media_size', input.mediaSize);
  return columns;
}
