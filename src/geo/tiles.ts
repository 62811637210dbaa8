import { geoJSONToTile, type GeoJSONVTFeature } from '@maplibre/geojson-vt';
import { fromGeojsonVt } from '@maplibre/vt-pbf';
import type { AnyGeometry } from './feature-summary.js';
import { DEFAULT_THINNING } from './thinning.js';
import { cellAt, coverageRings, hasNeighbour, type CellGrid } from './tile-coverage.js';
import { latToY, lonToX, type Bbox } from './tile-math.js';

/**
 * One Mapbox Vector Tile (2.1) from a list of features: clipped to the tile and its buffer,
 * simplified to the zoom (geojson-vt, the library MapLibre itself uses for GeoJSON sources),
 * and encoded with vt-pbf into one tile layer named `features`, feature ids and properties
 * kept. The caller selects the features (a bbox query on the spatial index, thinned with
 * `minzoom` at low zooms, see thinning.ts).
 *
 * A line or polygon too small to survive simplification at the tile's zoom is drawn as a mark
 * instead (a square or dash of about one pixel at its centre), so that a zoomed-out view
 * still shows where the features are; marks are built from the bbox alone, without parsing
 * the geometry, which is most of the work on low-zoom tiles of big layers.
 *
 * On thinned tiles (below the thinning's maxZoom) a small polygon (under 2 px) is the first of
 * its thinning cell's features and stands for all of them: the cells of those that have a
 * neighbour are merged into coverage polygons (property `maproom:coverage`, no id), so a dense
 * layer shows its shape instead of a sparse grid of dots; a lone one keeps its mark.
 */
export const TILE_LAYER_NAME = 'features';
/** Named by tiles' ETags: changes when the same features encode differently (2: coverage polygons). */
export const TILE_ENCODING = 2;
export const TILE_EXTENT = 4096;
/** Buffer around the tile, in extent units (clipped geometry reaches this far past the edge). */
export const TILE_BUFFER = 64;
/** The buffer as a fraction of the tile's width: grow the query bbox by this (tileBbox's `buffer`). */
export const TILE_BUFFER_FRACTION = TILE_BUFFER / TILE_EXTENT;
/** Simplification tolerance in extent units (geojson-vt's default). */
const TOLERANCE = 3;
/** From this zoom on geometries are not simplified (geojson-vt's usual maximum zoom). */
const FULL_DETAIL_ZOOM = 14;
/** Lines and polygons whose bbox is smaller than this (extent units) become marks. */
const MARK_BELOW = 4;
/** A mark's side: 8 extent units, one pixel of a 512-pixel tile. */
const MARK_SIZE = 8;
/** Features smaller than this that simplification dropped get a mark (larger ones were clipped away). */
const RESCUE_BELOW = 16;
/** Below this zoom the tile's features were thinned to one small feature per cell (thinning.ts). */
const THINNED_BELOW = DEFAULT_THINNING.maxZoom;
/** The thinning's cells; each small polygon shown stands for the features of its cell. */
const COVERAGE_GRID: CellGrid = {
  cellsPerSide: 2 ** DEFAULT_THINNING.cellsPerTileLog2,
  extent: TILE_EXTENT,
  buffer: TILE_BUFFER,
};
/** The property that tells a coverage polygon (many features, merged) from a feature. */
export const COVERAGE_PROPERTY = 'maproom:coverage';

export interface TileFeature {
  /** A non-negative integer (MVT ids are unsigned); other ids are left out of the tile. */
  id: number;
  bbox: Bbox;
  /** The geometry, or its GeoJSON text (parsed only when the feature is not drawn as a mark). */
  geometry: AnyGeometry | string;
  properties: Record<string, unknown> | null;
}

/**
 * The encoded tile z/x/y of the given features, or null when no feature reaches into it (the
 * route answers 204). Properties that are objects or arrays are encoded as JSON text; null
 * properties are left out (MVT has no null).
 */
export function encodeTile(features: Iterable<TileFeature>, z: number, x: number, y: number): Uint8Array | null {
  const toTile = (bbox: Bbox): TileBox => ({
    minX: (lonToX(bbox[0]) * 2 ** z - x) * TILE_EXTENT,
    maxX: (lonToX(bbox[2]) * 2 ** z - x) * TILE_EXTENT,
    minY: (latToY(bbox[3]) * 2 ** z - y) * TILE_EXTENT,
    maxY: (latToY(bbox[1]) * 2 ** z - y) * TILE_EXTENT,
  });
  const marks: GeoJSONVTFeature[] = [];
  const detailed: { feature: TileFeature; type: string }[] = [];
  const collection = { type: 'FeatureCollection', features: [] as unknown[] };
  const coverage = new Coverage();
  for (const feature of features) {
    const type = typeof feature.geometry === 'string' ? typeOfText(feature.geometry) : feature.geometry.type;
    if (z < FULL_DETAIL_ZOOM && !type.endsWith('Point')) {
      const box = toTile(feature.bbox);
      const size = Math.max(box.maxX - box.minX, box.maxY - box.minY);
      const covered = z < THINNED_BELOW && type.endsWith('Polygon') && size < RESCUE_BELOW;
      if (covered) coverage.add(feature, type, box);
      if (size < MARK_BELOW) {
        if (!covered) {
          const mark = markOf(feature, type, box);
          if (mark) marks.push(mark);
        }
        continue;
      }
    }
    detailed.push({ feature, type });
    const geometry =
      typeof feature.geometry === 'string' ? (JSON.parse(feature.geometry) as AnyGeometry) : feature.geometry;
    collection.features.push({
      type: 'Feature',
      id: validId(feature.id),
      geometry,
      properties: feature.properties ?? {},
    });
  }
  const tile =
    collection.features.length > 0
      ? geoJSONToTile(collection as unknown as Parameters<typeof geoJSONToTile>[0], z, x, y, {
          extent: TILE_EXTENT,
          buffer: TILE_BUFFER,
          tolerance: TOLERANCE,
          maxZoom: Math.max(z, FULL_DETAIL_ZOOM),
          clip: true,
          wrap: false,
        })
      : null;
  const drawn = tile?.features ?? [];
  if (z < FULL_DETAIL_ZOOM) marks.push(...marksForDropped(detailed, drawn, toTile, coverage));
  const all = [...coverage.features(), ...drawn, ...marks];
  if (all.length === 0) return null;
  return fromGeojsonVt({ [TILE_LAYER_NAME]: { features: all } as never }, { version: 2, extent: TILE_EXTENT });
}

