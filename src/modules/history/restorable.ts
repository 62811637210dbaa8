import type { Caller } from '../../auth/access.js';
import type { Db } from '../../db/database.js';
import type { Change } from './write-path.js';

/** An object as a history entry kept it (`data`): the API object, with its `id`. */
export type KeptState = Record<string, unknown> & { id: string };

/** The state to restore, what was left out, and the display names its answer shows (ActorNames). */
export interface Prepared {
  state: KeptState;
  notes: string[];
  names?: Map<string, string>;
}

/** What a domain did to put an object back. */
export interface Restored {
  /** The change to record: `<objectType>.created` when the object came back, `.updated` when it existed. */
  change: Change;
  /** Work after the commit (files no object refers to any more). */
  after?: () => Promise<void>;
}

/**
 * How a domain puts one of its objects back as a history entry kept it, with the same id
 * (`POST /history/:entryId/restore`). app.ts lists one per restorable object type; the
 * restore service (restore.service.ts) finds the state and runs it inside one write.
 */
export interface Restorable {
  objectType: string;
  /**
   * Its deletions keep the object as it was (a layer's feature, which may have no earlier entry:
   * it came with the layer's file), and a restore of one puts that back. Others restore a
   * deletion from the object's newest entry before it.
   */
  deletionKeepsState?: boolean;
  /** Refuses a caller who may not put this state back (a token restores only the comments and replies it wrote). */
  authorize?(caller: Caller, state: KeptState): void;
  /**
   * Checks, before the write, what the state refers to outside the object (a photo, an icon,
   * a layer's stored data); answers the state to restore and what was left out. Throws a
   * named error when the object cannot come back at all.
   */
  prepare?(roomId: string, state: KeptState): Promise<Prepared>;
  /** Writes the object as `state` inside the restore's transaction. */
  restore(trx: Db, roomId: string, state: KeptState, names?: Map<string, string>): Promise<Restored>;
}
