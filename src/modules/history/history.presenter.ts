import type { HistoryTable } from '../../db/tables.js';
import type { RoomEvent } from '../../infra/live-hub.js';

export const presentHistoryEvent = (row: HistoryTable) => ({
  id: row.id,
  version: row.version,
  type: row.type,
  objectType: row.object_type,
  objectId: row.object_id,
  actor: { kind: row.actor_kind as 'user' | 'token', id: row.actor_id },
  at: row.at,
  ...(row.changes !== null && { changes: JSON.parse(row.changes) as Record<string, unknown> }),
});

/**
 * A history entry as a live client receives it when catching up. The row was written by the
 * write path from a typed change (`Change`), so its type and data are one of the union's pairs.
 */
export const liveEventOf = (row: HistoryTable) =>
  ({
    roomId: row.room_id,
    type: row.type,
    objectType: row.object_type,
    objectId: row.object_id,
    data: row.data === null ? null : JSON.parse(row.data),
    version: row.version,
    at: row.at,
  }) as RoomEvent;
