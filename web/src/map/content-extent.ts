// `.js`: test/web/measure.test.ts imports this file, type-checked under NodeNext.
import type { RoomState } from '../room/room-state.js';

export type Extent = [west: number, south: number, east: number, north: number];

/** The extent of a room's content: its markers, drawings, layers and rasters (their bboxes); null when it has none. */
export function contentExtent(state: Pick<RoomState, 'markers' | 'drawings' | 'layers' | 'rasters'>): Extent | null {
  const extent: Extent = [Infinity, Infinity, -Infinity, -Infinity];
  const add = (lng: number, lat: number) => {
    if (!Number.isFinite(lng) || !Number.isFinite(lat)) return;
    extent[0] = Math.min(extent[0], lng);
    extent[1] = Math.min(extent[1], lat);
    extent[2] = Math.max(extent[2], lng);
    extent[3] = Math.max(extent[3], lat);
  };
  const walk = (coordinates: unknown): void => {
    if (Array.isArray(coordinates) && typeof coordinates[0] === 'number') add(coordinates[0], coordinates[1] as number);
    else if (Array.isArray(coordinates)) for (const c of coordinates) walk(c);
  };
  for (const marker of state.markers.values()) add(marker.longitude ?? NaN, marker.latitude ?? NaN);
  for (const drawing of state.drawings.values()) walk((drawing.geometry as { coordinates?: unknown }).coordinates);
  for (const { bbox } of [...state.layers, ...state.rasters]) {
    if (bbox && bbox.length >= 4) {
      add(bbox[0]!, bbox[1]!);
      add(bbox[2]!, bbox[3]!);
    }
  }
  return extent[0] <= extent[2] ? extent : null;
}
