/**
 * The tiles MapLibre asks for to draw a view (pure; no MapLibre): a source of 512 px tiles
 * (MapLibre's default for vector sources) is cut at the view's zoom rounded down, one of 256 px
 * tiles at the zoom above, rounded for a raster source; within the source's zoom range and
 * bounds. Flat views only: a pitched view reaches tiles of other zooms toward its horizon, and
 * answers none here.
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
  /** The source's tile size in px: 512 (vector tiles, the default) or 256 (the rasters' PNG tiles). */
  tileSize?: number;
  /** Whether the zoom is rounded (MapLibre's raster sources) rather than rounded down. */
  roundZoom?: boolean;
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

/** A raster's PNG tiles as the map asks for them (room-layers.ts setRasterLayers): new addresses when its display changes. */
export const rasterTileAddress = (raster: { tileUrl: string; updatedAt: number }) =>
  `${location.origin}${raster.tileUrl}?v=${raster.updatedAt}`;

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

/**
 * The tiles a `width` × `height` px view covers, each once: those that overlap the view turned by
 * its bearing (not merely the box around it), wrapped across the antimeridian, within the
 * source's bounds (MapLibre's rule: from the tile of the west and north edges to that of the
 * east and south edges, these excluded when the edge falls on a tile's border).
 */
export function viewTiles(view: TileView, width: number, height: number, source: TileSourceRange): TileId[] {
  if ((view.pitch ?? 0) > 0 || width <= 0 || height <= 0) return [];
  const zoomOf = source.roundZoom ? Math.round : Math.floor;
  const z = Math.max(
    0,
    Math.min(source.maxzoom, zoomOf(view.zoom + Math.log2(TILE_SIZE / (source.tileSize ?? TILE_SIZE)))),
  );
  const n = 2 ** z;
  const centre = tilePoint(view.lng, view.lat, z);
  // Half the view in tile units; the view's right and down directions on the map.
  const scale = TILE_SIZE * 2 ** (view.zoom - z);
  const halfWidth = width / 2 / scale;
  const halfHeight = height / 2 / scale;
  const angle = ((view.bearing ?? 0) * Math.PI) / 180;
  const right = { x: Math.cos(angle), y: Math.sin(angle) };
  const down = { x: -Math.sin(angle), y: Math.cos(angle) };
  const extentX = halfWidth * Math.abs(right.x) + halfHeight * Math.abs(down.x);
  const extentY = halfWidth * Math.abs(right.y) + halfHeight * Math.abs(down.y);
  // A tile overlaps the turned view when its corners, along each of the view's directions, reach
  // into the view's half-extent that way (no axis separates them).
  const reaches = (x: number, y: number, axis: { x: number; y: number }, half: number) => {
    const along = [0, 1].flatMap((dx) =>
      [0, 1].map((dy) => (x + dx - centre.x) * axis.x + (y + dy - centre.y) * axis.y),
    );
    return Math.max(...along) > -half && Math.min(...along) < half;
  };
  const overlaps = (x: number, y: number) => reaches(x, y, right, halfWidth) && reaches(x, y, down, halfHeight);
  const within = withinBounds(source.bounds, z);
  const tiles = new Map<string, TileId>();
  for (let x = Math.floor(centre.x - extentX); x < centre.x + extentX; x++)
    for (let y = Math.max(0, Math.floor(centre.y - extentY)); y < Math.min(n, centre.y + extentY); y++) {
      const wrapped = ((x % n) + n) % n;
      if (overlaps(x, y) && within(wrapped, y)) tiles.set(`${wrapped}/${y}`, { z, x: wrapped, y });
    }
  return [...tiles.values()];
}

/** Whether a tile of zoom `z` is within `bounds` ([west, south, east, north]), as MapLibre decides. */
function withinBounds(bounds: readonly number[] | undefined, z: number) {
  if (!bounds) return () => true;
  const [west, south, east, north] = bounds as [number, number, number, number];
  const low = tilePoint(west, north, z);
  const high = tilePoint(east, south, z);
  const [minX, maxX, minY, maxY] = [Math.floor(low.x), Math.ceil(high.x), Math.floor(low.y), Math.ceil(high.y)];
  return (x: number, y: number) => x >= minX && x < maxX && y >= minY && y < maxY;
}
