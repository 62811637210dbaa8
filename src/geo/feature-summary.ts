import type { Bbox } from './tile-math.js';

/**
 * What a layer needs to know of one GeoJSON geometry: its bbox and the kinds of geometry it
 * holds, found in one walk over its positions, which also refuses positions that are not
 * longitude/latitude (non-finite numbers, values out of range).
 */

/** A layer's geometry type, multi-parts folded in (MultiPolygon counts as Polygon). */
export type LayerGeometryType = 'Point' | 'LineString' | 'Polygon' | 'Mixed';

/** Bit flags of the kinds of geometry met: a layer ORs its features' flags together. */
export const KIND_POINT = 1;
export const KIND_LINE = 2;
export const KIND_POLYGON = 4;

export interface GeometrySummary {
  bbox: Bbox;
  kinds: number;
}

/** A GeoJSON geometry as parsed from text (no checks on its shape yet). */
export interface AnyGeometry {
  type: string;
  coordinates?: unknown;
  geometries?: AnyGeometry[];
}

/** A position that is not longitude/latitude; the message says which value and why. */
export class CoordinateError extends Error {}

/** Depth of the coordinate arrays of each type, and the kind it counts as. */
const SHAPES: Record<string, [depth: number, kind: number]> = {
  Point: [0, KIND_POINT],
  MultiPoint: [1, KIND_POINT],
  LineString: [1, KIND_LINE],
  MultiLineString: [2, KIND_LINE],
  Polygon: [2, KIND_POLYGON],
  MultiPolygon: [3, KIND_POLYGON],
};

/**
 * The bbox and kinds of a geometry, or null for a null geometry or one without positions.
 * Throws CoordinateError for a position outside longitude -180..180, latitude -90..90 or not
 * made of finite numbers, and for a malformed geometry.
 */
export function summarizeGeometry(geometry: AnyGeometry | null | undefined): GeometrySummary | null {
  if (geometry === null || geometry === undefined) return null;
  const box: Bbox = [Infinity, Infinity, -Infinity, -Infinity];
  const kinds = walk(geometry, box, 0);
  return box[0] <= box[2] ? { bbox: box, kinds } : null;
}

function walk(geometry: AnyGeometry, box: Bbox, nesting: number): number {
  if (geometry.type === 'GeometryCollection') {
    if (!Array.isArray(geometry.geometries) || nesting > 8)
      throw new CoordinateError('a GeometryCollection needs a geometries array');
    let kinds = 0;
    for (const part of geometry.geometries) kinds |= walk(part, box, nesting + 1);
    return kinds;
  }
  const shape = SHAPES[geometry.type];
  if (!shape) throw new CoordinateError(`unknown geometry type ${JSON.stringify(String(geometry.type)).slice(0, 40)}`);
  addPositions(geometry.coordinates, shape[0], box);
  return shape[1];
}

function addPositions(value: unknown, depth: number, box: Bbox): void {
  if (!Array.isArray(value)) throw new CoordinateError('coordinates must be arrays');
  if (depth > 0) {
    for (const item of value) addPositions(item, depth - 1, box);
    return;
  }
  const lon = value[0];
  const lat = value[1];
  if (typeof lon !== 'number' || typeof lat !== 'number' || !Number.isFinite(lon) || !Number.isFinite(lat)) {
    throw new CoordinateError('a position must hold finite numbers');
  }
  if (lon < -180 || lon > 180 || lat < -90 || lat > 90) {
    throw new CoordinateError(
      `position [${lon}, ${lat}] is not a longitude from -180 to 180 and a latitude from -90 to 90`,
    );
  }
  if (lon < box[0]) box[0] = lon;
  if (lat < box[1]) box[1] = lat;
  if (lon > box[2]) box[2] = lon;
  if (lat > box[3]) box[3] = lat;
}

/** The layer's geometry type from the OR of its features' kinds (null when it has none). */
export function layerGeometryType(kinds: number): LayerGeometryType | null {
  switch (kinds) {
    case 0:
      return null;
    case KIND_POINT:
      return 'Point';
    case KIND_LINE:
      return 'LineString';
    case KIND_POLYGON:
      return 'Polygon';
    default:
      return 'Mixed';
  }
}

/** The union of two bboxes (the first is grown in place and returned). */
export function growBbox(into: Bbox, other: Bbox): Bbox {
  if (other[0] < into[0]) into[0] = other[0];
  if (other[1] < into[1]) into[1] = other[1];
  if (other[2] > into[2]) into[2] = other[2];
  if (other[3] > into[3]) into[3] = other[3];
  return into;
}
