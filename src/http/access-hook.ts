import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  embedKeyMay,
  isSessionOnly,
  requireAdmin,
  requireSession,
  seesLayer,
  type Caller,
  type Grant,
  type RoomNeed,
} from '../auth/access.js';
import type { AccessSource, RoomWithRole } from '../auth/access-source.js';
import type { InstanceAdmins } from '../auth/admins.js';
import { type Authenticator, isBasicScheme } from '../auth/authenticator.js';
import { authorizeKnownRoom, authorizeRoom, type DeckObject } from '../auth/room-access.js';
import { AppError, invalidField, notFound, tokenNotAllowed, unauthorized, withChallenge } from '../errors.js';
import { isRoomId } from '../ids.js';

/**
 * What a route declares in `config.access`: a user session (no room), a need on the room
 * named by a path parameter (`:roomId`, or `roomParam`), a need on a room the request body
 * names (`roomInBody`: the handler calls `request.authorizeRoom` once it has read it), or
 * (`optional`) just who the caller is, or (`admin`) a session of an instance admin.
 */
export type RouteAccess =
  | { session: true }
  | { admin: true }
  | RoomAccess
  | { roomInBody: RoomNeed }
  | { optional: true };

/** A need on the room of the path. A `shownByDeck` route also says which object it serves. */
export type RoomAccess = {
  /** The path parameter that names the room, when it is not `roomId`. */
  roomParam?: string;
  /** Also take the credential from `?access_token=` (WebSockets). */
  credentialInQuery?: true;
  /** For routes that address an object by id alone: how to find its room. */
  roomOf?: ObjectRoom;
  /**
   * A read an embedded map needs: embed keys of the room may call it (GET only). Every route
   * without it refuses them (`embedKeyMay`); docs/decisions.md, "Embedding", lists these routes.
   */
  embed?: true;
  /**
   * A route GIS clients read (the OGC API, vector and raster tiles): a room token is also taken
   * as the password of HTTP Basic, and a 401 challenges for it (`challenged`). Every route
   * without it refuses a Basic header; docs/decisions.md, "HTTP Basic for GIS clients".
   */
  basicAuth?: true;
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
export function registerAccessHook(
  app: FastifyInstance,
  authenticator: Authenticator,
  source: AccessSource,
  admins: InstanceAdmins,
) {
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
  // The hook is the route's own, made once with its `config.access` when the route is added
  // (Fastify builds `request.routeOptions` anew on every access); routes without one get none.
  app.addHook('onRoute', (route) => {
    const spec = (route.config as { access?: RouteAccess } | undefined)?.access;
    if (!spec) return;
    // A new array: Fastify copies a GET route's options for its HEAD route before this runs.
    route.preParsing = [accessCheckOf(spec, authenticator, source, admins), ...[route.preParsing ?? []].flat()];
  });
}

/**
 * The access check of a route that declares `spec`. When what it needs is at hand (no
 * credential or a room token in use, and a room the cache holds) it decides at once, without
 * a promise; otherwise it waits for the reads.
 */
function accessCheckOf(spec: RouteAccess, authenticator: Authenticator, source: AccessSource, admins: InstanceAdmins) {
  const roomParam = 'roomParam' in spec && spec.roomParam ? spec.roomParam : 'roomId';
  const deckRoute = 'deckObject' in spec ? spec.deckObject : undefined;
  const roomOf = 'room' in spec ? spec.roomOf : undefined;
  const credentialInQuery = 'credentialInQuery' in spec;
  const basicAuth = 'room' in spec && spec.basicAuth === true;
  const embedRoute = {
    need: 'room' in spec ? spec.room : 'roomInBody' in spec ? spec.roomInBody : undefined,
    embeddable: 'room' in spec && spec.embed === true,
  };
  /** An embed key limited to some layers hears 404 for another layer, as if it were not there. */
  const layerOf = (request: FastifyRequest) => {
    if (!deckRoute || (deckRoute.type !== 'layer' && deckRoute.type !== 'raster')) return;
    const { id } = deckObjectOf(deckRoute, request);
    if (!seesLayer(request.caller, id ?? '')) throw notFound(deckRoute.what);
  };

  const roomIdOf = (request: FastifyRequest) => {
    const roomId = (request.params as Record<string, unknown>)[roomParam];
    if (roomId !== undefined && !isRoomId(roomId)) throw invalidField(roomParam, ROOM_ID_PROBLEM);
    return roomId as string | undefined;
  };
  const headerOf = (request: FastifyRequest) => {
    if (request.headers.authorization !== undefined || !credentialInQuery) return request.headers.authorization;
    const queryToken = (request.query as { access_token?: unknown }).access_token;
    return typeof queryToken === 'string' ? `Bearer ${queryToken}` : undefined;
  };

  /** Decides without waiting when it can: true when decided (a refusal is thrown). */
  const checkNow = (request: FastifyRequest): boolean => {
    const roomId = roomIdOf(request);
    const caller = authenticator.resolveNow(headerOf(request), basicAuth);
    if (!caller) return false;
    request.caller = caller;
    embedKeyMay(caller, { ...embedRoute, method: request.method });
    if ('session' in spec) {
      requireSession(caller);
    } else if ('admin' in spec) {
      requireSession(caller);
      return false; // the user's row decides
    } else if ('roomInBody' in spec) {
      if (caller.kind === 'anonymous') throw unauthorized();
      if (caller.kind === 'token') return false;
    } else if ('room' in spec && !(roomOf || deckRoute)) {
      if (!authorizeKnownRoom(source, roomId as string, caller, spec.room, request)) return false;
    } else if ('room' in spec) {
      return false;
    }
    return true;
  };

  const check = async (request: FastifyRequest) => {
    const roomId = roomIdOf(request);
    request.caller = await authenticator.resolve(headerOf(request), basicAuth);
    embedKeyMay(request.caller, { ...embedRoute, method: request.method });
    if ('session' in spec) {
      requireSession(request.caller);
      return;
    }
    if ('admin' in spec) {
      // Tokens and anonymous callers are refused before the user's row is read.
      const { userId } = requireSession(request.caller);
      const user = await source.userById(userId);
      requireAdmin(request.caller, user !== undefined && admins.isAdmin(user));
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
    const deckObject = deckRoute ? deckObjectOf(deckRoute, request) : undefined;
    const { room, grant } = roomOf
      ? await authorizeObject(
          source,
          roomOf,
          (request.params as Record<string, string>)[roomOf.param],
          request.caller,
          spec.room,
          deckObject,
        )
      : await authorizeRoom(source, roomId as string, request.caller, spec.room, deckObject);
    request.grant = grant;
    if (room) request.room = room;
    layerOf(request);
  };

  return function accessCheck(
    request: FastifyRequest,
    _reply: FastifyReply,
    _payload: unknown,
    done: (error?: Error | null) => void,
  ) {
    const refuse = (error: Error) => done(basicAuth ? challenged(error, request) : error);
    try {
      if (checkNow(request)) return done();
    } catch (error) {
      return refuse(error as Error);
    }
    check(request).then(() => done(), refuse);
  };
}

/**
 * A 401 of a route that takes HTTP Basic, with its challenge: `Basic realm="Maproom"`, which
 * QGIS answers by asking for a name and password, curl and GDAL (`GDAL_HTTP_AUTH=ANY`) by
 * sending theirs, a browser's address bar with its login dialog. A request that sent a Bearer
 * credential, a script of a browser page (`Sec-Fetch-Mode` other than `navigate`: the web
 * application's map loading tiles) and a frame (`Sec-Fetch-Dest` other than `document`: another
 * site's page framing the address) hear `Bearer realm="Maproom"` instead, which opens no dialog.
 */
function challenged(error: Error, request: FastifyRequest): Error {
  if (!(error instanceof AppError) || error.statusCode !== 401) return error;
  const header = request.headers.authorization;
  const fetchMode = request.headers['sec-fetch-mode'];
  const fetchDest = request.headers['sec-fetch-dest'];
  // A browser asks only for what its address bar opens, never for a frame another site shows.
  const basic =
    (header === undefined || header === '' || isBasicScheme(header)) &&
    (fetchMode === undefined || (fetchMode === 'navigate' && (fetchDest === undefined || fetchDest === 'document')));
  return withChallenge(error, basic ? 'Basic realm="Maproom"' : 'Bearer realm="Maproom"');
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
