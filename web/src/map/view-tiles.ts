/**
 * The vector tiles MapLibre asks for to draw a view (pure; no MapLibre): a source of 512 px
 * tiles (MapLibre's default for vector sources) is cut at the view's zoom rounded down, within
 * the source's zoom range and bounds. Flat views only: a pitched view reaches tiles of other
 * zooms toward its horizon, and answers none here.
 */
export interface TileView {
  lat: number;
  lng: number;
  zoom: number;
  bearing?: number;
  pitch?: number;
}

export interface TileSourceRange {
  maxzoom: number;
  /** [west, south, east, north] */
  bounds?: readonly number[];
}

export interface TileId {
  z: number;
  x: number;
  y: number;
}

/**
 * The highest zoom of a layer's tiles the map asks for (drawn enlarged above). It must be the
 * service's thinning `maxZoom` (src/geo/thinning.ts): below it a tile keeps one small feature
 * per thinning cell, so with 14 here most small buildings of a dense layer were never drawn,
 * however far the map zoomed in, and a click on one found nothing.
 */
export const VECTOR_TILE_MAXZOOM = 16;

/** The address of a layer's vector tiles, as the map asks for them ({z}, {x}, {y} filled in). */
export const vectorTileAddress = (layerId: string) => `${location.origin}/api/layers/${layerId}/tiles/{z}/{x}/{y}.mvt`;

const TILE_SIZE = 512;
const MAX_LATITUDE = 85.051129;

/** A position in tile units at zoom `z`. */
function tilePoint(lng: number, lat: number, z: number) {
  const n = 2 ** z;
  const phi = (Math.max(-MAX_LATITUDE, Math.min(MAX_LATITUDE, lat)) * Math.PI) / 180;
  return {
    x: ((lng + 180) / 360) * n,
    y: ((1 - Math.log(Math.tan(phi) + 1 / Math.cos(phi)) / Math.PI) / 2) * n,
  };
}

/** The tiles a `width` × `height` px view covers, each once (longitudes wrapped as MapLibre does). */
export function viewTiles(view: TileView, width: number, height: number, source: TileSourceRange): TileId[] {
  if ((view.pitch ?? 0) > 0 || width <= 0 || height <= 0) return [];
  const z = Math.max(0, Math.min(source.maxzoom, Math.floor(view.zoom)));
  const n = 2 ** z;
  const centre = tilePoint(view.lng, view.lat, z);
  // Half the view in tile units, then the box around it turned by the bearing.
  const scale = TILE_SIZE * 2 ** (view.zoom - z);
  const halfWidth = width / 2 / scale;
  const halfHeight = height / 2 / scale;
  const angle = ((view.bearing ?? 0) * Math.PI) / 180;
  const cos = Math.abs(Math.cos(angle));
  const sin = Math.abs(Math.sin(angle));
  const extentX = halfWidth * cos + halfHeight * sin;
  const extentY = halfWidth * sin + halfHeight * cos;
  let [minX, maxX] = [Math.floor(centre.x - extentX), Math.ceil(centre.x + extentX) - 1];
  let [minY, maxY] = [Math.max(0, Math.floor(centre.y - extentY)), Math.min(n - 1, Math.ceil(centre.y + extentY) - 1)];
  if (source.bounds) {
    const [west, south, east, north] = source.bounds as [number, number, number, number];
    const low = tilePoint(west, north, z);
    const high = tilePoint(east, south, z);
    [minX, maxX] = [Math.max(minX, Math.floor(low.x)), Math.min(maxX, Math.floor(high.x))];
    [minY, maxY] = [Math.max(minY, Math.floor(low.y)), Math.min(maxY, Math.floor(high.y))];
  }
  const tiles = new Map<string, TileId>();
  for (let x = minX; x <= maxX; x++)
    for (let y = minY; y <= maxY; y++) {
      const wrapped = ((x % n) + n) % n;
      tiles.set(`${wrapped}/${y}`, { z, x: wrapped, y });
    }
  return [...tiles.values()];
}
