import { Marker as HtmlMarker, type GeoJSONSource, type Map as MapLibreMap } from 'maplibre-gl';
import type { Drawing, Layer } from '../api/types';
import { labelAnchor, type ScreenPoint } from './label-anchor';
import { CLUSTER_LAYER, MARKER_LAYERS } from './room-layers';

/**
 * Texts on the map as HTML elements: the page ships no glyph fonts (no CDN), and only the few
 * visible clusters and labelled drawings need one. Every text is set as text, never as HTML.
 */
export class ClusterCounts {
  private shown = new Map<number, HtmlMarker>();
  private readonly update = () => this.refresh();
  constructor(private readonly map: MapLibreMap) {
    map.on('moveend', this.update);
    map.on('sourcedata', this.onData);
  }
  private readonly onData = (event: { sourceId?: string; isSourceLoaded?: boolean }) => {
    if (event.sourceId === 'markers' && event.isSourceLoaded) this.refresh();
  };
  private refresh() {
    const seen = new Set<number>();
    for (const feature of this.map.queryRenderedFeatures({ layers: [CLUSTER_LAYER] })) {
      const id = feature.properties.cluster_id as number;
      if (seen.has(id)) continue;
      seen.add(id);
      const [lng, lat] = (feature.geometry as GeoJSON.Point).coordinates as [number, number];
      const marker = this.shown.get(id);
      if (!marker) {
        const element = document.createElement('span');
        element.className = 'cluster-count';
        element.textContent = String(feature.properties.point_count_abbreviated ?? feature.properties.point_count);
        this.shown.set(id, new HtmlMarker({ element }).setLngLat([lng, lat]).addTo(this.map));
      } else {
        marker.setLngLat([lng, lat]);
      }
    }
    for (const [id, marker] of this.shown) {
      if (!seen.has(id)) {
        marker.remove();
        this.shown.delete(id);
      }
    }
  }
  /** The markers source's cluster ids change with its data: start again. */
  remove() {
    this.map.off('moveend', this.update);
    this.map.off('sourcedata', this.onData);
    for (const marker of this.shown.values()) marker.remove();
  }
}

/** At most this many texts at once (titles and layers' labels): the rest would not fit on a screen anyway. */
const MAX_LABELS = 200;
/** The most rendered features of one layer looked at for labels (a big layer in view has many more). */
const MAX_CANDIDATES = 2000;
/** A layer label's text is cut to this many characters. */
const MAX_CHARS = 40;
/** A text's box in px: its characters at about 7 px each, one line high; a title right of its marker. */
const CHAR_PX = 7;
const LINE_PX = 16;
const OFFSET_PX = 10;

type Box = [left: number, top: number, right: number, bottom: number];

/** A vector layer whose features are labelled on the map by a field's values. */
export interface LabelledLayer {
  id: string;
  field: string;
}

/** The labelled layers among a room's, top first: visible here, with a `labelField`. */
export function labelledLayers(ordered: Layer[], hidden: Set<string>): LabelledLayer[] {
  return ordered
    .filter((l) => l.style.visible && !hidden.has(l.id) && l.style.labelField)
    .map((l) => ({ id: l.id, field: l.style.labelField! }));
}

/**
 * The texts placed on the map with collision avoidance: marker titles next to the markers drawn
 * (not the clustered ones), then the labelled vector layers' field values (top layer first),
 * wherever a text fits: each is placed in turn, and one that would overlap a placed one is left
 * out; redrawn when the map rests, gone while it moves. One layer of elements, positioned by
 * transform: no MapLibre marker per text.
 */
