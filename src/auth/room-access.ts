import { access, visitsOnlyTheDeck, type Caller, type Grant, type RoomFacts, type RoomNeed } from './access.js';
import type { AccessSource, DeckObjectRef, RoomWithRole } from './access-source.js';

/** The facts `access()` needs, from a room row with the caller's role. */
export function roomFacts(row: RoomWithRole): RoomFacts {
  return {
    isPublic: row.is_public === 1,
    presentationIsPublic: row.presentation_is_public === 1,
    role: row.member_role,
  };
}

/** The facts of each room row a cache holds, made once (never changed: `authorizeRoom` makes its own). */
const knownFacts = new WeakMap<RoomWithRole, RoomFacts>();

function factsOfKnown(row: RoomWithRole): RoomFacts {
  let facts = knownFacts.get(row);
  if (!facts) {
    facts = roomFacts(row);
    knownFacts.set(row, facts);
  }
  return facts;
}

/** For `shownByDeck` needs: the object the request names (no id: none, so not shown). */
export interface DeckObject {
  /** What the object is called in the 404 a visitor of the deck hears for one it does not show. */
  what: string;
  type: DeckObjectRef['type'];
  id: string | undefined;
}

/**
 * Loads the room with the caller's role and applies the one access check. For `shownByDeck`,
 * the deck's rule (`source.shownByDeck`: does a slide show the object?) is asked only when the
 * caller's access hangs on it (it may see the public deck but not read the room).
 */
export async function authorizeRoom(
  source: AccessSource,
  roomId: string,
  caller: Caller,
  need: RoomNeed,
  deckObject?: DeckObject,
): Promise<{ room: RoomWithRole | undefined; grant: Grant }> {
  const row = await source.roomWithRole(roomId, caller.kind === 'user' ? caller.userId : null);
  const facts = row ? roomFacts(row) : null;
  if (facts && need === 'shownByDeck' && visitsOnlyTheDeck(facts, caller)) {
    const id = deckObject?.id;
    facts.deckObject = {
      what: deckObject?.what ?? 'Object',
      shown: deckObject && id ? await source.shownByDeck(roomId, { type: deckObject.type, id }) : false,
    };
  }
  return { room: row, grant: access(facts, roomId, caller, need) };
}

/**
 * `authorizeRoom` without waiting, when the source holds the room (`knownRoomWithRole`) and
 * the deck's rule need not be asked: sets `into.grant` (and `into.room` when the room exists)
 * and answers true; false when `authorizeRoom` must decide. Refusals are thrown as by
 * `authorizeRoom`. Allocates nothing but the cache key.
 */
export function authorizeKnownRoom(
  source: AccessSource,
  roomId: string,
  caller: Caller,
  need: RoomNeed,
  into: { room: RoomWithRole; grant: Grant },
): boolean {
  const known = source.knownRoomWithRole?.(roomId, caller.kind === 'user' ? caller.userId : null);
  if (!known) return false;
  const row = known.value;
  const facts = row ? factsOfKnown(row) : null;
  if (facts && need === 'shownByDeck' && visitsOnlyTheDeck(facts, caller)) return false;
  into.grant = access(facts, roomId, caller, need);
  if (row) into.room = row;
  return true;
}