const validId = (id: number) => (Number.isSafeInteger(id) && id >= 0 ? id : undefined);

/** The `type` of a geometry's JSON text, read from its start (JSON.stringify writes it first). */
function typeOfText(text: string): string {
  const found = /^\s*\{\s*"type"\s*:\s*"(\w+)"/.exec(text);
  return found ? found[1]! : ((JSON.parse(text) as AnyGeometry).type ?? '');
}

type TileBox = { minX: number; maxX: number; minY: number; maxY: number };

/**
 * A mark in tile coordinates at the centre of the feature's tile-space box: a clockwise square
 * for polygons, a horizontal dash for lines; null when the centre lies outside tile and buffer.
 */
function markOf(feature: TileFeature, type: string, box: TileBox): GeoJSONVTFeature | null {
  const cx = Math.round((box.minX + box.maxX) / 2);
  const cy = Math.round((box.minY + box.maxY) / 2);
  if (cx < -TILE_BUFFER || cx > TILE_EXTENT + TILE_BUFFER || cy < -TILE_BUFFER || cy > TILE_EXTENT + TILE_BUFFER)
    return null;
  const h = MARK_SIZE / 2;
  const id = validId(feature.id);
  const tags = feature.properties ?? {};
  if (type.endsWith('LineString'))
    return {
      id,
      tags,
      type: 2,
      geometry: [
        [
          [cx - h, cy],
          [cx + h, cy],
        ],
      ],
    } as GeoJSONVTFeature;
  const ring = [
    [cx - h, cy - h],
    [cx + h, cy - h],
    [cx + h, cy + h],
    [cx - h, cy + h],
    [cx - h, cy - h],
  ];
  return { id, tags, type: 3, geometry: [ring] } as GeoJSONVTFeature;
}

/**
 * Marks for small lines and polygons that simplification dropped entirely (slivers, short
 * lines): every feature the thinning chose still shows. Needs unique ids to tell which were
 * dropped.
 */
function marksForDropped(
  sent: { feature: TileFeature; type: string }[],
  drawn: GeoJSONVTFeature[],
  toTile: (bbox: Bbox) => TileBox,
  coverage: Coverage,
): GeoJSONVTFeature[] {
  if (sent.length === drawn.length) return [];
  const drawnIds = new Set(drawn.map((feature) => feature.id));
  const marks: GeoJSONVTFeature[] = [];
  for (const { feature, type } of sent) {
    if (validId(feature.id) === undefined || drawnIds.has(feature.id) || type.endsWith('Point')) continue;
    if (coverage.covers(feature)) continue;
    const box = toTile(feature.bbox);
    if (Math.max(box.maxX - box.minX, box.maxY - box.minY) >= RESCUE_BELOW) continue;
    const mark = markOf(feature, type, box);
    if (mark) marks.push(mark);
  }
  return marks;
}

/**
 * The thinning cells of a tile's small polygons (tile-coverage.ts): those with an occupied
 * neighbour become merged coverage polygons, a lone one is drawn as its feature's mark.
 */
class Coverage {
  private readonly cells = new Map<number, { feature: TileFeature; type: string; box: TileBox }>();
  private readonly cellOf = new Map<TileFeature, number>();

  add(feature: TileFeature, type: string, box: TileBox): void {
    const cell = cellAt(COVERAGE_GRID, (box.minX + box.maxX) / 2, (box.minY + box.maxY) / 2);
    if (cell === null) return;
    this.cellOf.set(feature, cell);
    if (!this.cells.has(cell)) this.cells.set(cell, { feature, type, box });
  }

  /** Whether the feature's cell is drawn as coverage (it needs no mark of its own). */
  covers(feature: TileFeature): boolean {
    const cell = this.cellOf.get(feature);
    return cell !== undefined && this.isCovered(cell);
  }

  private isCovered(cell: number): boolean {
    return hasNeighbour(this.cells, cell);
  }

  /** The coverage polygons, then the marks of lone sub-pixel features. */
  features(): GeoJSONVTFeature[] {
    if (this.cells.size === 0) return [];
    const covered = new Set<number>();
    const lone: GeoJSONVTFeature[] = [];
    for (const [cell, { feature, type, box }] of this.cells) {
      if (this.isCovered(cell)) covered.add(cell);
      else if (Math.max(box.maxX - box.minX, box.maxY - box.minY) < MARK_BELOW) {
        const mark = markOf(feature, type, box);
        if (mark) lone.push(mark);
      }
    }
    const polygons = coverageRings(COVERAGE_GRID, covered).map(
      (rings) => ({ type: 3, tags: { [COVERAGE_PROPERTY]: true }, geometry: rings }) as unknown as GeoJSONVTFeature,
    );
    return [...polygons, ...lone];
  }
}
