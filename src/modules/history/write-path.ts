import { CompiledQuery, type InsertObject, type Insertable, sql } from 'kysely';
import type { Actor } from '../../auth/access.js';
import type { Database, Db } from '../../db/database.js';
import type { Transact } from '../../db/pipelined-transaction.js';
import { PreparedQuery } from '../../db/prepared-query.js';
import type { HistoryTable, Tables } from '../../db/tables.js';
import { broadcastFailed, changedSince } from '../../errors.js';
import { newId } from '../../ids.js';
import type { LiveHub, RoomEvent } from '../../infra/live-hub.js';

/** A change before the write path stamps it with its room, version, time and actor; a deletion may leave out its null data. */
type WithoutStamp<E> = E extends unknown
  ? Omit<E, 'version' | 'at' | 'data' | 'roomId' | 'actor'> &
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
  /**
   * Statements the work sent without waiting for them (a create's one insert): on PostgreSQL
   * they go with the group's next statements in one round trip. The group waits for them
   * before it records the changes; their failure is the write's.
   */
  sent?: Promise<unknown>;
}

/**
 * A write's work: it reads and writes with `trx` only, so that it can run again. It runs inside
 * its room's group; should the group fail as a whole (its history or its commit), the group is
 * rolled back and each of its writes runs again alone (`WritePath.eachAlone`), as if it had
 * come by itself.
 */
export type RepeatableWork<T> = (trx: Db) => Promise<WorkResult<T>>;

/** A write waiting for its room's next group. */
interface Queued {
  actor: Actor;
  work: RepeatableWork<unknown>;
  resolve(result: unknown): void;
  reject(error: unknown): void;
}

/**
 * More that a room's changes record in their own transaction (a webhook's deliveries): it
 * answers what to do once they have committed. It is called before the group's events are
 * known (they wait for the room's new version): what it reads before it waits for `events`
 * goes with the version's advance, in one round trip.
 */
export type AlsoRecorded = (trx: Db, roomId: string, events: Promise<RoomEvent[]>) => Promise<(() => void) | undefined>;

/** A write of a group that did its work (`sent`: what it still waits for, settled). */
type Done = { result: unknown; actor: Actor; changes: Change[]; sent?: Promise<unknown> };
/** What one write of a group came to inside the transaction. */
type Outcome = Done | { error: unknown };

/** A write of a group that failed, and at which place (the group is rolled back). */
class WriteFailed {
  constructor(
    readonly index: number,
    readonly error: unknown,
  ) {}
}

const SAVEPOINT = CompiledQuery.raw('savepoint write_path');
const ROLLBACK_TO_SAVEPOINT = CompiledQuery.raw('rollback to savepoint write_path');
const RELEASE_SAVEPOINT = CompiledQuery.raw('release savepoint write_path');

/** Most writes of one room that share a transaction: fixed, it bounds one commit's work, not a capacity. */
export const MAX_GROUP = 100;

/**
 * The one write path for room content. In one transaction it runs the caller's writes,
 * advances the room's version and appends one history entry per change; after commit it
 * publishes the changes to live clients. A change that was saved but could not be
 * broadcast answers 502 (the interface's Events section); it stays saved and in history.
 *
 * Group commit: the writes of one room that arrive together (while the room's previous group
 * runs, or in the same turn of the event loop) share one transaction, in the order they
 * came, and their history goes in with one statement. Each caller is answered with its own
 * result once the group has committed, in order. A write that fails gets its own error and
 * the others go on: the group is rolled back and runs again without it, this time each write
 * in a savepoint (`contained`), so that a write failing then is undone alone. No savepoint on
 * the first run: on PostgreSQL each costs two round trips per write, for a failure that is
 * rare; and no write runs more than twice. The work is repeatable (`RepeatableWork`): a group
 * that fails as a whole (its history, its commit) runs each write again alone.
 */
export class WritePath {
  /** The writes waiting per room; a room is here while a group of it is scheduled or running. */
  private readonly waiting = new Map<string, Queued[]>();
  /** Advances a room's version by `count`, answering the new one. */
  private readonly advance: PreparedQuery<{ roomId: string; count: number }, { version: number }>;
  private readonly appendHistory: PreparedQuery<HistoryDraft, unknown>;
  private readonly alsoRecorded: AlsoRecorded[] = [];
  private readonly transaction: Transact;

  constructor(
    database: Pick<Database, 'db' | 'transaction'>,
    private readonly live: LiveHub,
  ) {
    const { db } = database;
    this.transaction = database.transaction;
    this.advance = new PreparedQuery(db, ['roomId', 'count'], ({ roomId, count }, db) =>
      db
        .updateTable('rooms')
        .set({ version: sql`version + ${count}` })
        .where('id', '=', roomId)
        .returning('version'),
    );
    this.appendHistory = new PreparedQuery(db, DRAFT_COLUMNS, (draft, db) =>
      db.insertInto('history').values(withVersion(draft)),
    );
  }

