import { featureError, type PointFeature } from '../../geo/geojson-points.js';
import { SchemaCheck } from '../../schema-problems.js';
import { ImportedMarkerProperties, type CreateMarkerInput } from './markers.schemas.js';

const propertiesCheck = new SchemaCheck(ImportedMarkerProperties);
const IMPORTED = Object.keys(ImportedMarkerProperties.properties);

/**
 * The marker a bulk-imported Point feature describes: its position and the properties the
 * interface lists, checked against the marker schema (others are ignored). `eventDate` may
 * also be an ISO 8601 date. Throws a GeoJsonError naming the feature.
 */
export function importedMarkerOf(point: PointFeature, index: number): CreateMarkerInput {
  const fields: Record<string, unknown> = {};
  for (const key of IMPORTED) {
    const value = point.properties[key];
    if (value !== undefined && value !== null) fields[key] = value;
  }
  if (typeof fields.eventDate === 'string') {
    const parsed = Date.parse(fields.eventDate);
    if (Number.isNaN(parsed)) throw featureError(index, 'eventDate must be epoch milliseconds or an ISO 8601 date');
    fields.eventDate = parsed;
  }
  const problem = propertiesCheck.problem(fields);
  if (problem) throw featureError(index, problem);
  if ((fields.imageKey === undefined) !== (fields.thumbnailKey === undefined)) {
    throw featureError(index, 'imageKey and thumbnailKey go together');
  }
  // Added to `fields`, not spread into a new literal: V8 gives each `{ ...object, more }` a
  // hidden class of its own, made in the old generation, where a million would pile up.
  fields.latitude = point.latitude;
  fields.longitude = point.longitude;
  return fields as unknown as CreateMarkerInput;
}

/** The first of these properties that holds text, trimmed to `max` characters on one line. */
function textOf(
  properties: Record<string, unknown>,
  names: string[],
  max: number,
  oneLine: boolean,
): string | undefined {
  for (const name of names) {
    const value = properties[name];
    if (typeof value !== 'string' && typeof value !== 'number') continue;
    const text = (oneLine ? String(value).replace(/[\r\n]+/g, ' ') : String(value)).trim().slice(0, max);
    if (text) return text;
  }
  return undefined;
}

/**
 * The marker a point of an uploaded file (a CSV of sites, a GeoPackage of points) becomes:
 * its title and description from the properties under their usual names, leniently (a long
 * or odd value is cut to fit, never refused); other properties are not kept.
 */
export function markerOfUploadedPoint(
  longitude: number,
  latitude: number,
  properties: Record<string, unknown>,
): CreateMarkerInput {
  const title = textOf(properties, ['title', 'name', 'Name', 'NAME', 'label', 'Label', 'titel', 'nom'], 200, true);
  const description = textOf(properties, ['description', 'Description', 'desc', 'notes', 'comment'], 10_000, false);
  return {
    latitude,
    longitude,
    ...(title !== undefined && { title }),
    ...(description !== undefined && { description }),
  };
}
