import { GeolocateControl, type Map as MapLibreMap } from 'maplibre-gl';
import type { RoomContextValue } from './room-context';
import { corner } from '../map/create-map';
import { formatNumber, t } from '../i18n/index.js';

/** Where the person is, as the browser told it: metres of accuracy (the circle drawn around the dot). */
export interface Located {
  lng: number;
  lat: number;
  accuracy: number;
}

/**
 * "Locate me" on the room's map: MapLibre's own control asks the browser for the position,
 * draws it with its accuracy circle and, while it stays on, follows the person as they walk
 * (until they move the map themselves: then it keeps the dot, and a second press follows
 * again). The position goes to `room.located`, for "Add a marker at my position". Returns the undo.
 */
export function bindLocateMe(map: MapLibreMap, room: RoomContextValue): () => void {
  const control = new GeolocateControl({
    positionOptions: { enableHighAccuracy: true },
    trackUserLocation: true,
    showAccuracyCircle: true,
    fitBoundsOptions: { maxZoom: 16 },
  });
  const found = (position: { coords: GeolocationCoordinates }) => {
    const { longitude, latitude, accuracy } = position.coords;
    room.located.set({ lng: longitude, lat: latitude, accuracy });
  };
  const lost = () => room.located.set(null);
  control.on('geolocate', found);
  control.on('error', lost);
  map.addControl(control, corner('top-right'));
  return () => {
    control.off('geolocate', found);
    control.off('error', lost);
    // Gone already when the map itself was removed (the room left): removing it twice throws.
    if (map.hasControl(control)) map.removeControl(control);
    room.located.set(null);
  };
}

/** The accuracy as a person reads it: "±12 m", "±1.2 km". */
export function accuracyText(metres: number): string {
  if (metres < 1000)
    return t('room:locate.metres', { value: formatNumber(Math.round(metres), { useGrouping: false }) });
  const km = formatNumber(metres / 1000, { minimumFractionDigits: 1, maximumFractionDigits: 1, useGrouping: false });
  return t('room:locate.kilometres', { value: km });
}
