/** A drawn shape: a GeoJSON Point, LineString or Polygon in longitude/latitude. */
export type Position = [number, number] | [number, number, number];
export type DrawingGeometry =
  | { type: 'Point'; coordinates: Position }
  | { type: 'LineString'; coordinates: Position[] }
  | { type: 'Polygon'; coordinates: Position[][] };

function positionProblem(value: unknown, where: string): string | null {
  if (!Array.isArray(value) || value.length < 2 || value.length > 3) {
    return `${where} must be [longitude, latitude] or [longitude, latitude, altitude]`;
  }
  if (!value.every((n) => typeof n === 'number' && Number.isFinite(n))) return `${where} must hold finite numbers`;
  const [lng, lat] = value as number[];
  if (lng! < -180 || lng! > 180) return `${where}: longitude must be from -180 to 180`;
  if (lat! < -90 || lat! > 90) return `${where}: latitude must be from -90 to 90`;
  return null;
}

/** The first problem among the items, checked one by one (arrays may be long). */
function firstProblem(items: unknown[], check: (item: unknown, i: number) => string | null): string | null {
  for (let i = 0; i < items.length; i++) {
    const problem = check(items[i], i);
    if (problem) return problem;
  }
  return null;
}

function lineProblem(value: unknown, where: string, min: number): string | null {
  if (!Array.isArray(value) || value.length < min) return `${where} must have at least ${min} positions`;
  return firstProblem(value, (p, i) => positionProblem(p, `${where}[${i}]`));
}

function ringProblem(value: unknown, where: string): string | null {
  const problem = lineProblem(value, where, 4);
  if (problem) return problem;
  const ring = value as number[][];
  const [a, b] = [ring[0]!, ring[ring.length - 1]!];
  if (a.length !== b.length || a.some((n, i) => n !== b[i]))
    return `${where} must be closed (its last position equal to its first)`;
  return null;
}

/**
 * What is wrong with a drawing's geometry, or null when it is a valid Point, LineString or
 * Polygon (rings of at least four positions, closed, coordinates in range).
 */
export function geometryProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'geometry must be a GeoJSON object';
  const { type, coordinates } = value as { type?: unknown; coordinates?: unknown };
  const extra = Object.keys(value).find((k) => k !== 'type' && k !== 'coordinates');
  if (extra) return `geometry has an unexpected member "${extra}"`;
  switch (type) {
    case 'Point':
      return positionProblem(coordinates, 'geometry.coordinates');
    case 'LineString':
      return lineProblem(coordinates, 'geometry.coordinates', 2);
    case 'Polygon':
      return polygonProblem(coordinates, 'geometry.coordinates');
    default:
      return 'geometry.type must be Point, LineString or Polygon';
  }
}

function polygonProblem(value: unknown, where: string): string | null {
  if (!Array.isArray(value) || value.length === 0) return `${where} must be a list of rings`;
  return firstProblem(value, (ring, i) => ringProblem(ring, `${where}[${i}]`));
}

/** The first problem of the parts of a multi-part geometry (at least one part). */
function partsProblem(value: unknown, check: (part: unknown, where: string) => string | null): string | null {
  if (!Array.isArray(value) || value.length === 0) return 'geometry.coordinates must be a list of at least one part';
  return firstProblem(value, (part, i) => check(part, `geometry.coordinates[${i}]`));
}

/**
 * What is wrong with the geometry of a layer's feature, or null: as a drawing's (geometryProblem),
 * or a MultiPoint, MultiLineString or MultiPolygon whose parts are valid.
 */
export function featureGeometryProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'geometry must be a GeoJSON object';
  const { type, coordinates } = value as { type?: unknown; coordinates?: unknown };
  switch (type) {
    case 'MultiPoint':
    case 'MultiLineString':
    case 'MultiPolygon': {
      const extra = Object.keys(value).find((k) => k !== 'type' && k !== 'coordinates');
      if (extra) return `geometry has an unexpected member "${extra}"`;
      if (type === 'MultiPoint') return partsProblem(coordinates, positionProblem);
      if (type === 'MultiLineString') return partsProblem(coordinates, (line, where) => lineProblem(line, where, 2));
      return partsProblem(coordinates, polygonProblem);
    }
    case 'Point':
    case 'LineString':
    case 'Polygon':
      return geometryProblem(value);
    default:
      return 'geometry.type must be Point, LineString, Polygon, MultiPoint, MultiLineString or MultiPolygon';
  }
}
