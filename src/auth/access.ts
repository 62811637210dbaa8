import {
  embedKeyNotAllowed,
  embedKeyReadOnly,
  forbidden,
  notFound,
  tokenLacks,
  tokenNotAllowed,
  tokenWrongRoom,
  unauthorized,
} from '../errors.js';
import type { TokenPermission } from './room-tokens.js';

export type Role = 'owner' | 'editor' | 'viewer';

/** Who is calling: nobody, a signed-in user, or a room API token. */
export type Caller =
  | { kind: 'anonymous' }
  | {
      kind: 'user';
      userId: string;
      email: string;
      emailVerified: boolean;
      /** The session JWT's id and expiry (what logging out revokes), when the person signed in (ms, kept by renewals), whether a provider issued it. */
      session?: { id: string; expiresAt: number; signedInAt: number; external: boolean };
    }
  | {
      kind: 'token';
      tokenId: string;
      roomId: string;
      permissions: TokenPermission[];
      /** An embed key (`mre_`): a room token with read only, on the routes that admit it (`embedKeyMay`). */
      embed?: EmbedScope;
    };

/** What an embed key reaches besides its room's read routes: its layers (null: every layer). */
export interface EmbedScope {
  layers: ReadonlySet<string> | null;
}

/** Whether the caller may see this vector or raster layer: anyone but an embed key limited to other layers. */
export const seesLayer = (caller: Caller, layerId: string): boolean =>
  caller.kind !== 'token' || !caller.embed?.layers || caller.embed.layers.has(layerId);

/** The needs that change a room (or comment on it): what an embed key is refused as read-only. */
const CHANGING_NEEDS: ReadonlySet<RoomNeed> = new Set(['comment', 'write', 'upload']);

/**
 * An embed key on a route: the routes that declare `embed` admit it (then `access()` treats it
 * as a room token with read only); every other route refuses it. Session-only needs refuse it
 * as any room token (403 api_token_not_allowed); a change (any method but GET and HEAD, or a
 * need that writes) is 403 embed_key_read_only; any other read is 403 embed_key_not_allowed.
 * Routes without a room need (sessions, admin) refuse it themselves, as a room token.
 */
export function embedKeyMay(caller: Caller, route: { need?: RoomNeed; embeddable: boolean; method: string }): void {
  if (caller.kind !== 'token' || !caller.embed || route.need === undefined) return;
  if (isSessionOnly(route.need)) throw tokenNotAllowed();
  const reads = route.method === 'GET' || route.method === 'HEAD';
  if (reads && route.embeddable) return;
  if (!reads || CHANGING_NEEDS.has(route.need)) throw embedKeyReadOnly();
  throw embedKeyNotAllowed();
}

/** Who made a change, as history records it: a user or a room token. */
export interface Actor {
  kind: 'user' | 'token';
  id: string;
}

/** The acting user or token; anonymous callers never reach a change (the access check refuses them). */
export function actorOf(caller: Caller): Actor {
  if (caller.kind === 'user') return { kind: 'user', id: caller.userId };
  if (caller.kind === 'token') return { kind: 'token', id: caller.tokenId };
  throw unauthorized();
}

/** What a route needs of the caller on its room. */
export type RoomNeed =
  | 'info' // anyone may ask; the answer depends on read (a token without read is refused)
  | 'listen' // the live channel: any caller of an existing room; read is checked on the socket
  | 'authenticated' // any user, or a token of this room
  | 'read' // room content
  | 'deck' // the presentation: read, or anyone when the deck is public
  | 'shownByDeck' // a photo, icon, layer or raster: read, or anyone when a slide of the public deck shows it
  | 'comment' // comments: viewers too; tokens need write
  | 'write' // content changes: owner or editor; tokens need write
  | 'upload' // layer files: owner or editor; tokens need upload
  | 'member' // session of any member (member list)
  | 'editor' // session of owner or editor (presentation visibility)
  | 'owner'; // session of the owner (settings, members, tokens, clear, delete)

/** The facts about a room that access depends on, with the calling user's role. */
export interface RoomFacts {
  isPublic: boolean;
  presentationIsPublic: boolean;
  /** The calling user's role in the room, null when not a member or not a user. */
  role: Role | null;
  /**
   * For `shownByDeck`: the object the request names (`what`, for the 404) and whether a slide
   * of the room shows it. Looked up only when the answer hangs on it (`visitsOnlyTheDeck`).
   */
  deckObject?: { what: string; shown: boolean };
}

export type Capability = 'read' | 'comment' | 'write' | 'upload' | 'member' | 'editor' | 'owner';

/** What the caller may do in the room, as decided by `access`. */
export interface Grant {
  role: Role | 'none';
  capabilities: Set<Capability>;
}

const ROLE_CAPABILITIES: Record<Role, Capability[]> = {
  owner: ['read', 'comment', 'write', 'upload', 'member', 'editor', 'owner'],
  editor: ['read', 'comment', 'write', 'upload', 'member', 'editor'],
  viewer: ['read', 'comment', 'member'],
};

const SESSION_ONLY: ReadonlySet<RoomNeed> = new Set(['member', 'editor', 'owner']);
/** Needs no room token passes, whatever its room and permissions. */
export const isSessionOnly = (need: RoomNeed) => SESSION_ONLY.has(need);

