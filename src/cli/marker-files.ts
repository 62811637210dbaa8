import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import type { paths } from '../../web/src/api/schema.js';
import { CliError } from './client.js';

export type Marker =
  paths['/api/rooms/{roomId}/markers']['get']['responses'][200]['content']['application/json']['markers'][number];

/** A GeoJSON Point feature, as bulk import takes it and export writes it. */
interface PointFeature {
  type: 'Feature';
  id?: string;
  geometry: { type: 'Point'; coordinates: [number, number] };
  properties: Record<string, unknown>;
}

/** The columns of an exported CSV, in order; times are ISO 8601, tags a JSON array. */
const CSV_COLUMNS = [
  'id',
  'latitude',
  'longitude',
  'title',
  'description',
  'color',
  'tags',
  'eventDate',
  'markerIconId',
  'markerIconSize',
  'imageKey',
  'thumbnailKey',
  'embeddedMediaUrl',
  'mediaSize',
  'createdBy',
  'createdAt',
] as const;

const LATITUDE = ['latitude', 'lat', 'y'];
const LONGITUDE = ['longitude', 'lon', 'lng', 'long', 'x'];

/** Markers as a GeoJSON FeatureCollection: the position as the geometry, every other field a property. */
export function markersGeoJson(markers: Marker[]) {
  const features: PointFeature[] = markers.map(({ latitude, longitude, ...properties }) => ({
    type: 'Feature',
    id: properties.id,
    geometry: { type: 'Point', coordinates: [longitude!, latitude!] },
    properties,
  }));
  return { type: 'FeatureCollection', features };
}

const isoOf = (ms: unknown) => (typeof ms === 'number' ? new Date(ms).toISOString() : ms);

/** Markers as CSV, one row each, with a header (the columns `markers import` reads back). */
export function markersCsv(markers: Marker[]): string {
  const rows = markers.map((m) => {
    const row: Record<string, unknown> = { ...m, eventDate: isoOf(m.eventDate), createdAt: isoOf(m.createdAt) };
    if (m.tags) row.tags = JSON.stringify(m.tags);
    return CSV_COLUMNS.map((column) => row[column] ?? '');
  });
  return stringify(rows, { header: true, columns: [...CSV_COLUMNS] });
}

/** A CSV cell as the marker property bulk import expects. */
function propertyOf(column: string, text: string): unknown {
  if (column === 'tags')
    return text.startsWith('[')
      ? JSON.parse(text)
      : text
          .split(';')
          .map((t) => t.trim())
          .filter(Boolean);
  if (column === 'markerIconSize' || (column === 'eventDate' && /^-?\d+$/.test(text))) return Number(text);
  return text;
}

/**
 * A CSV of points as a GeoJSON FeatureCollection for bulk import: the position from the
 * latitude/longitude columns (lat/lon, lng or y/x too, in any case), the other non-empty cells
 * as properties (the service keeps those the marker has: title, description, tags, ...).
 */
export function csvToGeoJson(text: string, file: string) {
  const rows = parse(text, { columns: true, bom: true, skip_empty_lines: true, trim: true }) as Record<
    string,
    string
  >[];
  const header = rows[0] ? Object.keys(rows[0]) : [];
  const find = (names: string[]) => header.find((h) => names.includes(h.toLowerCase()));
  const lat = find(LATITUDE);
  const lon = find(LONGITUDE);
  if (rows.length && (!lat || !lon))
    throw new CliError(`${file}: no latitude and longitude columns (latitude, lat or y; longitude, lon, lng or x)`);
  const features: PointFeature[] = rows.map((row, index) => {
    const properties: Record<string, unknown> = {};
    for (const [column, value] of Object.entries(row)) {
      if (column === lat || column === lon || value === '') continue;
      try {
        properties[column] = propertyOf(column, value);
      } catch {
        throw new CliError(`${file}: row ${index + 2}: ${column} is not a JSON array`);
      }
    }
    return {
      type: 'Feature',
      geometry: { type: 'Point', coordinates: [Number(row[lon!]), Number(row[lat!])] },
      properties,
    };
  });
  return { type: 'FeatureCollection', features };
}
