import { VectorTile, type VectorTileFeature } from '@mapbox/vector-tile';
import { PbfReader } from 'pbf';
import type Supercluster from 'supercluster';
import type { Deck, Drawing, Layer } from '../api/types';
import { backgroundColor } from './base-layers';
import { firstSlideLayers, type SlideTile, slideObjects } from './first-slide-tiles';
import { evaluate, orderedLayers, vectorLayerPaint } from './layer-style';
import { middleOf } from './map-labels';
import {
  CIRCLE_STROKE_PX,
  CLUSTER_COLOR,
  CLUSTER_OPACITY,
  clusterIndex,
  clusterRadius,
  DRAWING_PAINT,
} from './content-style';
import type { PreviewPoint } from './marker-preview';
import { type Matrix, type Projection, projection } from './slide-projection';
import { COVERAGE, drawingProperties, previewPoints } from './room-layers';

/**
 * The deck's first slide drawn on a canvas, as the map will draw it, before MapLibre can: it must
 * make its WebGL context, read its style, have its worker cut the tiles and compile its shaders,
 * which takes most of a second after the deck and its tiles are in on a software-rendered page.
 * The preview (put in `element` unless `wanted` says otherwise by then) draws the same content
 * from the same data: the slide's layers from the tiles read with the deck (first-slide-tiles.ts), in the room's layer order and
 * each styled with the paint MapLibre is given (layer-style.ts vectorLayerPaint, content-style.ts
 * DRAWING_PAINT: fill, outline, points; worked out per feature by `evaluate`), then its drawings (and their labels) and markers (clustered as the markers
 * source is), over its rasters' PNG tiles. Only a flat view is drawn: a tilted view or a tile
 * that could not be read draws nothing, and the page waits for the map. It only shows:
 * clicks go to the page under it; it goes away as the map draws the slide.
 */
export async function drawSlidePreview(
  element: HTMLElement,
  deck: Deck,
  tiles: SlideTile[],
  wanted: () => boolean,
): Promise<boolean> {
  const slide = deck.slides[0];
  if (!slide || !previewable(deck)) return false;
  const { width, height } = element.getBoundingClientRect();
  if (width <= 0 || height <= 0) return false;
  // The rasters' PNGs decoded first (off the page's thread): the drawing below is one go.
  const images = await Promise.all(
    tiles
      .filter((t) => t.kind === 'raster')
      .map(async (t) => ({ ...t, image: await createImageBitmap(new Blob([t.bytes])) })),
  );
  const canvas = document.createElement('canvas');
  const ratio = devicePixelRatio || 1;
  canvas.width = Math.round(width * ratio);
  canvas.height = Math.round(height * ratio);
  const context = canvas.getContext('2d');
  if (!context) return false;
  const view = projection(slide.view, width, height);
  const pixels = new Painter(context, ratio);
  pixels.background(backgroundColor(null), width, height);
  const { rasters, drawings, markers } = slideObjects(deck, slide);
  // Rasters under the layers, each drawn over the ones before it (room-layers.ts).
  for (const raster of rasters)
    for (const { tile, image } of images.filter((t) => t.layerId === raster.id))
      for (const x of worldCopies(tile.x, tile.z, view)) {
        pixels.tile(view.tile(tile.z, x, tile.y, image.width));
        context.drawImage(image, 0, 0);
      }
  pixels.screen();
  for (const layer of orderedLayers(firstSlideLayers(deck)).reverse()) drawLayer(pixels, view, layer, tiles);
  drawDrawings(pixels, view, drawings);
  drawMarkers(pixels, view, markers, slide.view.zoom);
  for (const { image } of images) image.close();
  if (!wanted()) return false;
  element.replaceChildren(canvas, ...drawingLabels(view, drawings));
  return true;
}

/** Whether the deck's first slide can be previewed: a flat view. */
export function previewable(deck: Deck): boolean {
  const slide = deck.slides[0];
  return Boolean(slide) && (slide!.view.pitch ?? 0) === 0;
}

