import type { AnyGeometry } from './feature-summary.js';
import { latToY, lonToX, pixelSize } from './tile-math.js';

/**
 * Simplification of longitude/latitude geometries to a zoom's pixel size, for
 * `GET /features?zoom=`: Douglas-Peucker in Web Mercator (where a pixel has the same size
 * everywhere on screen) with a tolerance of one pixel of a 256-pixel tile at that zoom.
 * Positions kept are the original ones. Lines keep their ends; a ring keeps at least three
 * corners (the most important ones) so that no feature disappears: the route returns every
 * feature in the bbox, only lighter.
 */

type Position = number[];

/**
 * A copy of `geometry` with each line and ring simplified to `zoom`'s pixel size (same type,
 * positions a subset of the original ones). Points are returned as they are.
 */
export function simplifyGeometry<G extends AnyGeometry>(geometry: G, zoom: number): G {
  const tolerance = pixelSize(zoom, 256);
  return simplifyWith(geometry, tolerance * tolerance) as G;
}

function simplifyWith(geometry: AnyGeometry, sqTolerance: number): AnyGeometry {
  const c = geometry.coordinates as never;
  switch (geometry.type) {
    case 'LineString':
      return { ...geometry, coordinates: simplifyLine(c, sqTolerance, false) };
    case 'MultiLineString':
    case 'Polygon':
      return {
        ...geometry,
        coordinates: (c as Position[][]).map((line) => simplifyLine(line, sqTolerance, geometry.type === 'Polygon')),
      };
    case 'MultiPolygon':
      return {
        ...geometry,
        coordinates: (c as Position[][][]).map((polygon) =>
          polygon.map((ring) => simplifyLine(ring, sqTolerance, true)),
        ),
      };
    case 'GeometryCollection':
      return { ...geometry, geometries: (geometry.geometries ?? []).map((part) => simplifyWith(part, sqTolerance)) };
    default:
      return geometry;
  }
}

/**
 * Douglas-Peucker on one line or closed ring: the positions whose importance (see
 * vertexImportance) passes the squared tolerance, in Web Mercator units.
 */
export function simplifyLine(line: Position[], sqTolerance: number, isRing: boolean): Position[] {
  const count = line.length;
  if (count <= (isRing ? 4 : 2)) return line;
  const importance = vertexImportance(line);
  let keep = (i: number) => importance[i]! > sqTolerance;
  if (isRing && countKept(importance, sqTolerance) < 4) {
    // Keep the two most important corners besides the closing pair: a triangle.
    const ranked = Array.from(importance.keys())
      .slice(1, -1)
      .sort((a, b) => importance[b]! - importance[a]!);
    const corners = new Set(ranked.slice(0, 2));
    keep = (i: number) => i === 0 || i === count - 1 || corners.has(i);
  }
  const out: Position[] = [];
  for (let i = 0; i < count; i++) if (keep(i)) out.push(line[i]!);
  return out;
}

/**
 * Each vertex's importance: the squared Mercator distance at which Douglas-Peucker keeps it
 * (Infinity for the ends). Nested: a vertex is never more important than the one that split
 * its part, so the kept vertices at any tolerance are those above it.
 */
function vertexImportance(line: Position[]): Float64Array {
  const count = line.length;
  const xs = new Float64Array(count);
  const ys = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    xs[i] = lonToX(line[i]![0]!);
    ys[i] = latToY(line[i]![1]!);
  }
  const importance = new Float64Array(count);
  importance[0] = importance[count - 1] = Infinity;
  const stack: number[] = [0, count - 1];
  while (stack.length > 0) {
    const last = stack.pop()!;
    const first = stack.pop()!;
    let farthest = -1;
    let maxSq = -1;
    for (let i = first + 1; i < last; i++) {
      const d = sqSegmentDistance(xs[i]!, ys[i]!, xs[first]!, ys[first]!, xs[last]!, ys[last]!);
      if (d > maxSq) {
        maxSq = d;
        farthest = i;
      }
    }
    if (farthest === -1) continue;
    importance[farthest] = Math.min(maxSq, importance[first]!, importance[last]!);
    stack.push(first, farthest, farthest, last);
  }
  return importance;
}

/** Zooms are capped here: past it no geometry is simplified. */
const MAX_SIMPLIFIED_ZOOM = 24;

/**
 * The lowest zoom at which simplifyGeometry keeps every position of the geometry (0 for
 * points): from there on the stored text can be served as it is, without parsing it. Lines of
 * two positions and rings of four are never simplified.
 */
export function detailZoom(geometry: AnyGeometry): number {
  let least = Infinity;
  const visitLine = (line: Position[], isRing: boolean) => {
    if (line.length <= (isRing ? 4 : 2)) return;
    for (const value of vertexImportance(line)) if (value < least) least = value;
  };
  const visit = (g: AnyGeometry): void => {
    const c = g.coordinates as never;
    if (g.type === 'LineString') visitLine(c, false);
    else if (g.type === 'MultiLineString' || g.type === 'Polygon')
      for (const line of c as Position[][]) visitLine(line, g.type === 'Polygon');
    else if (g.type === 'MultiPolygon')
      for (const polygon of c as Position[][][]) for (const ring of polygon) visitLine(ring, true);
    else if (g.type === 'GeometryCollection') for (const part of g.geometries ?? []) visit(part);
  };
  visit(geometry);
  if (least === Infinity) return 0;
  if (!(least > 0)) return MAX_SIMPLIFIED_ZOOM + 1;
  // Kept at zoom z when least > (1 / (256 * 2^z))^2, i.e. 4^z > 1 / (65536 * least).
  const zoom = Math.floor(Math.log(1 / (65536 * least)) / Math.log(4)) + 1;
  return Math.max(0, Math.min(MAX_SIMPLIFIED_ZOOM + 1, zoom));
}

function countKept(importance: Float64Array, sqTolerance: number): number {
  let kept = 0;
  for (const value of importance) if (value > sqTolerance) kept++;
  return kept;
}

/** Squared distance from point p to the segment a-b. */
function sqSegmentDistance(px: number, py: number, ax: number, ay: number, bx: number, by: number): number {
  let x = ax;
  let y = ay;
  let dx = bx - ax;
  let dy = by - ay;
  if (dx !== 0 || dy !== 0) {
    const t = ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy);
    if (t > 1) {
      x = bx;
      y = by;
    } else if (t > 0) {
      x += dx * t;
      y += dy * t;
    }
  }
  dx = px - x;
  dy = py - y;
  return dx * dx + dy * dy;
}
