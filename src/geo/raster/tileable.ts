import { lonLatToMercator, MERCATOR_HALF, TILE_SIZE } from './tile-window.js';

/** Facts of a tileable file (EPSG:3857) that lists and map clients need. */
export interface TileableFacts {
  /** [minLon, minLat, maxLon, maxLat] of the warped raster, WGS84 degrees. */
  bbox: [number, number, number, number];
  /** The zoom whose tiles match the full resolution, and the lowest with an overview of its own. */
  maxZoom: number;
  minZoom: number;
  /** Bytes of the tileable file (the stored raster). */
  sizeBytes: number;
}

/** Longitude/latitude of Web Mercator metres. */
export function mercatorToLonLat(x: number, y: number): [number, number] {
  const lon = (x / MERCATOR_HALF) * 180;
  const lat = (Math.atan(Math.exp((y / MERCATOR_HALF) * Math.PI)) * 360) / Math.PI - 90;
  return [lon, lat];
}

/** Overview levels whose blocks coincide with map tiles: the full resolution and two more. */
export const ALIGNED_LEVELS = 3;

export interface TileGrid {
  zoom: number;
  /** Pixel size in metres: exactly that of the zoom's tile pixels. */
  res: number;
  /** [minX, minY, maxX, maxY] in EPSG:3857, on tile edges of zoom - (ALIGNED_LEVELS - 1). */
  extent: [number, number, number, number];
}

/**
 * The grid the tileable file is warped onto: the Web Mercator zoom closest to the source's
 * resolution (as GDAL's COG driver does by default), on an extent snapped outwards to tile
 * edges, so that a map tile at that zoom and the next two coarser ones is exactly one block of
 * the file or its overviews: no resampling, one block read. Null when the raster has no
 * WGS84 box (ground control points only); gdalwarp then picks the grid itself.
 */
export function tileGrid(
  bbox: [number, number, number, number] | null,
  width: number,
  height: number,
): TileGrid | null {
  if (!bbox) return null;
  const clampLat = (lat: number) => Math.max(-85.05112, Math.min(85.05112, lat));
  const low = lonLatToMercator(Math.max(-180, bbox[0]), clampLat(bbox[1]));
  const high = lonLatToMercator(Math.min(180, bbox[2]), clampLat(bbox[3]));
  if (!low || !high || !(high[0] > low[0] && high[1] > low[1])) return null;
  const sourceRes = Math.sqrt(((high[0] - low[0]) * (high[1] - low[1])) / (width * height));
  const zoom = Math.max(0, Math.min(24, Math.round(Math.log2((2 * MERCATOR_HALF) / (TILE_SIZE * sourceRes)))));
  const res = (2 * MERCATOR_HALF) / (TILE_SIZE * 2 ** zoom);
  const span = TILE_SIZE * res * 2 ** (ALIGNED_LEVELS - 1);
  const snapDown = (v: number) =>
    Math.max(-MERCATOR_HALF, -MERCATOR_HALF + Math.floor((v + MERCATOR_HALF) / span) * span);
  const snapUp = (v: number) => Math.min(MERCATOR_HALF, -MERCATOR_HALF + Math.ceil((v + MERCATOR_HALF) / span) * span);
  return { zoom, res, extent: [snapDown(low[0]), snapDown(low[1]), snapUp(high[0]), snapUp(high[1])] };
}

/** What `gdalinfo -json` says of the tileable file GDAL wrote (read by geo-engine/raster-tileable.ts). */
export interface TileableInfoJson {
  size: [number, number];
  geoTransform: number[];
  bands: { overviews?: unknown[] }[];
}

/** The extent, zooms and size of the tileable file, from GDAL's description and its byte size. */
export function tileableFactsOf(info: TileableInfoJson, sizeBytes: number): TileableFacts {
  const [width, height] = info.size;
  const [x0, resX, , y0, , resY] = info.geoTransform;
  const [minLon, minLat] = mercatorToLonLat(x0, y0 + resY * height);
  const [maxLon, maxLat] = mercatorToLonLat(x0 + resX * width, y0);
  const round = (v: number) => Math.round(v * 1e7) / 1e7;
  const maxZoom = Math.max(0, Math.round(Math.log2((2 * MERCATOR_HALF) / (TILE_SIZE * resX))));
  const overviews = info.bands[0]?.overviews?.length ?? 0;
  return {
    bbox: [round(minLon), round(minLat), round(maxLon), round(maxLat)],
    maxZoom,
    minZoom: Math.max(0, maxZoom - overviews),
    sizeBytes,
  };
}