/** Canvas drawing in CSS px (device px underneath), with MapLibre's defaults (butt caps, miter joins). */
class Painter {
  constructor(
    readonly context: CanvasRenderingContext2D,
    private readonly ratio: number,
  ) {
    context.miterLimit = 2;
  }
  background(color: string, width: number, height: number) {
    this.screen();
    this.context.fillStyle = color;
    this.context.fillRect(0, 0, width, height);
  }
  /** Draws in screen px. */
  screen() {
    this.context.setTransform(this.ratio, 0, 0, this.ratio, 0, 0);
  }
  /** Draws in a tile's units (`matrix`: tile to screen px). */
  tile([a, b, c, d, e, f]: Matrix) {
    const r = this.ratio;
    this.context.setTransform(a * r, b * r, c * r, d * r, e * r, f * r);
  }
  circle(x: number, y: number, radius: number, fill: string, opacity: number, stroke?: string) {
    const context = this.context;
    context.beginPath();
    context.arc(x, y, radius, 0, 2 * Math.PI);
    context.globalAlpha = opacity;
    context.fillStyle = fill;
    context.fill();
    context.globalAlpha = 1;
    if (stroke) {
      // MapLibre's stroke lies outside the radius.
      context.beginPath();
      context.arc(x, y, radius + CIRCLE_STROKE_PX / 2, 0, 2 * Math.PI);
      context.lineWidth = CIRCLE_STROKE_PX;
      context.strokeStyle = stroke;
      context.stroke();
    }
  }
}

/** A vector layer's tiles: its fills, then its lines (polygons' outlines too), then its points. */
function drawLayer(pixels: Painter, view: Projection, layer: Layer, tiles: SlideTile[]) {
  const paint = vectorLayerPaint(layer.style);
  const decoded = tiles
    .filter((t) => t.kind === 'vector' && t.layerId === layer.id)
    .flatMap((t) => {
      const features = new VectorTile(new PbfReader(t.bytes)).layers.features;
      if (!features) return [];
      const list = Array.from({ length: features.length }, (_, i) => features.feature(i));
      return [{ tile: t.tile, extent: features.extent, list }];
    });
  const context = pixels.context;
  for (const part of ['fill', 'line', 'point'] as const)
    for (const { tile, extent, list } of decoded) {
      // Each world copy the view shows of the tile; fills and lines clipped to its square, as
      // MapLibre does; points not (MapLibre keeps those inside the tile and draws them whole).
      for (const x of worldCopies(tile.x, tile.z, view)) {
        const matrix = view.tile(tile.z, x, tile.y, extent);
        const scale = Math.hypot(matrix[0], matrix[1]);
        pixels.tile(matrix);
        context.save();
        if (part !== 'point') {
          context.beginPath();
          context.rect(0, 0, extent, extent);
          context.clip();
        }
        for (const feature of list) drawFeature(pixels, part, feature, paint, scale, extent);
        context.restore();
      }
    }
  pixels.screen();
}

function drawFeature(
  pixels: Painter,
  part: 'fill' | 'line' | 'point',
  feature: VectorTileFeature,
  paint: ReturnType<typeof vectorLayerPaint>,
  scale: number,
  extent: number,
) {
  const context = pixels.context;
  const polygon = feature.type === 3;
  const colour = (expression: unknown) => evaluate(expression, feature.properties) as string;
  if (part === 'fill' && polygon) {
    context.beginPath();
    for (const ring of feature.loadGeometry())
      ring.forEach((p, i) => (i ? context.lineTo(p.x, p.y) : context.moveTo(p.x, p.y)));
    context.globalAlpha = paint.fill['fill-opacity'];
    context.fillStyle = colour(paint.fill['fill-color']);
    context.fill('nonzero');
  } else if (
    part === 'line' &&
    (feature.type === 2 || polygon) &&
    !(COVERAGE in feature.properties) &&
    paint.line['line-width'] > 0
  ) {
    context.beginPath();
    for (const ring of feature.loadGeometry()) {
      ring.forEach((p, i) => (i ? context.lineTo(p.x, p.y) : context.moveTo(p.x, p.y)));
      if (polygon) context.closePath();
    }
    context.globalAlpha = paint.line['line-opacity'];
    context.strokeStyle = colour(paint.line['line-color']);
    context.lineWidth = paint.line['line-width'] / scale;
    context.stroke();
  } else if (part === 'point' && feature.type === 1) {
    const radius = paint.point['circle-radius'] / scale;
    const color = colour(paint.point['circle-color']);
    for (const ring of feature.loadGeometry())
      for (const p of ring)
        if (p.x >= 0 && p.y >= 0 && p.x < extent && p.y < extent)
          pixels.circle(p.x, p.y, radius, color, paint.point['circle-opacity']);
  }
  context.globalAlpha = 1;
}

/** The x of each copy of a tile column the view reaches (more than one only for a view wider than the world). */
function worldCopies(x: number, z: number, view: Projection): number[] {
  const n = 2 ** z;
  const size = view.worldSize / n;
  const [centre] = view.centre;
  const { reach } = view;
  const xs: number[] = [];
  const first = Math.floor((centre - reach) / view.worldSize) - 1;
  const last = Math.ceil((centre + reach) / view.worldSize) + 1;
  for (let k = first; k <= last; k++) {
    const left = (x + k * n) * size;
    if (left < centre + reach && left + size > centre - reach) xs.push(x + k * n);
  }
  return xs;
}

