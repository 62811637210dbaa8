import type { Place } from './search.schemas.js';

const number = (value: unknown): number | null => {
  const n = typeof value === 'string' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) ? n : null;
};

const onEarth = (lon: number, lat: number) => lon >= -180 && lon <= 180 && lat >= -90 && lat <= 90;

/** A [west, south, east, north] of four numbers on earth, else undefined. */
function boxOf(w: unknown, s: unknown, e: unknown, n: unknown): Place['bbox'] {
  const box = [number(w), number(s), number(e), number(n)];
  if (box.some((v) => v === null)) return undefined;
  const [west, south, east, north] = box as number[];
  return onEarth(west!, south!) && onEarth(east!, north!) ? [west!, south!, east!, north!] : undefined;
}

/** Nominatim's `/search` JSON: `[{lat, lon, display_name, boundingbox: [south, north, west, east]}]` (numbers as strings). */
function nominatimPlace(item: unknown): Place | null {
  if (typeof item !== 'object' || item === null) return null;
  const { lat, lon, display_name: name, boundingbox: box } = item as Record<string, unknown>;
  const [x, y] = [number(lon), number(lat)];
  if (x === null || y === null || !onEarth(x, y) || typeof name !== 'string') return null;
  const bbox = Array.isArray(box) ? boxOf(box[2], box[0], box[3], box[1]) : undefined;
  return { name, lon: x, lat: y, ...(bbox && { bbox }) };
}

/** Photon's GeoJSON: points with `properties.name`, `city`, `state`, `country`, `extent: [west, north, east, south]`. */
function photonPlace(feature: unknown): Place | null {
  if (typeof feature !== 'object' || feature === null) return null;
  const { geometry, properties } = feature as { geometry?: { coordinates?: unknown }; properties?: unknown };
  const coordinates = Array.isArray(geometry?.coordinates) ? geometry.coordinates : [];
  const [x, y] = [number(coordinates[0]), number(coordinates[1])];
  if (x === null || y === null || !onEarth(x, y)) return null;
  const p = (typeof properties === 'object' && properties !== null ? properties : {}) as Record<string, unknown>;
  const street = [p.street, p.housenumber].filter((v) => typeof v === 'string').join(' ');
  const parts = [p.name, street, p.postcode, p.city, p.state, p.country].filter(
    (v, i, all): v is string => typeof v === 'string' && v !== '' && all.indexOf(v) === i,
  );
  if (!parts.length) return null;
  const extent = Array.isArray(p.extent) ? boxOf(p.extent[0], p.extent[3], p.extent[2], p.extent[1]) : undefined;
  return { name: parts.join(', '), lon: x, lat: y, ...(extent && { bbox: extent }) };
}

/**
 * The places of a geocoder's answer, in Nominatim's JSON (an array) or Photon's GeoJSON (a
 * FeatureCollection); entries without a usable position are left out. Null: neither format.
 */
export function placesOf(answer: unknown): Place[] | null {
  if (Array.isArray(answer)) return answer.map(nominatimPlace).filter((p): p is Place => p !== null);
  if (typeof answer === 'object' && answer !== null && Array.isArray((answer as { features?: unknown }).features))
    return (answer as { features: unknown[] }).features.map(photonPlace).filter((p): p is Place => p !== null);
  return null;
}
