/**
 * Where a flat view puts places and tiles on the screen, as MapLibre's Web Mercator camera does
 * (pure; no MapLibre): the world is 512 px wide at zoom 0, the view's centre is the screen's,
 * and the map is turned by the view's bearing (the direction the screen's top faces, clockwise
 * from north). For drawing a slide before MapLibre has loaded (slide-preview.ts).
 */
import type { TileView } from './view-tiles.js';

const WORLD_PX = 512;
const MAX_LATITUDE = 85.051129;

/** A place in world pixels at `zoom`: x east from the antimeridian, y south from the north edge. */
function worldPoint(lng: number, lat: number, zoom: number): [number, number] {
  const size = WORLD_PX * 2 ** zoom;
  const phi = (Math.max(-MAX_LATITUDE, Math.min(MAX_LATITUDE, lat)) * Math.PI) / 180;
  return [((lng + 180) / 360) * size, ((1 - Math.log(Math.tan(phi) + 1 / Math.cos(phi)) / Math.PI) / 2) * size];
}

/** A 2D affine transform as canvas takes it: (u, v) → (a·u + c·v + e, b·u + d·v + f). */
export type Matrix = [a: number, b: number, c: number, d: number, e: number, f: number];

export interface Projection {
  /** The screen position (px from the top left) of a longitude and latitude. */
  project(lng: number, lat: number): [number, number];
  /**
   * The transform from tile `x`/`y` of zoom `z` (its own units, 0 to `extent`) to the screen;
   * `x` may lie outside 0 to 2^z − 1: a copy of the world east or west of the first.
   */
  tile(z: number, x: number, y: number, extent: number): Matrix;
  /** The world's width in px at the view's zoom (a world px is a screen px). */
  readonly worldSize: number;
  /** The view's centre in world px. */
  readonly centre: [number, number];
  /** How far from its centre the screen reaches, in world px (half its diagonal: any bearing). */
  readonly reach: number;
}

export function projection(view: TileView, width: number, height: number): Projection {
  const [cx, cy] = worldPoint(view.lng, view.lat, view.zoom);
  const angle = ((view.bearing ?? 0) * Math.PI) / 180;
  const cos = Math.cos(angle);
  const sin = Math.sin(angle);
  // A world offset (dx east, dy south) from the centre, turned: the screen's top faces the
  // bearing, its right the bearing plus 90°.
  const screen = (dx: number, dy: number): [number, number] => [
    dx * cos + dy * sin + width / 2,
    -dx * sin + dy * cos + height / 2,
  ];
  const worldSize = WORLD_PX * 2 ** view.zoom;
  return {
    worldSize,
    centre: [cx, cy],
    reach: Math.hypot(width, height) / 2,
    project(lng, lat) {
      const [x, y] = worldPoint(lng, lat, view.zoom);
      return screen(x - cx, y - cy);
    },
    tile(z, x, y, extent) {
      const scale = worldSize / 2 ** z / extent;
      const [e, f] = screen(x * extent * scale - cx, y * extent * scale - cy);
      return [scale * cos, -scale * sin, scale * sin, scale * cos, e, f];
    },
  };
}
