import {
  AttributionControl,
  type ControlPosition,
  Map as MapLibreMap,
  FullscreenControl,
  NavigationControl,
  ScaleControl,
  type StyleSpecification,
} from 'maplibre-gl';
import { authHeaders } from '../api/client';
import { baseStyle } from './base-layers';
import { BaseMap } from './base-map';
import type { RoomBasemap } from './room-basemaps';
import { t } from '../i18n/index.js';

/** MapLibre's own words (its controls' titles, the scale's units), in the page's language. */
const mapLibreLocale = (): Record<string, string> => ({
  'AttributionControl.ToggleAttribution': t('room:mapLibre.toggleAttribution'),
  'AttributionControl.MapFeedback': t('room:mapLibre.mapFeedback'),
  'FullscreenControl.Enter': t('room:mapLibre.enterFullscreen'),
  'FullscreenControl.Exit': t('room:mapLibre.exitFullscreen'),
  'GeolocateControl.FindMyLocation': t('room:mapLibre.findMyLocation'),
  'GeolocateControl.LocationNotAvailable': t('room:mapLibre.locationNotAvailable'),
  'Map.Title': t('room:mapLibre.map'),
  'Marker.Title': t('room:mapLibre.marker'),
  'NavigationControl.ResetBearing': t('room:mapLibre.resetBearing'),
  'NavigationControl.ZoomIn': t('room:mapLibre.zoomIn'),
  'NavigationControl.ZoomOut': t('room:mapLibre.zoomOut'),
  'Popup.Close': t('room:mapLibre.closePopup'),
  'ScaleControl.Feet': t('room:mapLibre.feet'),
  'ScaleControl.Meters': t('room:mapLibre.metres'),
  'ScaleControl.Kilometers': t('room:mapLibre.kilometres'),
  'ScaleControl.Miles': t('room:mapLibre.miles'),
  'ScaleControl.NauticalMiles': t('room:mapLibre.nauticalMiles'),
});

const baseMaps = new WeakMap<MapLibreMap, BaseMap>();

export interface View {
  lat: number;
  lng: number;
  zoom: number;
  bearing?: number;
  pitch?: number;
}

/**
 * A MapLibre map whose requests to this service carry the session's credential (tiles of private
 * rooms). `sources`: content sources known as it is made, in the style it loads first: MapLibre
 * reads those before its first frame (a vector source added later, a frame later; a GeoJSON
 * source, once its worker has taken the data).
 */
/** An embed's map: which controls it shows, and whether it can be moved (embed/embed-options.ts). */
export interface EmbeddedMap {
  controls: ReadonlySet<string>;
  interactive: boolean;
}

export function createMap(
  container: HTMLElement,
  view: View,
  baseLayerId: string | null,
  theme: string | null,
  sources: StyleSpecification['sources'] = {},
  embedded?: EmbeddedMap,
): MapLibreMap {
  const shows = (control: string) => !embedded || embedded.controls.has(control);
  const map = new MapLibreMap({
    interactive: embedded?.interactive ?? true,
    container,
    style: withSources(baseStyle(theme), sources),
    center: [view.lng, view.lat],
    zoom: view.zoom,
    bearing: view.bearing ?? 0,
    pitch: view.pitch ?? 0,
    attributionControl: false,
    locale: mapLibreLocale(),
    // The credential goes only to this service, never to a tile server.
    transformRequest: (url: string) =>
      new URL(url, location.href).origin === location.origin ? { url, headers: authHeaders() } : { url },
  });
  if (shows('zoom')) map.addControl(new NavigationControl(), corner('top-right'));
  if (embedded?.controls.has('fullscreen')) map.addControl(new FullscreenControl(), corner('top-right'));
  map.addControl(new ScaleControl(), corner('bottom-left'));
  map.addControl(new AttributionControl({ compact: true }), corner('bottom-right'));
  const baseMap = new BaseMap(map);
  baseMaps.set(map, baseMap);
  if (shows('layers')) map.addControl(baseMap.control(), corner('top-right'));
  baseMap.show(baseLayerId, theme);
  map.once('remove', () => baseMap.remove());
  return map;
}

const withSources = (style: StyleSpecification, sources: StyleSpecification['sources']): StyleSpecification => ({
  ...style,
  sources: { ...style.sources, ...sources },
});

/**
 * Calls `ready` once the map's style is loaded: the moment content can be added. Not MapLibre's
 * `load`, which also waits for every base map tile, and a tile server that cannot be reached
 * (no internet) holds it back for many seconds.
 */
export function whenStyleReady(map: MapLibreMap, ready: () => void) {
  map.once('style.load', ready);
}

/** The offline base map's data waits for `drawn`, the page's content drawn first (BaseMap.after; opening.ts `settled`). */
export function baseMapAfter(map: MapLibreMap, drawn: Promise<void>) {
  baseMaps.get(map)?.after(drawn);
}

/** The room's own base maps, offered in the map's base-map menu (BaseMap.setRoomBasemaps). */
export function setRoomBasemaps(map: MapLibreMap, basemaps: readonly RoomBasemap[]) {
  baseMaps.get(map)?.setRoomBasemaps(basemaps);
}

/** Switches the base layer under the room's content (the offline map when its tile server does not answer). */
export function setBaseLayer(map: MapLibreMap, baseLayerId: string | null, theme: string | null) {
  baseMaps.get(map)?.show(baseLayerId, theme);
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

/**
 * A corner of the map for its controls, mirrored in a language written right to left: the map
 * itself is not mirrored, but what sits on it follows the panels to the other side.
 */
export function corner(position: ControlPosition): ControlPosition {
  if (document.documentElement.dir !== 'rtl') return position;
  return position.replace(/left|right/, (side) => (side === 'left' ? 'right' : 'left')) as ControlPosition;
}
