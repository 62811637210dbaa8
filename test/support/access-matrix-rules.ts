import { TOKEN_ERRORS } from '../helpers.js';

/**
 * The interface's access rules, restated for the access-matrix test independently of
 * src/auth/access.ts: who may call a route of each rule, and the exact refusal the others
 * hear. Sources: docs/http-interface.md (Authentication, rules 1-8, permissions table),
 * docs/contract-decisions.md ("Rooms" roles, "Jobs", "Callers that may write but not read")
 * and docs/decisions.md (Errors: 401 anonymous, 403 stranger, token errors).
 */

export type Permission = 'read' | 'write' | 'upload';

/** The three kinds of room every room route is tried on. */
export type RoomKind = 'private' | 'public' | 'publicDeck';
export const ROOM_KINDS: readonly RoomKind[] = ['private', 'public', 'publicDeck'];

export type UserRole = 'stranger' | 'viewer' | 'editor' | 'owner';

/** One kind of caller. Tokens are tokens of the room under test unless `foreign`. */
export type MatrixCaller =
  | { name: 'anonymous'; kind: 'anonymous' }
  | { name: UserRole; kind: 'user'; role: UserRole }
  | { name: string; kind: 'token'; permissions: readonly Permission[] }
  | { name: 'token of another room'; kind: 'foreignToken' }
  | { name: 'revoked token' | 'expired token'; kind: 'deadToken' }
  | { name: 'embed key'; kind: 'embedKey' }
  | { name: string; kind: 'basicToken'; permissions: readonly Permission[] };

/** Every non-empty subset of the token permissions. */
export const PERMISSION_SUBSETS: readonly (readonly Permission[])[] = [
  ['read'],
  ['write'],
  ['upload'],
  ['read', 'write'],
  ['read', 'upload'],
  ['write', 'upload'],
  ['read', 'write', 'upload'],
];

export const tokenName = (permissions: readonly Permission[]) => `token ${permissions.join('+')}`;
const basicName = (permissions: readonly Permission[]) => `${tokenName(permissions)} as HTTP Basic`;

export const MATRIX_CALLERS: readonly MatrixCaller[] = [
  { name: 'anonymous', kind: 'anonymous' },
  { name: 'stranger', kind: 'user', role: 'stranger' },
  { name: 'viewer', kind: 'user', role: 'viewer' },
  { name: 'editor', kind: 'user', role: 'editor' },
  { name: 'owner', kind: 'user', role: 'owner' },
  ...PERMISSION_SUBSETS.map(
    (permissions): MatrixCaller => ({ name: tokenName(permissions), kind: 'token', permissions }),
  ),
  { name: 'token of another room', kind: 'foreignToken' },
  { name: 'revoked token', kind: 'deadToken' },
  { name: 'expired token', kind: 'deadToken' },
  { name: 'embed key', kind: 'embedKey' },
  // A room token as the password of HTTP Basic (docs/decisions.md, "HTTP Basic for GIS clients").
  ...([['read'], ['write']] as const).map(
    (permissions): MatrixCaller => ({ name: basicName(permissions), kind: 'basicToken', permissions }),
  ),
];

/** What a route needs on its room (the names of the service's `config.access` needs). */
export type Need =
  | 'info'
  | 'authenticated'
  | 'read'
  | 'deck'
  | 'comment'
  | 'write'
  | 'upload'
  | 'member'
  | 'presence'
  | 'editor'
  | 'owner';

/**
 * A route's rule as the expectation table states it:
 * - `public`: no credential needed, none is looked at (health, sign-up, log-in, verify-email);
 * - `session`: a user session, every room token refused; `existingRoom: 'read'` adds the
 *   service's own check that the caller may read the (existing) room;
 * - `need`: a need on the room of the path; `byId` when the object is addressed by its id
 *   alone, so that callers who may not see its room hear 404; `shownByPublicDeck` when
 *   anyone may also read the object because a public deck shows it (docs/contract-decisions.md: "Images
 *   and icons of markers that a public deck shows are readable by anyone"; the probes
 *   address such an object); `embed` when an embed key of the room may call it (a read an
 *   embedded map needs: docs/decisions.md, "Embedding"); `basic` when a room token may also
 *   come as the password of HTTP Basic (the routes GIS clients read: docs/decisions.md, "HTTP
 *   Basic for GIS clients"; every other route refuses a Basic header with 401);
 * - `listen`: the live channel, whose access is checked on the socket (live/live.test.ts);
 * - `admin`: a session of an instance admin; other sessions 403 forbidden, tokens 403
 *   api_token_not_allowed, nobody 401 (no caller of the matrix is an admin).
 */
