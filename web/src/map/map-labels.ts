import { Marker as HtmlMarker, type GeoJSONSource, type Map as MapLibreMap } from 'maplibre-gl';
import type { Drawing } from '../api/types';
import { CLUSTER_LAYER } from './room-layers';

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
