import { sql } from 'kysely';
import type { Actor } from '../../auth/access.js';
import type { Db } from '../../db/database.js';
import { broadcastFailed } from '../../errors.js';
import { newId } from '../../ids.js';
import type { LiveHub, RoomEvent } from '../../infra/live-hub.js';

/** A change before the write path stamps it with its room, version and time; a deletion may leave out its null data. */
type WithoutStamp<E> = E extends unknown
  ? Omit<E, 'version' | 'at' | 'data' | 'roomId'> &
      (E extends { data: null } ? { data?: null } : { data: E extends { data: infer D } ? D : never })
  : never;

/**
 * One change to room content, as a service hands it to the write path: `type`, `objectType`
 * and `data` must be one of the live events' pairs (`marker.updated` with a Marker, a deletion
 * with no data); `changes` are the fields the change set (history's `changes`).
 */
export type Change = WithoutStamp<RoomEvent> & { changes?: Record<string, unknown> };

export interface WorkResult<T> {
  result: T;
  changes: Change[];
}

/**
 * The one write path for room content. In one transaction it runs the caller's writes,
 * advances the room's version and appends one history entry per change; after commit it
 * publishes the changes to live clients. A change that was saved but could not be
 * broadcast answers 502 (the interface's Events section); it stays saved and in history.
 */
export class WritePath {
  constructor(
    private readonly db: Db,
    private readonly live: LiveHub,
  ) {}

  async write<T>(roomId: string, actor: Actor, work: (trx: Db) => Promise<WorkResult<T>>): Promise<T> {
    const { result, events } = await this.db.transaction().execute(async (trx) => {
      const { result, changes } = await work(trx);
      return { result, events: await this.record(trx, roomId, actor, changes) };
    });
    await this.broadcast(events);
    return result;
  }

  private async record(trx: Db, roomId: string, actor: Actor, changes: Change[]): Promise<RoomEvent[]> {
    if (changes.length === 0) return [];
    const { version } = await trx
      .updateTable('rooms')
      .set({ version: sql`version + ${changes.length}` })
      .where('id', '=', roomId)
      .returning('version')
      .executeTakeFirstOrThrow();
    const at = Date.now();
    const first = Number(version) - changes.length + 1;
    const events = changes.map(
      // Only the event's own fields reach live readers, whatever else a change carries.
      ({ type, objectType, objectId, data }, i) =>
        ({ roomId, type, objectType, objectId, data: data ?? null, version: first + i, at }) as RoomEvent,
    );
    await trx
      .insertInto('history')
      .values(
        changes.map((change, i) => ({
          id: newId('event'),
          room_id: roomId,
          version: first + i,
          type: change.type,
          object_type: change.objectType,
          object_id: change.objectId,
          actor_kind: actor.kind,
          actor_id: actor.id,
          at,
          changes: change.changes ? JSON.stringify(change.changes) : null,
          data: change.data === undefined ? null : JSON.stringify(change.data),
        })),
      )
      .execute();
    return events;
  }

  private async broadcast(events: RoomEvent[]): Promise<void> {
    try {
      for (const event of events) await this.live.publish(event);
    } catch {
      throw broadcastFailed();
    }
  }
}