export type Rule =
  | { public: true }
  | { session: true; existingRoom?: 'read' }
  | { need: Need; byId?: true; shownByPublicDeck?: true; embed?: true; basic?: true }
  | { listen: true }
  | { admin: true };

/** Either the caller passes the access rules, or the exact refusal it hears. */
export type Outcome = { allowed: true } | Refusal;
export interface Refusal {
  status: number;
  error: string;
  /** The exact message, where the interface names one. */
  message?: string;
}

const ALLOWED: Outcome = { allowed: true };
const unauthorized: Refusal = { status: 401, error: 'unauthorized' };
const forbidden: Refusal = { status: 403, error: 'forbidden' };
const deadToken: Refusal = { status: 401, error: 'unauthorized', message: TOKEN_ERRORS.invalid };
const basicNotHere: Refusal = { status: 401, error: 'unauthorized', message: TOKEN_ERRORS.basicNotHere };
const tokenNotAllowed: Refusal = { status: 403, error: 'api_token_not_allowed' };
const wrongRoom: Refusal = { status: 403, error: 'forbidden', message: TOKEN_ERRORS.wrongRoom };
const lacks = (permission: Permission): Refusal => ({
  status: 403,
  error: 'forbidden',
  message: `API token lacks '${permission}' permission`,
});

const SESSION_ONLY_NEEDS: ReadonlySet<Need> = new Set(['member', 'editor', 'owner']);
const embedReadOnly: Refusal = { status: 403, error: 'embed_key_read_only' };
const embedNotAllowed: Refusal = { status: 403, error: 'embed_key_not_allowed' };
/** An embed key reads like a room token with read only; a change (or a need that writes) is read-only's refusal. */
const READ_TOKEN: MatrixCaller = { name: 'token read', kind: 'token', permissions: ['read'] };
const CHANGING_NEEDS: ReadonlySet<Need> = new Set(['comment', 'write', 'upload']);

/**
 * An embed key of the room (docs/decisions.md, "Embedding"): the routes that admit it (`embed`,
 * GET only) treat it as a read token; session-only needs refuse it as any token; any other
 * route is 403 embed_key_read_only for a change, embed_key_not_allowed for a read.
 */
function embedKeyOutcome(need: Need, embed: boolean, method: string, room: RoomKind): Outcome {
  if (SESSION_ONLY_NEEDS.has(need)) return tokenNotAllowed;
  if (embed && method === 'GET') return roomOutcome(need, READ_TOKEN, room);
  return method !== 'GET' || CHANGING_NEEDS.has(need) ? embedReadOnly : embedNotAllowed;
}

/** The token permission each need asks for (none: any token of the room passes). */
const TOKEN_PERMISSION: Record<Need, Permission | null> = {
  info: 'read', // decisions: a token without read learns nothing of the room, even where anonymous may
  authenticated: null,
  read: 'read',
  deck: 'read',
  comment: 'write',
  write: 'write',
  upload: 'upload',
  member: null,
  presence: 'read', // members and the room's tokens with read (docs/decisions.md, Presence)
  editor: null,
  owner: null,
};

/** What each member role may do (docs/contract-decisions.md "Rooms"; rule 8). */
const ROLE_NEEDS: Record<Exclude<UserRole, 'stranger'>, readonly Need[]> = {
  owner: [
    'info',
    'authenticated',
    'read',
    'deck',
    'comment',
    'write',
    'upload',
    'member',
    'presence',
    'editor',
    'owner',
  ],
  editor: ['info', 'authenticated', 'read', 'deck', 'comment', 'write', 'upload', 'member', 'presence', 'editor'],
  viewer: ['info', 'authenticated', 'read', 'deck', 'comment', 'member', 'presence'],
};

