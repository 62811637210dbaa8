import type { RoomRow } from '../../db/tables.js';
import { type ActorNames, nameKey } from '../users/actor-names.js';
import { actorOfEntry, objectNameOf, presentHistoryEvent } from './history.presenter.js';
import type { HistoryRepository } from './history.repository.js';

/** The room's timeline, newest first, with who did it and what it was called. */
export class HistoryService {
  constructor(
    private readonly history: HistoryRepository,
    private readonly names: ActorNames,
  ) {}

  async page(room: RoomRow, limit: number, before?: number, emails = false) {
    const rows = await this.history.page(room.id, limit, before);
    // A role change is about a user: named like an actor.
    const members = rows.filter((row) => row.object_type === 'member');
    const actors = await this.names.of(
      [...rows.map(actorOfEntry), ...members.map((row) => ({ kind: 'user' as const, id: row.object_id }))],
      { emails },
    );
    // A deletion kept nothing: its name is the one the object had before (one read for the page).
    const deletions = rows.filter((row) => row.type.endsWith('.deleted') && row.object_type !== 'member');
    const earlier = await this.history.statesBefore(
      room.id,
      deletions.map((row) => ({ objectType: row.object_type, objectId: row.object_id, version: Number(row.version) })),
    );
    const objects = new Map<string, string | null>();
    for (const row of rows) {
      if (row.object_type === 'member') {
        objects.set(row.id, actors.get(nameKey({ kind: 'user', id: row.object_id })) ?? null);
      } else if (row.type.endsWith('.deleted'))
        objects.set(row.id, objectNameOf(earlier.get(Number(row.version)) ?? null));
      else objects.set(row.id, objectNameOf(row.data));
    }
    return { events: rows.map((row) => presentHistoryEvent(row, { actors, objects })) };
  }
}
