import type { Map as MapLibreMap } from 'maplibre-gl';
import { createMarker, moveMarker } from './actions/markers';
import type { RoomContextValue } from './room-context';
import { t } from '../i18n/index.js';

/** Whether a click, a tap or Enter on the map places a marker (a new one, or the selected one moved). */
export const placesMarker = (mode: string) => mode === 'add-marker' || mode === 'move-marker';

/**
 * Places the marker of the mode at `at` and goes back to browsing: a new marker ("Add marker"),
 * or the selected one moved ("Move").
 */
export async function placeMarker(room: RoomContextValue, at: LngLat) {
  const selected = room.selection.get();
  const moving = room.mode.get() === 'move-marker' && selected?.kind === 'marker' ? selected.id : null;
  room.mode.set('browse');
  await (moving ? moveMarkerTo(room, moving, at) : placeMarkerAt(room, at));
}

/** A new marker at `at` (a click, Enter at the cross, "Add a marker at my position"), selected. */
export async function placeMarkerAt(room: RoomContextValue, at: LngLat) {
  const marker = await room.attempt(() =>
    createMarker(room.model, { ...positionOf(at), title: t('room:placing.newMarker') }),
  );
  if (marker) room.selection.set({ kind: 'marker', id: marker.id });
}

/** The marker moved to `at` (Enter at the cross, a click, "Place at the photo's position"), selected. */
export async function moveMarkerTo(room: RoomContextValue, markerId: string, at: LngLat) {
  const marker = await room.attempt(() => moveMarker(room.model, markerId, positionOf(at)));
  if (marker) room.selection.set({ kind: 'marker', id: marker.id });
}

type LngLat = { lng: number; lat: number };
const positionOf = (at: LngLat) => ({ latitude: round(at.lat), longitude: round(at.lng) });

/**
 * Placing without a pointer: while a marker is being placed, a cross marks the map's centre,
 * the arrow keys move the map under it (MapLibre's keyboard), Enter places the marker there and
 * Escape cancels (room-layout.tsx). The map takes the focus when placing begins. Returns the undo.
 */
export function bindKeyboardPlacing(map: MapLibreMap, room: RoomContextValue): () => void {
  const container = map.getContainer();
  const canvas = map.getCanvas();
  const stopMode = room.mode.subscribe((mode) => {
    container.classList.toggle('placing', placesMarker(mode));
    if (placesMarker(mode)) canvas.focus({ preventScroll: true });
  });
  // Another marker selected (its list, the search box) ends moving the one before.
  const stopSelection = room.selection.subscribe(() => {
    if (room.mode.get() === 'move-marker') room.mode.set('browse');
  });
  const onKey = (event: KeyboardEvent) => {
    if (event.key !== 'Enter' || !placesMarker(room.mode.get())) return;
    event.preventDefault();
    // Where the cross comes to rest: an arrow key just pressed is still easing the map there.
    const atCross = () => placesMarker(room.mode.get()) && void placeMarker(room, map.getCenter());
    if (map.isMoving()) map.once('moveend', atCross);
    else atCross();
  };
  canvas.addEventListener('keydown', onKey);
  return () => {
    stopMode();
    stopSelection();
    container.classList.remove('placing');
    canvas.removeEventListener('keydown', onKey);
  };
}

/** Seven decimals: about a centimetre. */
const round = (n: number) => Math.round(n * 1e7) / 1e7;
