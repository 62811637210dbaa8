import Supercluster from 'supercluster';

/**
 * How the map draws the room's markers and drawings (room-layers.ts), shared with what draws
 * them before the map can (marker-preview.ts, slide-preview.ts), so that the two cannot drift.
 */

/** The markers source's clustering. */
export const CLUSTER_RADIUS = 45;
export const CLUSTER_MAX_ZOOM = 14;
export const CLUSTER_COLOR = '#2b6cb0';
export const CLUSTER_OPACITY = 0.85;
/** A cluster's circle radius (px): 14, from 10 markers 18, from 100 22, from 1,000 28. */
const CLUSTER_STEPS: [count: number, radius: number][] = [
  [10, 18],
  [100, 22],
  [1000, 28],
];
const SMALLEST_CLUSTER = 14;
export const clusterRadius = (count: number) =>
  CLUSTER_STEPS.reduce((radius, [from, step]) => (count >= from ? step : radius), SMALLEST_CLUSTER);
/** The same as MapLibre's expression. */
export const clusterRadiusExpression = ['step', ['get', 'point_count'], SMALLEST_CLUSTER, ...CLUSTER_STEPS.flat()];

/** A clustering of points for the view's zoom `zoom`, as the markers source clusters them. */
export function clusterIndex<P extends Supercluster.AnyProps>(zoom: number) {
  const z = Math.floor(zoom);
  // The clusters of a zoom come from those of the zooms above it only: the ones below are not made.
  return new Supercluster<P, Supercluster.AnyProps>({
    radius: CLUSTER_RADIUS,
    maxZoom: CLUSTER_MAX_ZOOM,
    minZoom: Math.min(z, CLUSTER_MAX_ZOOM + 1),
  });
}

/** The circles' white outline (px), outside their radius as MapLibre draws it. */
export const CIRCLE_STROKE_PX = 2;
export const DRAWING_COLOR = '#7b3fe4';
/** A drawn shape's fill: this much of its opacity. */
export const DRAWING_FILL_OPACITY = 0.35;
export const DRAWING_STROKE_PX = 3;
export const DRAWING_POINT_RADIUS = 6;

/**
 * The drawings' paint, by their properties (room-layers.ts `drawingProperties`): MapLibre's
 * drawing layers take it, and the deck's first-slide preview works it out per drawing
 * (layer-style.ts `evaluate`), so that a change is made here once for both.
 */
const drawingColor = ['coalesce', ['get', 'color'], DRAWING_COLOR];
const drawingOpacity = ['coalesce', ['get', 'opacity'], 1];
export const DRAWING_PAINT = {
  fill: {
    'fill-color': ['coalesce', ['get', 'fillColor'], drawingColor],
    'fill-opacity': ['*', DRAWING_FILL_OPACITY, drawingOpacity],
  },
  line: {
    'line-color': drawingColor,
    'line-width': ['coalesce', ['get', 'strokeWeight'], DRAWING_STROKE_PX],
    'line-opacity': drawingOpacity,
  },
  point: { 'circle-color': drawingColor, 'circle-radius': ['coalesce', ['get', 'radius'], DRAWING_POINT_RADIUS] },
};
