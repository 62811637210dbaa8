import type { HistoryTable } from '../../db/tables.js';
import type { RoomEvent } from '../../infra/live-hub.js';

/** Who made the change. */
export const actorOfEntry = (row: HistoryTable) => ({ kind: row.actor_kind as 'user' | 'token', id: row.actor_id });

/** The names a page of history shows: actors' (ActorNames, by `nameKey`) and objects' (by entry id). */
export interface EntryNames {
  actors: Map<string, string>;
  objects: Map<string, string | null>;
}

export const presentHistoryEvent = (row: HistoryTable, names?: EntryNames) => {
  const actor = actorOfEntry(row);
  const actorName = names?.actors.get(`${actor.kind}|${actor.id}`);
  return {
    id: row.id,
    version: row.version,
    type: row.type,
    objectType: row.object_type,
    objectId: row.object_id,
    actor: actorName === undefined ? actor : { ...actor, name: actorName },
    ...(names && { objectName: names.objects.get(row.id) ?? null }),
    at: row.at,
    ...(row.changes !== null && { changes: JSON.parse(row.changes) as Record<string, unknown> }),
  };
};

/** How long a comment's or reply's text may be as its name. */
const EXCERPT = 80;

/** An object's title or name in the state an entry kept (`data`), or null. */
export function objectNameOf(data: string | null): string | null {
  if (data === null) return null;
  const object = JSON.parse(data) as Record<string, unknown>;
  for (const field of ['title', 'name', 'label']) {
    const value = object[field];
    if (typeof value === 'string' && value !== '') return value;
  }
  return typeof object.body === 'string' ? object.body.slice(0, EXCERPT) : null;
}

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
    actor: { kind: row.actor_kind, id: row.actor_id },
  }) as RoomEvent;
