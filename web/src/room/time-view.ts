// `.js`: test/web/timeline-model.test.ts imports this file, type-checked under NodeNext.
import type { Drawing, Layer, Marker, RasterLayer } from '../api/types.js';
import type { RoomState } from './room-state.js';

/** The room's content at a past moment, from `GET history/snapshot`, ready to draw. */
export interface PastContent {
  /** The moment it shows. */
  at: number;
  version: number;
  complete: boolean;
  markers: Map<string, Marker>;
  drawings: Map<string, Drawing>;
  layers: Layer[];
  rasters: RasterLayer[];
}

/**
 * What the map shows, chosen with the timeline's slider (`sliderMode`, docs/decisions.md):
 * - `current`: the room now;
 * - `past`: the room now while `at` is null (the slider at its end), else the room as it was
 *   at `at` (its content once loaded; editing is off meanwhile);
 * - `future`: the markers whose event date is still ahead, up to `until`.
 */
export type TimeView =
  | { mode: 'current' }
  | { mode: 'past'; at: number | null; content: PastContent | null }
  | { mode: 'future'; until: number | null };

/** Whether the map shows the past: then nothing may be edited. */
export const showsPast = (view: TimeView) => view.mode === 'past' && view.at !== null;

/**
 * The state the map draws: the page's state, with the past's markers, drawings, layers and
 * rasters in a past view (layers and rasters only those that still exist: deleted ones left
 * their features with them), or only the markers still ahead in a future view. Pure.
 */
export function shownState(state: RoomState, view: TimeView, now: number): RoomState {
  if (view.mode === 'past' && view.at !== null) {
    if (!view.content) return { ...state, markers: new Map(), drawings: new Map(), layers: [], rasters: [] };
    const layerIds = new Set(state.layers.map((l) => l.id));
    const rasterIds = new Set(state.rasters.map((r) => r.id));
    return {
      ...state,
      markers: view.content.markers,
      drawings: view.content.drawings,
      layers: view.content.layers.filter((l) => layerIds.has(l.id)),
      rasters: view.content.rasters.filter((r) => rasterIds.has(r.id)),
    };
  }
  if (view.mode === 'future') return { ...state, markers: upcoming(state.markers, now, view.until) };
  return state;
}

/** The markers whose event date is after `now` (and not after `until` when given). */
export function upcoming(markers: Map<string, Marker>, now: number, until: number | null): Map<string, Marker> {
  const kept = new Map<string, Marker>();
  for (const [id, m] of markers)
    if (m.eventDate != null && m.eventDate > now && (until === null || m.eventDate <= until)) kept.set(id, m);
  return kept;
}