  /**
   * Inside a write: refuses it (409 `changed_since`) unless the object's newest history entry has
   * version `ifLatestVersion` (none given: no check), so that a change made since is not undone.
   * `parts` are objects that go with it (a comment's replies): an entry of theirs newer than
   * `ifLatestVersion` refuses it too. Called once the object is known to exist and the caller
   * may change it, so a 409 tells nobody more than a 404 or 403 would.
   */
  async ensureLatest(
    trx: Db,
    roomId: string,
    object: [type: string, id: string],
    ifLatestVersion?: number,
    parts: [type: string, id: string][] = [],
  ) {
    if (ifLatestVersion === undefined) return;
    const newest = await trx
      .selectFrom('history')
      .select('version')
      .where('room_id', '=', roomId)
      .where((eb) =>
        eb.or([object, ...parts].map(([type, id]) => eb.and([eb('object_type', '=', type), eb('object_id', '=', id)]))),
      )
      .orderBy('version', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (newest && Number(newest.version) !== ifLatestVersion)
      throw changedSince(
        `The ${object[0]} changed after version ${ifLatestVersion}: its newest entry is version ${newest.version}`,
      );
  }

  /** Adds what every group of changes also records in its transaction (before the service serves). */
  alsoRecord(step: AlsoRecorded): void {
    this.alsoRecorded.push(step);
  }

  write<T>(roomId: string, actor: Actor, work: RepeatableWork<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const queued = { actor, work, resolve: resolve as (result: unknown) => void, reject };
      const queue = this.waiting.get(roomId);
      if (queue) return void queue.push(queued);
      this.waiting.set(roomId, [queued]);
      // Requests read in this turn of the event loop reach here before it ends: they join the group.
      setImmediate(() => void this.run(roomId));
    });
  }

  /** Commits the room's waiting writes group after group, until none waits. */
  private async run(roomId: string): Promise<void> {
    const queue = this.waiting.get(roomId)!;
    while (queue.length > 0) await this.commit(roomId, queue.splice(0, MAX_GROUP));
    this.waiting.delete(roomId);
  }

  private async commit(roomId: string, group: Queued[], contained = false): Promise<void> {
    let outcomes: Outcome[];
    let events: RoomEvent[][];
    let committed: (() => void)[];
    try {
      ({ outcomes, events, committed } = await this.transaction(async (trx) => {
        const outcomes = contained ? await this.eachContained(trx, group) : await this.all(trx, group);
        // The version's advance, the history and what the steps read go with the writes'
        // unwaited inserts: a group of creates is one round trip before its commit.
        const recording = this.record(trx, roomId, outcomes);
        const allEvents = recording.then(({ events }) => events.flat());
        allEvents.catch(() => undefined); // the group's failure is `recording`'s
        const steps = this.alsoRecorded.map((step) => step(trx, roomId, allEvents));
        let recorded: Awaited<typeof recording>;
        let thens: ((() => void) | undefined)[];
        try {
          [recorded, ...thens] = await Promise.all([recording, ...steps]);
          await recorded.historyWritten;
        } catch (error) {
          // After a failed insert PostgreSQL refuses the rest: the failure is that write's.
          throw (await sentFailure(group, outcomes)) ?? error;
        }
        // On SQLite a failed statement leaves the transaction usable: check them all the same.
        const failure = await sentFailure(group, outcomes);
        if (failure) throw failure;
        const committed = thens.filter((then) => then !== undefined);
        return { outcomes, events: recorded.events, committed };
      }));
    } catch (error) {
      if (!(error instanceof WriteFailed)) {
        if (group.length === 1) return group[0]!.reject(error);
        return this.eachAlone(roomId, group);
      }
      // In order, the failed write saw what the writes before it did, as it will have been.
      group[error.index]!.reject(error.error);
      const others = group.filter((_, i) => i !== error.index);
      return others.length ? this.commit(roomId, others, true) : undefined;
    }
    for (const then of committed) then();
    // Published in version order; the room's next group need not wait for the hub.
    outcomes.forEach((outcome, i) => {
      const queued = group[i]!;
      if ('error' in outcome) return queued.reject(outcome.error);
      this.broadcast(events[i]!).then(() => queued.resolve(outcome.result), queued.reject);
    });
  }

  /**
   * The writes of a group one after the other; the first that fails fails the group
   * (`WriteFailed`). A write that failed after another's unwaited statement failed only
   * because that one had (the transaction was aborted): the failure is the earlier write's.
   * Unwaited statements are checked by the caller (`sentFailure`), after more went with them.
   */
  private async all(trx: Db, group: Queued[]): Promise<Outcome[]> {
    const outcomes: Outcome[] = [];
    for (const [index, queued] of group.entries()) {
      try {
        outcomes.push(await this.perform(trx, queued));
      } catch (error) {
        throw (await sentFailure(group, outcomes)) ?? failureOf(group, index, error);
      }
    }
    return outcomes;
  }

  /** The writes of a group, each in a savepoint that its failure rolls back. */
  private async eachContained(trx: Db, group: Queued[]): Promise<Outcome[]> {
    const outcomes: Outcome[] = [];
    for (const queued of group) {
      await trx.executeQuery(SAVEPOINT);
      try {
        const outcome = await this.perform(trx, queued);
        await outcome.sent;
        outcomes.push(outcome);
      } catch (error) {
        await trx.executeQuery(ROLLBACK_TO_SAVEPOINT);
        outcomes.push({ error });
      }
      await trx.executeQuery(RELEASE_SAVEPOINT);
    }
    return outcomes;
  }

  /** After its group failed: each write of it again, in its own transaction. */
  private async eachAlone(roomId: string, group: Queued[]): Promise<void> {
    for (const queued of group) await this.commit(roomId, [queued]);
  }

  /** One write's work in its group's transaction: a failure rolls the whole group back. */
  private async perform(trx: Db, queued: Queued): Promise<Done> {
    const { result, changes, sent } = await queued.work(trx);
    // Settled at once, so that a failure of it is never unhandled while the group goes on.
    sent?.catch(() => undefined);
    return { result, actor: queued.actor, changes, sent };
  }

  /**
   * Advances the room's version once for every change and appends their history: the events of
   * each outcome, and the history's insert, sent but not waited for (the group's next
   * statements go with it).
   */
  private async record(
    trx: Db,
    roomId: string,
    outcomes: Outcome[],
  ): Promise<{ events: RoomEvent[][]; historyWritten: Promise<unknown> }> {
    const count = outcomes.reduce((n, outcome) => n + ('changes' in outcome ? outcome.changes.length : 0), 0);
    if (count === 0) return { events: outcomes.map(() => []), historyWritten: Promise.resolve() };
    const advancing = this.advance.execute(trx, { roomId, count });
    const at = Date.now();
    const drafts: HistoryDraft[] = [];
    let behind = count;
    for (const outcome of outcomes)
      if ('changes' in outcome)
        for (const change of outcome.changes) drafts.push(historyDraft(roomId, outcome.actor, change, --behind, at));
    // Sent behind the version's advance, whose new value it reads: both go in one round trip.
    const historyWritten =
      drafts.length === 1
        ? this.appendHistory.execute(trx, drafts[0]!)
        : trx.insertInto('history').values(drafts.map(withVersion)).execute();
    historyWritten.catch(() => undefined);
    const advanced = (await advancing).rows[0];
    if (!advanced) throw new Error(`room ${roomId} not found`);
    let next = Number(advanced.version) - count + 1;
    const events = outcomes.map((outcome) => {
      if (!('changes' in outcome)) return [];
      return outcome.changes.map((change) => {
        // Only the event's own fields reach live readers, whatever else a change carries.
        const { type, objectType, objectId, data } = change;
        const actor = { kind: outcome.actor.kind, id: outcome.actor.id };
        return { roomId, type, objectType, objectId, data: data ?? null, version: next++, at, actor } as RoomEvent;
      });
    });
    return { events, historyWritten };
  }

  private async broadcast(events: RoomEvent[]): Promise<void> {
    try {
      await Promise.all(events.map((event) => this.live.publish(event)));
    } catch {
      throw broadcastFailed();
    }
  }
}