/** What anyone may read without being a member: public rooms, and the deck when it is public. */
function openToEveryone(need: Need, room: RoomKind) {
  if (need === 'info') return true;
  if (need === 'read') return room === 'public';
  if (need === 'deck') return room === 'public' || room === 'publicDeck';
  return false;
}

function userOutcome(need: Need, role: UserRole, room: RoomKind): Outcome {
  if (role !== 'stranger' && ROLE_NEEDS[role].includes(need)) return ALLOWED;
  if (need === 'authenticated' || openToEveryone(need, room)) return ALLOWED;
  return forbidden;
}

/** The outcome of a need on a room for one caller (before any 404 for objects addressed by id). */
function roomOutcome(need: Need, caller: MatrixCaller, room: RoomKind): Outcome {
  switch (caller.kind) {
    case 'deadToken':
      return deadToken;
    case 'anonymous':
      return openToEveryone(need, room) ? ALLOWED : unauthorized;
    case 'user':
      return userOutcome(need, caller.role, room);
    case 'foreignToken':
      return SESSION_ONLY_NEEDS.has(need) ? tokenNotAllowed : wrongRoom;
    case 'embedKey':
      throw new Error('embed keys: embedKeyOutcome');
    case 'basicToken':
      throw new Error('HTTP Basic: expectedOutcome');
    case 'token': {
      if (SESSION_ONLY_NEEDS.has(need)) return tokenNotAllowed;
      const permission = TOKEN_PERMISSION[need];
      return permission && !caller.permissions.includes(permission) ? lacks(permission) : ALLOWED;
    }
  }
}

/** The outcome the interface promises for a route of `rule`, called by `caller` on a room of `room`. */
export function expectedOutcome(rule: Rule, caller: MatrixCaller, room: RoomKind, method = 'GET'): Outcome {
  if ('public' in rule) return ALLOWED;
  if ('listen' in rule) throw new Error('the live channel is checked in live/live.test.ts');
  if (caller.kind === 'basicToken') {
    // Where a route takes it, the token as it is sent as Bearer; elsewhere no credential at all.
    if (!('need' in rule) || !rule.basic) return basicNotHere;
    return expectedOutcome(
      rule,
      { name: tokenName(caller.permissions), kind: 'token', permissions: caller.permissions },
      room,
      method,
    );
  }
  if (caller.kind === 'deadToken') return deadToken;
  if ('admin' in rule) {
    if (caller.kind === 'token' || caller.kind === 'foreignToken' || caller.kind === 'embedKey') return tokenNotAllowed;
    return caller.kind === 'anonymous' ? unauthorized : forbidden;
  }
  if ('session' in rule) {
    if (caller.kind === 'token' || caller.kind === 'foreignToken' || caller.kind === 'embedKey') return tokenNotAllowed;
    if (caller.kind === 'anonymous') return unauthorized;
    return rule.existingRoom ? userOutcome(rule.existingRoom, caller.role, room) : ALLOWED;
  }
  const deckShows =
    rule.shownByPublicDeck && room === 'publicDeck' && (caller.kind === 'anonymous' || caller.kind === 'user');
  const outcome =
    caller.kind === 'embedKey'
      ? embedKeyOutcome(rule.need, rule.embed === true, method, room)
      : deckShows
        ? roomOutcome('deck', caller, room)
        : roomOutcome(rule.need, caller, room);
  if (!rule.byId || 'allowed' in outcome) return outcome;
  // An object addressed by id alone: only a token of its own room, and a caller who may read
  // the room (and so knows the object), hear why they are refused.
  if (caller.kind === 'token' || caller.kind === 'embedKey' || 'allowed' in roomOutcome('read', caller, room))
    return outcome;
  return { status: 404, error: 'not_found' };
}

/** Whether a token with `permissions` passes `rule` and lacks read: it must get write-only answers. */
export function isWriteOnlyCaller(rule: Rule, permissions: readonly Permission[]) {
  if (!('need' in rule) || permissions.includes('read')) return false;
  const permission = TOKEN_PERMISSION[rule.need];
  return !SESSION_ONLY_NEEDS.has(rule.need) && (permission === null || permissions.includes(permission));
}

/** Needs a room token can pass (the others are session-only, or the route is not a room's). */
export function tokensMayCall(rule: Rule) {
  return 'need' in rule && !SESSION_ONLY_NEEDS.has(rule.need);
}
