import { sql } from 'kysely';
import type { Actor } from '../../auth/access.js';
import type { Db } from '../../db/database.js';
import { broadcastFailed } from '../../errors.js';
import { newId } from '../../ids.js';
import type { LiveEvent, LiveHub } from '../../infra/live-hub.js';

/** One change to room content: `type` is `<objectType>.<created|updated|deleted>` or `room.*`. */
export interface Change {
  type: string;
  objectType: string;
  objectId: string;
  /** The fields the change set (history's `changes`). */
  changes?: Record<string, unknown>;
  /** The object after the change (live clients' `data`); null for deletions. */
  data?: unknown;
}

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

  private async record(trx: Db, roomId: string, actor: Actor, changes: Change[]): Promise<LiveEvent[]> {
    if (changes.length === 0) return [];
    const { version } = await trx
      .updateTable('rooms')
      .set({ version: sql`version + ${changes.length}` })
      .where('id', '=', roomId)
      .returning('version')
      .executeTakeFirstOrThrow();
    const at = Date.now();
    const first = Number(version) - changes.length + 1;
    const events = changes.map((change, i) => ({
      roomId,
      type: change.type,
      objectType: change.objectType,
      objectId: change.objectId,
      data: change.data ?? null,
      version: first + i,
      at,
    }));
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

  private async broadcast(events: LiveEvent[]): Promise<void> {
    try {
      for (const event of events) await this.live.publish(event);
    } catch {
      throw broadcastFailed();
    }
  }
}
