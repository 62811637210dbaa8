import { access, visitsOnlyTheDeck, type Caller, type Grant, type RoomFacts, type RoomNeed } from './access.js';
import type { AccessSource, RoomWithRole } from './access-source.js';

/** The facts `access()` needs, from a room row with the caller's role. */
export function roomFacts(row: RoomWithRole): RoomFacts {
  return {
    isPublic: row.is_public === 1,
    presentationIsPublic: row.presentation_is_public === 1,
    role: row.member_role,
  };
}

/** For `shownByDeck` needs: what the request names, and whether a slide of the room shows it. */
export interface DeckObject {
  /** What the object is called in the 404 a visitor of the deck hears for one it does not show. */
  what: string;
  isShown(roomId: string): Promise<boolean>;
}

/**
 * Loads the room with the caller's role and applies the one access check. For `shownByDeck`,
 * the slides are looked at only when the caller's access hangs on them (it may see the public
 * deck but not read the room).
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
    facts.deckObject = {
      what: deckObject?.what ?? 'Object',
      shown: deckObject ? await deckObject.isShown(roomId) : false,
    };
  }
  return { room: row, grant: access(facts, roomId, caller, need) };
}
