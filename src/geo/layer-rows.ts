import { growBbox } from './feature-summary.js';
import type { AnyGeometry } from './feature-summary.js';
import { hilbertKey } from './hilbert.js';
import { detailZoom } from './simplify.js';
import { createMinzoomAssigner, DEFAULT_THINNING, mercatorSize, type ThinningRule } from './thinning.js';
import type { Bbox } from './tile-math.js';

/**
 * How a layer's features become stored rows. An ingest first stages every feature as a
 * `StagedFeature` (in any order: the Hilbert key of its bbox centre, its bbox, its geometry
 * and properties as JSON text), then reads the staged features back sorted by key and numbers them 1, 2, 3...
 * through `LayerOrdering`: that number is the row, so rows in Hilbert order sit together on
 * disk, each run of CHUNK_SIZE rows is a spatially compact chunk (`directChunks`), and each
 * row gets its `minzoom` (thinning.ts) in the same pass, with constant memory.
 */

/** Features per chunk of `directChunks`, and the most a feature query answers in full. */
export const CHUNK_SIZE = 10_000;

export interface StagedFeature {
  /** Hilbert key of the bbox centre: the sort key. */
  key: number;
  /** The feature's stable id (GDAL's FID). */
  id: number;
  bbox: Bbox;
  /** From this zoom on, `?zoom=` simplification keeps the geometry as it is (simplify.ts). */
  detailZoom: number;
  /** GeoJSON geometry and properties as JSON text, ready to concatenate (see featureText). */
  geometry: string;
  properties: string;
}

export interface ChunkSummary {
  index: number;
  firstRow: number;
  lastRow: number;
  featureCount: number;
  bbox: Bbox;
}

/** A feature as the stream or an inline upload gives it. */
export interface LayerFeature {
  id: number;
  geometry: AnyGeometry;
  properties: Record<string, unknown> | null;
  bbox: Bbox;
}

/** The staged form of a feature: its sort key, id, bbox, detail zoom and JSON texts. */
export function stageFeature(feature: LayerFeature): StagedFeature {
  const [west, south, east, north] = feature.bbox;
  return {
    key: hilbertKey((west + east) / 2, (south + north) / 2),
    id: feature.id,
    bbox: feature.bbox,
    detailZoom: detailZoom(feature.geometry),
    geometry: JSON.stringify(feature.geometry),
    properties: JSON.stringify(feature.properties ?? {}),
  };
}

/** A stored feature as GeoJSON Feature text, from its parts (no parsing). */
export function featureText(id: number, geometry: string, properties: string): string {
  return `{"type":"Feature","id":${id},"geometry":${geometry},"properties":${properties}}`;
}

/**
 * Numbers features read back in ascending key order, assigns their minzoom and collects the
 * chunk summaries (one per CHUNK_SIZE rows: count and bbox).
 */
export class LayerOrdering {
  private rows = 0;
  private readonly assign: (key: number, size: number) => number;
  private readonly done: ChunkSummary[] = [];
  private current: ChunkSummary | null = null;

  constructor(
    private readonly chunkSize = CHUNK_SIZE,
    rule: ThinningRule = DEFAULT_THINNING,
  ) {
    this.assign = createMinzoomAssigner(rule);
  }

  /** The next feature in key order: its row number and minzoom. */
  add(key: number, bbox: Bbox): { row: number; minzoom: number } {
    const row = ++this.rows;
    if (!this.current) {
      this.current = { index: this.done.length, firstRow: row, lastRow: row, featureCount: 0, bbox: [...bbox] };
    }
    const chunk = this.current;
    chunk.lastRow = row;
    chunk.featureCount += 1;
    growBbox(chunk.bbox, bbox);
    if (chunk.featureCount === this.chunkSize) {
      this.done.push(chunk);
      this.current = null;
    }
    return { row, minzoom: this.assign(key, mercatorSize(bbox)) };
  }

  /** Rows numbered so far. */
  get rowCount(): number {
    return this.rows;
  }

  /** The chunks, the last one possibly smaller; call once all rows are added. */
  chunks(): ChunkSummary[] {
    return this.current ? [...this.done, this.current] : [...this.done];
  }
}
