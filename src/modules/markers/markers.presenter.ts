import type { MarkersTable } from '../../db/tables.js';
import { newId } from '../../ids.js';
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

/** A new marker's row: the given fields, null for the rest. */
export function newMarkerRow(
  roomId: string,
  input: MarkerInput & { latitude: number; longitude: number },
  origin: { createdBy: string; createdAt: number; imageMeta: unknown; importJobId?: string },
): MarkerRow {
  return {
    id: newId('marker'),
    room_id: roomId,
    latitude: input.latitude,
    longitude: input.longitude,
    title: null,
    description: null,
    color: null,
    tags: null,
    event_date: null,
    marker_icon_id: null,
    marker_icon_size: null,
    image_key: null,
    thumbnail_key: null,
    embedded_media_url: null,
    media_size: null,
    ...markerColumns(input),
    image_meta: origin.imageMeta ? JSON.stringify(origin.imageMeta) : null,
    created_by: origin.createdBy,
    created_at: origin.createdAt,
    updated_at: origin.createdAt,
    import_job_id: origin.importJobId ?? null,
  };
}
