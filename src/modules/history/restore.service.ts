import { actorOf, type Caller } from '../../auth/access.js';
import type { HistoryTable, RoomRow } from '../../db/tables.js';
import type { ActorNames } from '../users/actor-names.js';
import { changedSince, notFound, notRestorable } from '../../errors.js';
import type { HistoryRepository } from './history.repository.js';
import { actorOfEntry, objectNameOf, presentHistoryEvent } from './history.presenter.js';
import type { KeptState, Restorable } from './restorable.js';
import type { WritePath } from './write-path.js';

/**
 * Puts an object back as a history entry kept it: the state right after that entry, or, for
 * a deletion, the state it had before (its newest earlier entry that kept one), with the same
 * id. The restore is itself one change through the write path (history and live), recorded as
 * the object's `.created` (it came back) or `.updated`, with `changes.restoredFrom`.
 */
export class RestoreService {
  private readonly kinds: Map<string, Restorable>;

  constructor(
    private readonly history: HistoryRepository,
    private readonly writePath: WritePath,
    restorables: Restorable[],
    private readonly names: ActorNames,
  ) {
    this.kinds = new Map(restorables.map((r) => [r.objectType, r]));
  }

  /** `emails`: whether the caller may see a member without a name by e-mail (as in the history). */
  async restore(room: RoomRow, caller: Caller, entryId: string, ifLatestVersion?: number, emails = false) {
    const entry = await this.history.find(room.id, entryId);
    if (!entry) throw notFound('History entry');
    const kind = this.kinds.get(entry.object_type);
    if (!kind) throw notRestorable(`A ${entry.type} entry cannot be restored`);
    const kept = await this.keptState(room.id, entry, kind);
    kind.authorize?.(caller, kept);
    const { state, notes, names } = kind.prepare
      ? await kind.prepare(room.id, kept)
      : { state: kept, notes: [], names: undefined };
    const { restored, overwrote } = await this.writePath.write(room.id, actorOf(caller), async (trx) => {
      const newest = await this.history.newestOf(trx, room.id, entry.object_type, entry.object_id);
      if (ifLatestVersion !== undefined && newest && Number(newest.version) !== ifLatestVersion) {
        throw changedSince(
          `The ${entry.object_type} changed after version ${ifLatestVersion}: its newest entry is version ${newest.version}`,
        );
      }
      const later = await this.history.countAfter(trx, room.id, entry.object_type, entry.object_id, entry.version);
      const restored = await kind.restore(trx, room.id, state, names);
      restored.change.changes = {
        restoredFrom: entry.id,
        restoredVersion: Number(entry.version),
        ...(notes.length > 0 && { notes }),
        ...(later > 0 && newest && { overwroteVersion: Number(newest.version) }),
      };
      return {
        result: { restored, overwrote: later > 0 && newest ? { newest, later } : null },
        changes: [restored.change],
      };
    });
    await restored.after?.();
    return {
      success: true,
      objectType: entry.object_type,
      objectId: entry.object_id,
      restoredFrom: entry.id,
      object: restored.change.data as Record<string, unknown>,
      notes,
      overwrote: overwrote && { ...(await this.named(overwrote.newest, emails)), laterEntries: overwrote.later },
    };
  }

  /** The overwritten entry as the history shows it: under its actor's name and its object's. */
  private async named(entry: HistoryTable, emails: boolean) {
    const actors = await this.names.of([actorOfEntry(entry)], { emails });
    return presentHistoryEvent(entry, { actors, objects: new Map([[entry.id, objectNameOf(entry.data)]]) });
  }

  /** The state to put back: after the entry, or, for a deletion, what it kept or the state before it. */
  private async keptState(
    roomId: string,
    entry: { type: string; object_type: string; object_id: string; version: number; data: string | null },
    kind: Restorable,
  ) {
    if (!entry.type.endsWith('.deleted')) {
      if (entry.data === null) throw notRestorable(`The ${entry.type} entry kept no state to restore`);
      return JSON.parse(entry.data) as KeptState;
    }
    if (kind.deletionKeepsState && entry.data !== null) return JSON.parse(entry.data) as KeptState;
    const before = await this.history.stateBefore(roomId, entry.object_type, entry.object_id, entry.version);
    if (!before?.data) {
      throw notRestorable(
        `History holds no state of ${entry.object_id} before its deletion (it came in with an import); it cannot be restored`,
      );
    }
    return JSON.parse(before.data) as KeptState;
  }
}