/** The capability each need asks for (info and authenticated ask for none). */
const NEED_CAPABILITY: Partial<Record<RoomNeed, Capability>> = {
  read: 'read',
  deck: 'read',
  shownByDeck: 'read',
  comment: 'comment',
  write: 'write',
  upload: 'upload',
  member: 'member',
  editor: 'editor',
  owner: 'owner',
};

/** The token permission named in the error when a token lacks a capability. */
const TOKEN_PERMISSION_FOR: Record<Capability, TokenPermission> = {
  read: 'read',
  comment: 'write',
  write: 'write',
  upload: 'upload',
  member: 'read',
  editor: 'write',
  owner: 'write',
};

/** The grants every request shares (never changed): one per role, and those of callers without one. */
const ROLE_GRANTS: Record<Role, Grant> = {
  owner: { role: 'owner', capabilities: new Set(ROLE_CAPABILITIES.owner) },
  editor: { role: 'editor', capabilities: new Set(ROLE_CAPABILITIES.editor) },
  viewer: { role: 'viewer', capabilities: new Set(ROLE_CAPABILITIES.viewer) },
};
const PUBLIC_GRANT: Grant = { role: 'none', capabilities: new Set(['read']) };
const NO_GRANT: Grant = { role: 'none', capabilities: new Set() };
/** A room token's grant, made once per caller (the authenticator keeps one caller per token in use). */
const tokenGrants = new WeakMap<Caller, Grant>();

/** What the caller may do in the room; the answer is shared between requests and must not be changed. */
export function capabilitiesOf(room: RoomFacts, caller: Caller): Grant {
  if (caller.kind === 'token') {
    let grant = tokenGrants.get(caller);
    if (!grant) {
      const caps = new Set<Capability>(caller.permissions);
      if (caps.has('write')) caps.add('comment');
      grant = { role: 'none', capabilities: caps };
      tokenGrants.set(caller, grant);
    }
    return grant;
  }
  if (caller.kind === 'user' && room.role) return ROLE_GRANTS[room.role];
  return room.isPublic ? PUBLIC_GRANT : NO_GRANT;
}

/**
 * Whether what the caller may reach of the room's objects hangs on the public deck: it may
 * not read the room, and the deck is public. Only then does `shownByDeck` look at the slides.
 */
export function visitsOnlyTheDeck(room: RoomFacts, caller: Caller): boolean {
  return caller.kind !== 'token' && room.presentationIsPublic && !capabilitiesOf(room, caller).capabilities.has('read');
}

/**
 * The one access check. `room` is null when no room has the id. Throws the interface's
 * exact errors; returns what the caller may do.
 */
export function access(room: RoomFacts | null, roomId: string, caller: Caller, need: RoomNeed): Grant {
  if (caller.kind === 'token') {
    if (SESSION_ONLY.has(need)) throw tokenNotAllowed();
    if (caller.roomId !== roomId) throw tokenWrongRoom();
  }
  if (!room) throw notFound('Room');
  const grant = capabilitiesOf(room, caller);
  const capability = NEED_CAPABILITY[need];
  if (need === 'listen') return grant;
  // A room token without read learns nothing of the room, even where anonymous readers may.
  if (
    caller.kind === 'token' &&
    (need === 'info' || need === 'deck' || need === 'shownByDeck') &&
    !grant.capabilities.has('read')
  ) {
    throw tokenLacks('read');
  }
  if (need === 'info') return grant;
  if (need === 'authenticated') {
    if (caller.kind === 'anonymous') throw unauthorized();
    return grant;
  }
  if (need === 'deck' && room.presentationIsPublic) return grant;
  if (need === 'shownByDeck' && visitsOnlyTheDeck(room, caller)) {
    // A visitor of the public deck reaches what its slides show; any other object of the room
    // is not there for it (404, as for an unknown one).
    if (room.deckObject?.shown) return grant;
    throw notFound(room.deckObject?.what ?? 'Object');
  }
  if (!capability || grant.capabilities.has(capability)) return grant;

  if (caller.kind === 'token') throw caller.embed ? embedKeyReadOnly() : tokenLacks(TOKEN_PERMISSION_FOR[capability]);
  if (caller.kind === 'anonymous') throw unauthorized();
  if (!room.role) throw forbidden('You are not a member of this room');
  throw forbidden(`The ${room.role} role does not allow this operation`);
}

/** A route that needs a user session but no room: tokens are refused, anonymous is 401. */
export function requireSession(caller: Caller): Extract<Caller, { kind: 'user' }> {
  if (caller.kind === 'token') throw tokenNotAllowed();
  if (caller.kind === 'anonymous') throw unauthorized();
  return caller;
}

/**
 * A route of the instance admin: a session of an admin passes; any other session is 403
 * forbidden, a room token 403 api_token_not_allowed, nobody 401. `isAdmin` is the signed-in
 * user's standing (InstanceAdmins, read from the user's row for each request).
 */
export function requireAdmin(caller: Caller, isAdmin: boolean): Extract<Caller, { kind: 'user' }> {
  const user = requireSession(caller);
  if (!isAdmin) throw forbidden('Only an administrator of this Maproom may do this');
  return user;
}