/** Drawings as the map's drawing layers (their paint worked out per drawing): all fills, then all lines, then all points. */
function drawDrawings(pixels: Painter, view: Projection, drawings: Drawing[]) {
  const context = pixels.context;
  pixels.screen();
  const shapes = drawings.map((d) => {
    const properties = drawingProperties(d);
    return {
      paint: (expression: unknown) => evaluate(expression, properties),
      geometry: d.geometry as unknown as GeoJSON.Geometry,
    };
  });
  const { fill, line, point } = DRAWING_PAINT;
  const path = (rings: GeoJSON.Position[][], close: boolean) => {
    context.beginPath();
    for (const ring of rings) {
      ring.forEach(([lng, lat], i) => {
        const [x, y] = view.project(lng!, lat!);
        if (i) context.lineTo(x, y);
        else context.moveTo(x, y);
      });
      if (close) context.closePath();
    }
  };
  for (const { paint, geometry } of shapes) {
    for (const polygon of polygonsOf(geometry)) {
      path(polygon, true);
      context.globalAlpha = paint(fill['fill-opacity']) as number;
      context.fillStyle = paint(fill['fill-color']) as string;
      context.fill('evenodd');
    }
  }
  for (const { paint, geometry } of shapes) {
    const lines = [...linesOf(geometry).map((l) => ({ rings: [l], close: false }))];
    for (const polygon of polygonsOf(geometry)) lines.push({ rings: polygon, close: true });
    const width = paint(line['line-width']) as number;
    if (width <= 0) continue;
    for (const { rings, close } of lines) {
      path(rings, close);
      context.globalAlpha = paint(line['line-opacity']) as number;
      context.strokeStyle = paint(line['line-color']) as string;
      context.lineWidth = width;
      context.stroke();
    }
  }
  context.globalAlpha = 1;
  for (const { paint, geometry } of shapes)
    for (const [lng, lat] of pointsOf(geometry)) {
      const [x, y] = view.project(lng!, lat!);
      pixels.circle(x, y, paint(point['circle-radius']) as number, paint(point['circle-color']) as string, 1, '#fff');
    }
}

const polygonsOf = (g: GeoJSON.Geometry): GeoJSON.Position[][][] =>
  g.type === 'Polygon' ? [g.coordinates] : g.type === 'MultiPolygon' ? g.coordinates : [];
const linesOf = (g: GeoJSON.Geometry): GeoJSON.Position[][] =>
  g.type === 'LineString' ? [g.coordinates] : g.type === 'MultiLineString' ? g.coordinates : [];
const pointsOf = (g: GeoJSON.Geometry): GeoJSON.Position[] =>
  g.type === 'Point' ? [g.coordinates] : g.type === 'MultiPoint' ? g.coordinates : [];

/** The slide's markers as the markers source draws them: clustered up to its zoom, circles with a white outline. */
function drawMarkers(pixels: Painter, view: Projection, markers: Deck['markers'], zoom: number) {
  const points = previewPoints(markers);
  if (points.length === 0) return;
  pixels.screen();
  const index = clusterIndex<PreviewPoint>(zoom).load(
    points.map((p) => ({ type: 'Feature', geometry: { type: 'Point', coordinates: p.coordinates }, properties: p })),
  );
  // The clusters' layer is under the single markers' (room-layers.ts).
  const shown = index.getClusters([-180, -90, 180, 90], Math.floor(zoom));
  const count = (feature: (typeof shown)[number]) => (feature.properties as Supercluster.ClusterProperties).point_count;
  for (const feature of [...shown.filter(count), ...shown.filter((f) => !count(f))]) {
    const [lng, lat] = feature.geometry.coordinates as [number, number];
    const [x, y] = view.project(lng, lat);
    const points = count(feature);
    if (points) {
      pixels.circle(x, y, clusterRadius(points), CLUSTER_COLOR, CLUSTER_OPACITY, '#fff');
    } else {
      const point = feature.properties as PreviewPoint;
      pixels.circle(x, y, point.radius, point.color, 1, '#fff');
    }
  }
}

/** Drawings' labels at their middles, as the map's (map-labels.ts DrawingLabels). */
function drawingLabels(view: Projection, drawings: Drawing[]): HTMLElement[] {
  return drawings
    .filter((d) => d.label)
    .map((drawing) => {
      const [lng, lat] = middleOf(drawing.geometry as unknown as GeoJSON.Geometry);
      const [x, y] = view.project(lng, lat);
      const element = document.createElement('span');
      element.className = 'drawing-label';
      element.textContent = drawing.label!;
      element.style.position = 'absolute';
      element.style.left = `${x}px`;
      element.style.top = `${y}px`;
      element.style.transform = 'translate(-50%, -50%)';
      return element;
    });
}
