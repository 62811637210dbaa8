import { access, type Caller, type Grant, type RoomFacts, type RoomNeed } from './access.js';
import type { AccessSource, RoomWithRole } from './access-source.js';

/** The facts `access()` needs, from a room row with the caller's role. */
export function roomFacts(row: RoomWithRole): RoomFacts {
  return { isPublic: row.is_public === 1, presentationIsPublic: row.presentation_is_public === 1, role: row.member_role };
}

/** Loads the room with the caller's role and applies the one access check. */
export async function authorizeRoom(
  source: AccessSource,
  roomId: string,
  caller: Caller,
  need: RoomNeed,
): Promise<{ room: RoomWithRole | undefined; grant: Grant }> {
  const row = await source.roomWithRole(roomId, caller.kind === 'user' ? caller.userId : null);
  return { room: row, grant: access(row ? roomFacts(row) : null, roomId, caller, need) };
}