export class MapLabels {
  private readonly layer: HTMLElement;
  private readonly update = () => this.refresh();
  private labelled: LabelledLayer[] = [];
  constructor(private readonly map: MapLibreMap) {
    this.layer = document.createElement('div');
    this.layer.className = 'marker-labels';
    this.layer.setAttribute('aria-hidden', 'true');
    map.getCanvasContainer().append(this.layer);
    map.on('move', this.schedule);
    map.on('idle', this.update);
  }
  /** The layers labelled now (a style changed here or by another member): redrawn at once when they change. */
  setLayers(layers: LabelledLayer[]) {
    const same =
      layers.length === this.labelled.length &&
      layers.every((l, i) => l.id === this.labelled[i]!.id && l.field === this.labelled[i]!.field);
    if (same) return;
    this.labelled = layers;
    if (!this.map.isMoving()) this.refresh();
  }
  /** While the map moves the texts would lag behind their features: gone until it rests. */
  private readonly schedule = () => {
    if (this.layer.firstChild) this.layer.replaceChildren();
  };
  private refresh() {
    const { width, height } = this.map.getCanvas().getBoundingClientRect();
    const placed: Box[] = [];
    const labels: HTMLElement[] = [];
    const fits = (b: Box) =>
      b[0] >= 0 &&
      b[2] <= width &&
      b[1] >= 0 &&
      b[3] <= height &&
      !placed.some((other) => b[0] < other[2] && other[0] < b[2] && b[1] < other[3] && other[1] < b[3]);
    const place = (box: Box, text: string, className: string) => {
      placed.push(box);
      const label = document.createElement('span');
      label.className = className;
      label.textContent = text;
      label.style.transform = `translate(${Math.round(box[0])}px, ${Math.round(box[1])}px)`;
      labels.push(label);
    };
    const markerLayers = MARKER_LAYERS.filter((id) => this.map.getLayer(id));
    const seen = new Set<string>();
    for (const feature of markerLayers.length ? this.map.queryRenderedFeatures({ layers: markerLayers }) : []) {
      if (labels.length >= MAX_LABELS) break;
      const { id, title } = feature.properties as { id?: string; title?: string };
      if (!id || !title || seen.has(id)) continue;
      seen.add(id);
      const point = this.map.project((feature.geometry as GeoJSON.Point).coordinates as [number, number]);
      // Right of its marker, else left of it; left out when neither fits on the map or beside the texts placed.
      const textWidth = title.length * CHAR_PX;
      const box = [point.x + OFFSET_PX, point.x - OFFSET_PX - textWidth]
        .map((left): Box => [left, point.y - LINE_PX / 2, left + textWidth, point.y + LINE_PX / 2])
        .find(fits);
      if (box) place(box, title, 'marker-label');
    }
    for (const { id, field } of this.labelled) {
      const parts = ['fill', 'line', 'point'].map((part) => `vector-${id}-${part}`).filter((l) => this.map.getLayer(l));
      if (parts.length === 0) continue;
      const done = new Set<string | number>();
      let looked = 0;
      for (const feature of this.map.queryRenderedFeatures({ layers: parts })) {
        if (labels.length >= MAX_LABELS || ++looked > MAX_CANDIDATES) break;
        // One label per feature (a feature crossing tiles is rendered once per tile); merged coverage has no id.
        if (feature.id === undefined || done.has(feature.id)) continue;
        done.add(feature.id);
        const value = feature.properties[field];
        if (value === undefined || value === null || value === '') continue;
        const text = String(value).slice(0, MAX_CHARS);
        const anchor = this.anchorOf(feature.geometry, width, height);
        if (!anchor) continue;
        const textWidth = text.length * CHAR_PX;
        const box: Box = [
          anchor[0] - textWidth / 2,
          anchor[1] - LINE_PX / 2,
          anchor[0] + textWidth / 2,
          anchor[1] + LINE_PX / 2,
        ];
        if (fits(box)) place(box, text, 'feature-label');
      }
    }
    this.layer.replaceChildren(...labels);
  }
  /** A rendered feature's label point on the screen (see labelAnchor). */
  private anchorOf(geometry: GeoJSON.Geometry, width: number, height: number): ScreenPoint | null {
    const project = (c: GeoJSON.Position): ScreenPoint => {
      const p = this.map.project(c as [number, number]);
      return [p.x, p.y];
    };
    switch (geometry.type) {
      case 'Point':
        return labelAnchor('Point', [[project(geometry.coordinates)]], width, height);
      case 'MultiPoint':
        return labelAnchor('Point', [geometry.coordinates.map(project)], width, height);
      case 'LineString':
        return labelAnchor('LineString', [geometry.coordinates.map(project)], width, height);
      case 'MultiLineString':
        return labelAnchor(
          'LineString',
          geometry.coordinates.map((l) => l.map(project)),
          width,
          height,
        );
      case 'Polygon':
        return labelAnchor(
          'Polygon',
          geometry.coordinates.map((r) => r.map(project)),
          width,
          height,
        );
      case 'MultiPolygon':
        return labelAnchor(
          'Polygon',
          geometry.coordinates.flat().map((r) => r.map(project)),
          width,
          height,
        );
      default:
        return null;
    }
  }
  remove() {
    this.map.off('move', this.schedule);
    this.map.off('idle', this.update);
    this.layer.remove();
  }
}

/** A drawing's label at its middle. */
export class DrawingLabels {
  private shown: HtmlMarker[] = [];
  constructor(private readonly map: MapLibreMap) {}
  set(drawings: Iterable<Drawing>) {
    this.remove();
    for (const drawing of drawings) {
      if (!drawing.label) continue;
      const element = document.createElement('span');
      element.className = 'drawing-label';
      element.textContent = drawing.label;
      this.shown.push(
        new HtmlMarker({ element })
          .setLngLat(middleOf(drawing.geometry as unknown as GeoJSON.Geometry))
          .addTo(this.map),
      );
    }
  }
  remove() {
    for (const marker of this.shown) marker.remove();
    this.shown = [];
  }
}

export function middleOf(geometry: GeoJSON.Geometry): [number, number] {
  const points: number[][] = [];
  const walk = (c: unknown): void => {
    if (Array.isArray(c) && typeof c[0] === 'number') points.push(c as number[]);
    else if (Array.isArray(c)) c.forEach(walk);
  };
  walk('coordinates' in geometry ? geometry.coordinates : []);
  const xs = points.map((p) => p[0]!);
  const ys = points.map((p) => p[1]!);
  return [(Math.min(...xs) + Math.max(...xs)) / 2, (Math.min(...ys) + Math.max(...ys)) / 2];
}

export type { GeoJSONSource };