/** A write's failure inside its group: its own error when it is alone, else `WriteFailed`. */
const failureOf = (group: Queued[], index: number, error: unknown) =>
  group.length === 1 ? error : new WriteFailed(index, error);

/** The failure of the first write whose unwaited statements (`sent`) failed, if one did. */
async function sentFailure(group: Queued[], outcomes: Outcome[]): Promise<unknown> {
  for (const [index, outcome] of outcomes.entries()) {
    if (!('sent' in outcome) || !outcome.sent) continue;
    const failed = await outcome.sent.then(
      () => undefined,
      (error: unknown) => ({ error }),
    );
    if (failed) return failureOf(group, index, failed.error);
  }
  return undefined;
}

/** A history entry before its version: `behind` the room's version once the group advanced it. */
type HistoryDraft = Omit<Insertable<HistoryTable>, 'version'> & { behind: number } & Record<string, unknown>;
const DRAFT_COLUMNS = [
  'id',
  'room_id',
  'behind',
  'type',
  'object_type',
  'object_id',
  'actor_kind',
  'actor_id',
  'at',
  'changes',
  'data',
] as const;

/** The entry to insert: its version read from the room's row, in the same statement. */
function withVersion({ behind, ...entry }: HistoryDraft): InsertObject<Tables, 'history'> {
  return { ...entry, version: sql<number>`(select "version" from "rooms" where "id" = ${entry.room_id}) - ${behind}` };
}

function historyDraft(roomId: string, actor: Actor, change: Change, behind: number, at: number): HistoryDraft {
  return {
    id: newId('event'),
    room_id: roomId,
    behind,
    type: change.type,
    object_type: change.objectType,
    object_id: change.objectId,
    actor_kind: actor.kind,
    actor_id: actor.id,
    at,
    changes: change.changes ? JSON.stringify(change.changes) : null,
    data: change.data === undefined ? null : JSON.stringify(change.data),
  };
}
