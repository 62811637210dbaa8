/**
 * Web Mercator tile math (the XYZ scheme of OpenStreetMap, MapLibre and Leaflet): longitude
 * and latitude map to the unit square that tile 0/0/0 covers, x growing east, y growing south.
 */

/** Longitude, latitude bounds: [minLon, minLat, maxLon, maxLat]. */
export type Bbox = [number, number, number, number];

/** The latitude where Web Mercator's square ends (its top and bottom edges). */
export const MAX_MERCATOR_LATITUDE = 85.0511287798066;

/** The highest zoom a tile route accepts. */
export const MAX_TILE_ZOOM = 22;

/** Longitude to x in the unit square (0 at 180°W, 1 at 180°E). */
export function lonToX(lon: number): number {
  return lon / 360 + 0.5;
}

/** Latitude to y in the unit square (0 at the top); latitudes past Mercator's edge are clamped onto it. */
export function latToY(lat: number): number {
  const clamped = Math.max(-MAX_MERCATOR_LATITUDE, Math.min(MAX_MERCATOR_LATITUDE, lat));
  const sin = Math.sin((clamped * Math.PI) / 180);
  return 0.5 - (0.25 * Math.log((1 + sin) / (1 - sin))) / Math.PI;
}

/** x in the unit square back to longitude. */
export function xToLon(x: number): number {
  return (x - 0.5) * 360;
}

/** y in the unit square back to latitude. */
export function yToLat(y: number): number {
  return (360 / Math.PI) * Math.atan(Math.exp((1 - 2 * y) * Math.PI)) - 90;
}

/** Whether z/x/y names a tile of the scheme (integers, 0 ≤ z ≤ MAX_TILE_ZOOM, x and y inside the zoom's grid). */
export function isValidTile(z: number, x: number, y: number): boolean {
  if (![z, x, y].every(Number.isInteger) || z < 0 || z > MAX_TILE_ZOOM) return false;
  const n = 2 ** z;
  return x >= 0 && x < n && y >= 0 && y < n;
}

/**
 * The tile's bounds in longitude and latitude, grown on every side by `buffer` (a fraction of
 * the tile's width, e.g. 64/4096 for MVT's usual buffer): the bbox to query features for it.
 */
export function tileBbox(z: number, x: number, y: number, buffer = 0): Bbox {
  const n = 2 ** z;
  const clampUnit = (v: number) => Math.max(0, Math.min(1, v));
  return [
    xToLon(clampUnit((x - buffer) / n)),
    yToLat(clampUnit((y + 1 + buffer) / n)),
    xToLon(clampUnit((x + 1 + buffer) / n)),
    yToLat(clampUnit((y - buffer) / n)),
  ];
}

/**
 * The size of one pixel at `zoom` as a fraction of the world's width (the unit square), for
 * tiles of `tileSize` pixels (256 for the classic raster convention that `zoom` parameters use).
 */
export function pixelSize(zoom: number, tileSize = 256): number {
  return 1 / (tileSize * 2 ** zoom);
}

/** The range of tiles at zoom `z` that a longitude/latitude bbox touches (inclusive). */
export function tileRange(bbox: Bbox, z: number): { minX: number; minY: number; maxX: number; maxY: number } {
  const n = 2 ** z;
  const toTile = (v: number) => Math.max(0, Math.min(n - 1, Math.floor(v * n)));
  return {
    minX: toTile(lonToX(bbox[0])),
    maxX: toTile(lonToX(bbox[2])),
    minY: toTile(latToY(bbox[3])),
    maxY: toTile(latToY(bbox[1])),
  };
}
