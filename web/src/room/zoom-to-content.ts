import type { Map as MapLibreMap } from 'maplibre-gl';
import { contentExtent, type Extent } from '../map/content-extent';
import type { RoomContextValue } from './room-context';
import type { RoomState } from './room-model';

const PADDING = 60;
/** A single marker is not shown at street level: a few blocks around it. */
const MAX_ZOOM = 16;
/** How long an upload's layer may take to reach the page through the live channel. */
const ARRIVAL_TIMEOUT_MS = 60_000;

export function fitExtent(map: MapLibreMap, extent: Extent, animate = true) {
  map.fitBounds(extent, { padding: PADDING, maxZoom: MAX_ZOOM, duration: animate ? 600 : 0 });
}

/** The extent a room opens at: its content's, for a room with no saved default view and `autoZoomEnabled`. */
export function openingExtent(state: RoomState): Extent | null {
  const { room } = state;
  if (room.defaultViewLat != null && room.defaultViewLng != null) return null;
  if (!room.autoZoomEnabled) return null;
  return contentExtent(state);
}

/** Opens the map at the room's content, when the room asks for that (`openingExtent`). */
export function openAtContent(map: MapLibreMap, state: RoomState) {
  const extent = openingExtent(state);
  if (extent) fitExtent(map, extent, false);
}

/** The ids of the room's layers and rasters now: what an upload adds is what is not among them. */
export function layerIds(state: RoomState | null): Set<string> {
  return new Set([...(state?.layers ?? []), ...(state?.rasters ?? [])].map((layer) => layer.id));
}

/** Zooms to the first layer or raster that is not among `known` when it reaches the page (for the person who uploaded it). */
export function zoomToNewLayer(room: RoomContextValue, known: Set<string>) {
  const find = (state: RoomState | null) =>
    [...(state?.layers ?? []), ...(state?.rasters ?? [])].find((layer) => !known.has(layer.id) && layer.bbox);
  const go = (state: RoomState | null) => {
    const added = find(state);
    const map = room.map.get();
    if (!added?.bbox || !map) return false;
    const [west, south, east, north] = added.bbox as number[];
    fitExtent(map, [west!, south!, east!, north!]);
    return true;
  };
  if (go(room.model.get())) return;
  const stop = room.model.subscribe((state) => {
    if (go(state)) done();
  });
  const timer = setTimeout(() => done(), ARRIVAL_TIMEOUT_MS);
  const done = () => {
    stop();
    clearTimeout(timer);
  };
}
