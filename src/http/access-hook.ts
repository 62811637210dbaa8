import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isSessionOnly, requireSession, type Caller, type Grant, type RoomNeed } from '../auth/access.js';
import type { AccessSource, RoomWithRole } from '../auth/access-source.js';
import type { Authenticator } from '../auth/authenticator.js';
import { authorizeRoom, type DeckObject } from '../auth/room-access.js';
import { AppError, invalidField, notFound, tokenNotAllowed, unauthorized } from '../errors.js';
import { isRoomId } from '../ids.js';

/**
 * What a route declares in `config.access`: a user session (no room), a need on the room
 * named by a path parameter (`:roomId`, or `roomParam`), a need on a room the request body
 * names (`roomInBody`: the handler calls `request.authorizeRoom` once it has read it), or
 * (`optional`) just who the caller is.
 */
export type RouteAccess = { session: true } | RoomAccess | { roomInBody: RoomNeed } | { optional: true };

/** A need on the room of the path. A `shownByDeck` route also says which object it serves. */
export type RoomAccess = {
  /** The path parameter that names the room, when it is not `roomId`. */
  roomParam?: string;
  /** Also take the credential from `?access_token=` (WebSockets). */
  credentialInQuery?: true;
  /** For routes that address an object by id alone: how to find its room. */
  roomOf?: ObjectRoom;
} & ({ room: Exclude<RoomNeed, 'shownByDeck'> } | { room: 'shownByDeck'; deckObject: DeckRoute });

/**
 * The object a `shownByDeck` route serves (a photo, an icon, a layer, a raster): what it is
 * called (for the 404), its kind, and where the request names it (a path or query parameter).
 * The hook asks the one deck rule (`AccessSource.shownByDeck`) whether a slide of the room
 * shows it. A visitor of a public deck reaches only those; members and other readers of the
 * room are not narrowed.
 */
export interface DeckRoute {
  what: string;
  type: DeckObject['type'];
  id: { param: string } | { query: string };
}

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
    /** The room of the path (with the caller's role), loaded by the access check. */
    room: RoomWithRole;
    /** What the caller may do in that room. */
    grant: Grant;
    /** For `roomInBody` routes: applies the route's need to the room the body names. */
    authorizeRoom(roomId: string): Promise<void>;
  }
}

const ROOM_ID_PROBLEM = 'must be exactly 10 characters from A-Z, a-z, 0-9, _ and -';

/** Registers the one access check: every route states what it needs, this hook enforces it. */
export function registerAccessHook(app: FastifyInstance, authenticator: Authenticator, source: AccessSource) {
  app.decorateRequest('caller', null as never);
  app.decorateRequest('room', null as never);
  app.decorateRequest('grant', null as never);
  app.decorateRequest('authorizeRoom', async function authorizeBodyRoom(this: FastifyRequest, roomId: string) {
    const spec = this.routeOptions.config.access;
    if (!spec || !('roomInBody' in spec)) throw new Error('authorizeRoom is for routes whose room is in the body');
    if (!isRoomId(roomId)) throw invalidField('roomName', ROOM_ID_PROBLEM);
    const { room, grant } = await authorizeRoom(source, roomId, this.caller, spec.roomInBody);
    this.grant = grant;
    this.room = room!;
  });

  // preParsing: the caller is known, and refused, before a byte of the body is read or parsed.
  app.addHook('preParsing', async (request: FastifyRequest) => {
    const spec = request.routeOptions.config.access;
    if (!spec) return;
    const roomParam = 'roomParam' in spec && spec.roomParam ? spec.roomParam : 'roomId';
    const roomId = (request.params as Record<string, unknown>)[roomParam];
    if (roomId !== undefined && !isRoomId(roomId)) {
      throw invalidField(roomParam, ROOM_ID_PROBLEM);
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
    if ('roomInBody' in spec) {
      // Nobody may make the service read a body they could not use: anonymous callers are
      // refused now, and a room token is checked against its own room before a byte is read.
      if (request.caller.kind === 'anonymous') throw unauthorized();
      if (request.caller.kind === 'token')
        await authorizeRoom(source, request.caller.roomId, request.caller, spec.roomInBody);
      return;
    }
    if (!('room' in spec)) return;
    const deckObject = 'deckObject' in spec ? deckObjectOf(spec.deckObject, request) : undefined;
    const { room, grant } = spec.roomOf
      ? await authorizeObject(
          source,
          spec.roomOf,
          (request.params as Record<string, string>)[spec.roomOf.param],
          request.caller,
          spec.room,
          deckObject,
        )
      : await authorizeRoom(source, roomId as string, request.caller, spec.room, deckObject);
    request.grant = grant;
    if (room) request.room = room;
  });
}

/** The object a `shownByDeck` request names; a missing, empty or repeated parameter names none. */
function deckObjectOf(route: DeckRoute, request: FastifyRequest): DeckObject {
  const values = ('param' in route.id ? request.params : request.query) as Record<string, unknown>;
  const id = values['param' in route.id ? route.id.param : route.id.query];
  return { what: route.what, type: route.type, id: typeof id === 'string' && id !== '' ? id : undefined };
}

/**
 * An object addressed by id alone: whoever may not know of it hears 404, as if it did not
 * exist; a token of the object's own room, and anyone who may read the room (a viewer
 * deleting a layer), hear why they are refused.
 */
async function authorizeObject(
  source: AccessSource,
  object: ObjectRoom,
  id: string | undefined,
  caller: Caller,
  need: RoomNeed,
  deckObject?: DeckObject,
) {
  // Before the lookup, so that a token cannot tell which ids exist.
  if (caller.kind === 'token' && isSessionOnly(need)) throw tokenNotAllowed();
  const roomId = id ? await object.find(id) : undefined;
  if (!roomId) throw notFound(object.what);
  try {
    return await authorizeRoom(source, roomId, caller, need, deckObject);
  } catch (error) {
    if (!(error instanceof AppError) || error.code === 'api_token_not_allowed') throw error;
    const ownRoomToken = caller.kind === 'token' && caller.roomId === roomId;
    if (ownRoomToken || (need !== 'read' && (await mayRead(source, roomId, caller)))) throw error;
    throw notFound(object.what);
  }
}

/** Whether the caller may read the room (and so knows what it holds). */
async function mayRead(source: AccessSource, roomId: string, caller: Caller): Promise<boolean> {
  return authorizeRoom(source, roomId, caller, 'read').then(
    () => true,
    () => false,
  );
}
