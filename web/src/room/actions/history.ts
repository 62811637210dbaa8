import { api, ok } from '../../api/client';
import type { Drawing, Layer, Marker, RasterLayer } from '../../api/types';
import type { RoomModel } from '../room-model';
import type { PastContent } from '../time-view';

/** How many changes a page of the history holds. */
export const HISTORY_PAGE = 50;

/** A page of the room's changes, newest first, older than version `before` when given (a read, for display). */
export async function readHistory(model: RoomModel, before?: number, limit = HISTORY_PAGE) {
  const query = { limit, ...(before && { before }) };
  return (await ok(api.GET('/api/rooms/{roomId}/history', { params: { path: { roomId: model.roomId }, query } })))
    .events;
}

/** The room's markers, drawings, layers and rasters as they were at a moment. */
export async function readPast(model: RoomModel, at: number): Promise<PastContent> {
  const params = { path: { roomId: model.roomId }, query: { at: Math.round(at) } };
  const past = await ok(api.GET('/api/rooms/{roomId}/history/snapshot', { params }));
  return {
    at,
    version: past.version,
    complete: past.complete,
    // The snapshot's objects are as their routes answered them then.
    markers: new Map((past.markers as Marker[]).map((m) => [m.id, m])),
    drawings: new Map((past.drawings as Drawing[]).map((d) => [d.id, d])),
    layers: past.layers as Layer[],
    rasters: past.rasterLayers as RasterLayer[],
  };
}

/**
 * Puts an entry's object back (a deleted one with its id); with `ifLatestVersion` only if the
 * object has no newer entry (else 409 `changed_since`). The live channel brings the change.
 */
export async function restoreEntry(model: RoomModel, entryId: string, ifLatestVersion?: number) {
  const params = { path: { roomId: model.roomId, entryId } };
  const body = ifLatestVersion === undefined ? {} : { ifLatestVersion };
  return ok(api.POST('/api/rooms/{roomId}/history/{entryId}/restore', { params, body }));
}
