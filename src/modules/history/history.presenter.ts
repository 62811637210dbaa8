import type { HistoryTable } from '../../db/tables.js';

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

/** A history entry as a live client receives it when catching up. */
export const liveEventOf = (row: HistoryTable) => ({
  type: row.type,
  objectType: row.object_type,
  objectId: row.object_id,
  data: row.data === null ? null : JSON.parse(row.data),
  version: row.version,
  at: row.at,
});
