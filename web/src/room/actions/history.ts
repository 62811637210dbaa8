import { api, ok } from '../../api/client';
import type { RoomModel } from '../room-model';

/** How many changes a page of the history holds. */
export const HISTORY_PAGE = 50;

/** A page of the room's changes, newest first, older than version `before` when given (a read, for display). */
export async function readHistory(model: RoomModel, before?: number) {
  const query = { limit: HISTORY_PAGE, ...(before && { before }) };
  return (await ok(api.GET('/api/rooms/{roomId}/history', { params: { path: { roomId: model.roomId }, query } })))
    .events;
}
