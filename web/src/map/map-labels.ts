import { Marker as HtmlMarker, type GeoJSONSource, type Map as MapLibreMap } from 'maplibre-gl';
import type { Drawing } from '../api/types';
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

/** At most this many titles at once: the rest would not fit on a screen anyway. */
const MAX_TITLES = 200;
/** A title's box in px: its characters at about 7 px each, one line high, right of its marker. */
const CHAR_PX = 7;
const LINE_PX = 16;
const OFFSET_PX = 10;

/**
 * Marker titles next to the markers drawn (not the clustered ones), wherever a title fits: each
 * is placed in turn, and one that would overlap a placed one is left out; redrawn after each
 * move. One layer of elements, positioned by transform: no MapLibre marker per title.
 */
export class MarkerLabels {
  private readonly layer: HTMLElement;
  private readonly update = () => this.refresh();
  constructor(private readonly map: MapLibreMap) {
    this.layer = document.createElement('div');
    this.layer.className = 'marker-labels';
    this.layer.setAttribute('aria-hidden', 'true');
    map.getCanvasContainer().append(this.layer);
    map.on('move', this.schedule);
    map.on('idle', this.update);
  }
  /** While the map moves the titles would lag behind their markers: gone until it rests. */
  private readonly schedule = () => {
    if (this.layer.firstChild) this.layer.replaceChildren();
  };
  private refresh() {
    const layers = MARKER_LAYERS.filter((id) => this.map.getLayer(id));
    const placed: [number, number, number, number][] = [];
    const seen = new Set<string>();
    const labels: HTMLElement[] = [];
    const { width, height } = this.map.getCanvas().getBoundingClientRect();
    for (const feature of layers.length ? this.map.queryRenderedFeatures({ layers }) : []) {
      const { id, title } = feature.properties as { id?: string; title?: string };
      if (!id || !title || seen.has(id)) continue;
      seen.add(id);
      const point = this.map.project((feature.geometry as GeoJSON.Point).coordinates as [number, number]);
      // Right of its marker, else left of it; left out when neither fits on the map or beside the titles placed.
      const textWidth = title.length * CHAR_PX;
      const box = [point.x + OFFSET_PX, point.x - OFFSET_PX - textWidth]
        .map((left): [number, number, number, number] => [
          left,
          point.y - LINE_PX / 2,
          left + textWidth,
          point.y + LINE_PX / 2,
        ])
        .find(
          (b) =>
            b[0] >= 0 &&
            b[2] <= width &&
            b[1] >= 0 &&
            b[3] <= height &&
            !placed.some((other) => b[0] < other[2] && other[0] < b[2] && b[1] < other[3] && other[1] < b[3]),
        );
      if (!box) continue;
      placed.push(box);
      const label = document.createElement('span');
      label.className = 'marker-label';
      label.textContent = title;
      label.style.transform = `translate(${Math.round(box[0])}px, ${Math.round(box[1])}px)`;
      labels.push(label);
      if (labels.length >= MAX_TITLES) break;
    }
    this.layer.replaceChildren(...labels);
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

function middleOf(geometry: GeoJSON.Geometry): [number, number] {
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
