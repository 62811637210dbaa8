import { FieldColumns } from '../../db/field-columns.js';
import type { MarkersTable } from '../../db/tables.js';
import { newId } from '../../ids.js';
import type { MarkerFeedRow } from './markers.repository.js';
import type {
  CreateMarkerInput,
  ImageMeta,
  MarkerFeed,
  MarkerField,
  MarkerInput,
  StoredMarker,
} from './markers.schemas.js';

export type MarkerRow = MarkersTable;

/** Each writable field of a marker and its column. */
const columns = new FieldColumns<MarkerField, keyof MarkerRow & string>(
  {
    latitude: 'latitude',
    longitude: 'longitude',
    title: 'title',
    description: 'description',
    color: 'color',
    tags: 'tags',
    eventDate: 'event_date',
    markerIconId: 'marker_icon_id',
    markerIconSize: 'marker_icon_size',
    imageKey: 'image_key',
    thumbnailKey: 'thumbnail_key',
    embeddedMediaUrl: 'embedded_media_url',
    mediaSize: 'media_size',
  },
  new Set(['tags']),
);

export function presentMarker(row: MarkerRow): StoredMarker & { id: string } {
  return {
    id: row.id,
    ...(columns.fromRow(row) as Omit<StoredMarker, 'imageMeta' | 'createdBy' | 'createdAt' | 'updatedAt'>),
    imageMeta: row.image_meta === null ? null : (JSON.parse(row.image_meta) as ImageMeta),
    createdBy: row.created_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The markers feed: one column per field, colours and icons as indexes into their lists. */
export function presentMarkerFeed(rows: MarkerFeedRow[]): MarkerFeed {
  const palette = new Indexes();
  const iconIds = new Indexes();
  const feed: MarkerFeed = {
    count: rows.length,
    ids: new Array(rows.length),
    latitudes: new Array(rows.length),
    longitudes: new Array(rows.length),
    colors: new Array(rows.length),
    palette: palette.values,
    icons: new Array(rows.length),
    iconIds: iconIds.values,
    iconSizes: new Array(rows.length),
  };
  rows.forEach((row, i) => {
    feed.ids[i] = row.id;
    feed.latitudes[i] = row.latitude;
    feed.longitudes[i] = row.longitude;
    feed.colors[i] = palette.of(row.color);
    feed.icons[i] = iconIds.of(row.marker_icon_id);
    feed.iconSizes[i] = row.marker_icon_size;
  });
  return feed;
}

/** Distinct values in the order first seen, and each one's index. */
class Indexes {
  readonly values: string[] = [];
  private readonly index = new Map<string, number>();
  of(value: string | null): number | null {
    if (value === null) return null;
    let i = this.index.get(value);
    if (i === undefined) {
      i = this.values.push(value) - 1;
      this.index.set(value, i);
    }
    return i;
  }
}

/** The columns for the API fields present in `input` (absent fields are left out). */
export const markerColumns = (input: MarkerInput) => columns.toColumns(input) as Partial<MarkerRow>;

/**
 * A new marker's row: the given fields, null for the rest. Every row gets its columns in one
 * order, from one literal (a bulk import makes a million: spreading two objects into a
 * literal, or adding columns to a copied one, costs ten times more in V8).
 */
export function newMarkerRow(
  roomId: string,
  input: CreateMarkerInput,
  origin: {
    createdBy: string;
    createdAt: number;
    imageMeta: ImageMeta | null | undefined;
    importJobId?: string;
    /** Given by an import that numbers its markers (ids.ts, `newIdSequence`). */
    id?: string;
  },
): MarkerRow {
  const row: MarkerRow = {
    id: origin.id ?? newId('marker'),
    room_id: roomId,
    ...(columns.nulls() as unknown as Omit<MarkerRow, 'id' | 'room_id'>),
    latitude: input.latitude,
    longitude: input.longitude,
    image_meta: origin.imageMeta ? JSON.stringify(origin.imageMeta) : null,
    created_by: origin.createdBy,
    created_at: origin.createdAt,
    updated_at: origin.createdAt,
    import_job_id: origin.importJobId ?? null,
  };
  return Object.assign(row, markerColumns(input));
}
