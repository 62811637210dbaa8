import type { FastifyInstance, FastifyRequest } from 'fastify';
import { access, requireSession, type Caller, type Grant, type RoomNeed } from '../auth/access.js';
import type { Authenticator } from '../auth/authenticator.js';
import { AppError, badRequest, notFound } from '../errors.js';
import { isRoomId } from '../ids.js';
import type { RoomRow, RoomsRepository } from '../modules/rooms/rooms.repository.js';

/**
 * What a route declares in `config.access`: a user session (no room), a need on the room
 * named by the `:roomId` path parameter, or (`optional`) just who the caller is.
 */
export type RouteAccess =
  | { session: true }
  | {
      room: RoomNeed;
      /** Also take the credential from `?access_token=` (WebSockets). */
      credentialInQuery?: true;
      /** For routes that address an object by id alone: how to find its room. */
      roomOf?: ObjectRoom;
    }
  | { optional: true };

/**
 * The room of an object named by a path parameter. Whoever may not act on that room hears
 * 404, as if the object did not exist.
 */
export interface ObjectRoom {
  param: string;
  what: string;
  find(id: string): Promise<string | undefined>;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: RouteAccess;
  }
  interface FastifyRequest {
    caller: Caller;
    /** The room of the path, loaded by the access check. */
    room: RoomRow;
    /** What the caller may do in that room. */
    grant: Grant;
  }
}

export const ROOM_ID_MESSAGE = 'roomId must be exactly 10 characters from A-Z, a-z, 0-9, _ and -';

/** Registers the one access check: every route states what it needs, this hook enforces it. */
export function registerAccessHook(app: FastifyInstance, authenticator: Authenticator, rooms: RoomsRepository) {
  app.decorateRequest('caller', null as never);
  app.decorateRequest('room', null as never);
  app.decorateRequest('grant', null as never);

  app.addHook('preValidation', async (request: FastifyRequest) => {
    const spec = request.routeOptions.config.access;
    if (!spec) return;
    const roomId = (request.params as { roomId?: unknown }).roomId;
    if (roomId !== undefined && !isRoomId(roomId)) {
      throw badRequest(ROOM_ID_MESSAGE, [{ field: 'roomId', message: ROOM_ID_MESSAGE }]);
    }
    const queryToken = (request.query as { access_token?: unknown }).access_token;
    const header =
      request.headers.authorization ??
      ('credentialInQuery' in spec && typeof queryToken === 'string' ? `Bearer ${queryToken}` : undefined);
    request.caller = await authenticator.resolve(header);
    if ('session' in spec) {
      requireSession(request.caller);
      return;
    }
    if (!('room' in spec)) return;
    const { room, grant } = spec.roomOf
      ? await authorizeObject(rooms, spec.roomOf, (request.params as Record<string, string>)[spec.roomOf.param], request.caller, spec.room)
      : await authorizeRoom(rooms, roomId as string, request.caller, spec.room);
    request.grant = grant;
    if (room) request.room = room;
  });
}

async function authorizeObject(rooms: RoomsRepository, object: ObjectRoom, id: string | undefined, caller: Caller, need: RoomNeed) {
  const roomId = id ? await object.find(id) : undefined;
  if (!roomId) throw notFound(object.what);
  try {
    return await authorizeRoom(rooms, roomId, caller, need);
  } catch (error) {
    if (error instanceof AppError && error.code !== 'api_token_not_allowed') throw notFound(object.what);
    throw error;
  }
}

/** Loads the room with the caller's role and applies the one access check. */
export async function authorizeRoom(rooms: RoomsRepository, roomId: string, caller: Caller, need: RoomNeed) {
  const row = await rooms.findWithRole(roomId, caller.kind === 'user' ? caller.userId : null);
  const facts = row && {
    isPublic: row.is_public === 1,
    presentationIsPublic: row.presentation_is_public === 1,
    role: row.member_role,
  };
  return { room: row, grant: access(facts ?? null, roomId, caller, need) };
}
