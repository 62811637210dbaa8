import {
  Map as MapLibreMap,
  NavigationControl,
  type RasterSourceSpecification,
  type RasterTileSource,
  ScaleControl,
  type StyleSpecification,
} from 'maplibre-gl';
import { authHeaders } from '../api/client';
import { baseLayerFor, baseStyle } from './base-layers';

export interface View {
  lat: number;
  lng: number;
  zoom: number;
  bearing?: number;
  pitch?: number;
}

/** A MapLibre map whose requests to this service carry the session's credential (tiles of private rooms). */
export function createMap(
  container: HTMLElement,
  view: View,
  baseLayerId: string | null,
  theme: string | null,
): MapLibreMap {
  const map = new MapLibreMap({
    container,
    style: baseStyle(baseLayerFor(baseLayerId), theme),
    center: [view.lng, view.lat],
    zoom: view.zoom,
    bearing: view.bearing ?? 0,
    pitch: view.pitch ?? 0,
    attributionControl: { compact: true },
    // The credential goes only to this service, never to a tile server.
    transformRequest: (url: string) =>
      new URL(url, location.href).origin === location.origin ? { url, headers: authHeaders() } : { url },
  });
  map.addControl(new NavigationControl(), 'top-right');
  map.addControl(new ScaleControl(), 'bottom-left');
  return map;
}

/**
 * Calls `ready` once the map's style is loaded: the moment content can be added. Not MapLibre's
 * `load`, which also waits for every base map tile, and a tile server that cannot be reached
 * (no internet) holds it back for many seconds.
 */
export function whenStyleReady(map: MapLibreMap, ready: () => void) {
  map.once('style.load', ready);
}

/** Switches the base layer under the room's content (nothing is loaded again when it is the one shown). */
export function setBaseLayer(map: MapLibreMap, baseLayerId: string | null, theme: string | null) {
  const style = baseStyle(baseLayerFor(baseLayerId), theme);
  setBackground(map, style);
  const source = style.sources.base as RasterSourceSpecification | undefined;
  if (source?.tiles?.[0] === (map.getSource('base') as RasterTileSource | undefined)?.tiles?.[0]) return;
  if (map.getLayer('base')) map.removeLayer('base');
  if (map.getSource('base')) map.removeSource('base');
  if (source) {
    map.addSource('base', source);
    const first = map.getStyle().layers[1]?.id;
    map.addLayer({ id: 'base', type: 'raster', source: 'base' }, first);
  }
}

function setBackground(map: MapLibreMap, style: StyleSpecification) {
  map.setPaintProperty(
    'background',
    'background-color',
    (style.layers[0] as unknown as { paint: Record<string, string> }).paint['background-color'],
  );
}

export function viewOf(map: MapLibreMap): View {
  const center = map.getCenter();
  const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;
  return {
    lat: round(center.lat, 6),
    lng: round(center.lng, 6),
    zoom: round(map.getZoom(), 2),
    bearing: round(map.getBearing(), 1),
    pitch: round(map.getPitch(), 1),
  };
}
