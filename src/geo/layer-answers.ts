import type { AnyGeometry } from './feature-summary.js';
import { CHUNK_SIZE, featureText, type ChunkSummary } from './layer-rows.js';
import { simplifyGeometry } from './simplify.js';
import type { Bbox } from './tile-math.js';

/**
 * The answers of `GET /api/layers/:layerId/features` built from stored rows, without parsing
 * what need not be parsed: a FeatureCollection is the stored JSON texts concatenated (a
 * geometry is parsed only when `?zoom=` simplifies it, see detailZoom), and a bbox holding more
 * than MAX_FEATURES_PER_ANSWER features answers with the chunk manifest instead.
 */

/** More features than this in a bbox (or a layer) answer with `directChunks`. */
export const MAX_FEATURES_PER_ANSWER = CHUNK_SIZE;

/** A stored feature row as the features route reads it. */
export interface StoredFeatureRow {
  id: number;
  detailZoom: number;
  geometry: string;
  properties: string;
}

/**
 * A lower bound of the features inside `bbox`: the sum over chunks lying wholly inside it.
 * When it passes MAX_FEATURES_PER_ANSWER the manifest can be answered without touching the
 * feature index (most low-zoom views of big layers).
 */
export function featuresSurelyInside(
  chunks: Iterable<Pick<ChunkSummary, 'featureCount' | 'bbox'>>,
  bbox: Bbox,
): number {
  let sum = 0;
  for (const { featureCount, bbox: c } of chunks) {
    if (c[0] >= bbox[0] && c[1] >= bbox[1] && c[2] <= bbox[2] && c[3] <= bbox[3]) sum += featureCount;
  }
  return sum;
}

/** Whether two bboxes share at least a point. */
export function bboxesTouch(a: Bbox, b: Bbox): boolean {
  return a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3];
}

/**
 * The incomplete answer: an empty FeatureCollection whose `_metadata.directChunks` lists the
 * chunks touching the bbox (every chunk of the layer when there is none), each with the path
 * that serves it.
 */
export function chunkManifestText(
  chunks: Iterable<Pick<ChunkSummary, 'index' | 'featureCount' | 'bbox'>>,
  featureCount: number,
  pathOf: (index: number) => string,
): string {
  const directChunks = [...chunks].map((chunk) => ({
    path: pathOf(chunk.index),
    featureCount: chunk.featureCount,
    bbox: chunk.bbox,
  }));
  return JSON.stringify({
    type: 'FeatureCollection',
    features: [],
    _metadata: { complete: false, featureCount, directChunks },
  });
}

/**
 * A complete FeatureCollection of the rows, in the given order, as text: each row's stored
 * JSON as it is, or its geometry simplified when `zoom` is below the row's detail zoom.
 * `metadata` is merged into `_metadata` after `complete` and `featureCount`.
 */
export function featureCollectionText(
  rows: Iterable<StoredFeatureRow>,
  zoom?: number,
  metadata: Record<string, unknown> = {},
): string {
  const parts: string[] = [];
  for (const row of rows) {
    const geometry =
      zoom === undefined || row.detailZoom <= zoom
        ? row.geometry
        : JSON.stringify(simplifyGeometry(JSON.parse(row.geometry) as AnyGeometry, zoom));
    parts.push(featureText(row.id, geometry, row.properties));
  }
  const meta = JSON.stringify({ complete: true, featureCount: parts.length, ...metadata });
  return `{"type":"FeatureCollection","features":[${parts.join(',')}],"_metadata":${meta}}`;
}
