import assert from 'node:assert/strict';
import { base, get, invalid, type Reader, type RouteEntry } from './access-matrix-routes.js';
import { CONTENT_ROUTES } from './access-matrix-content.js';
import { LAYER_ROUTES } from './access-matrix-layers.js';
import { OGC_ROUTES } from './access-matrix-ogc.js';
import { OIDC_ROUTES } from './access-matrix-oidc.js';
import { EXPORT_ROUTES } from './access-matrix-exports.js';
import { RASTER_ROUTES } from './access-matrix-rasters.js';
import { ADMIN_ROUTES } from './access-matrix-admin.js';

/**
 * The expectation table of the access matrix: one entry per route, keyed `METHOD /path` as the
 * OpenAPI document names it. Each states the route's rule and a probe: a request that cannot
 * change anything when the caller is allowed (an invalid body answered 400, an object that
 * does not exist answered 404, or a read), with the status an allowed caller gets. Mutations
 * that room tokens may call also give a VALID request for write-only callers (`writeOnly`);
 * those are the content routes, in access-matrix-content.ts. A new route fails
 * auth/access-matrix.test.ts until it is added here or there.
 */

const isMember = ({ caller }: Reader) => caller.kind === 'user' && caller.role !== 'stranger';

/** Room metadata: `userRole` and `hasAccess` for members only (docs/decisions.md, Rooms). */
function onlyMembersHearTheirRole(body: Record<string, unknown>, reader: Reader) {
  const told = ['userRole', 'hasAccess'].filter((key) => key in body);
  assert.deepEqual(told, isMember(reader) ? ['userRole', 'hasAccess'] : [], 'userRole and hasAccess for members only');
}

/**
 * `/info`: the display settings to whoever may read the room; to others only
 * `{roomId, requiresAuth: true}`, with `presentationIsPublic: true` when the deck is public
 * (docs/contract-decisions.md, "Small rules found by trying the service").
 */
function infoFor(body: Record<string, unknown>, reader: Reader) {
  if (reader.mayRead) {
    assert.equal(body.requiresAuth, false);
    assert.ok('isPublic' in body && 'defaultViewLat' in body, 'the display settings');
    return;
  }
  const expected: Record<string, unknown> = { roomId: body.roomId, requiresAuth: true };
  if (reader.kind === 'publicDeck') expected.presentationIsPublic = true;
  assert.deepEqual(body, expected, `expected ${JSON.stringify(expected)}`);
}

/** `/permissions?action=view`: whether the caller may read, and its role (`none` for non-members and tokens). */
function mayView(body: Record<string, unknown>, reader: Reader) {
  const role = isMember(reader) && reader.caller.kind === 'user' ? reader.caller.role : 'none';
  assert.deepEqual(
    body,
    { hasPermission: reader.mayRead, role },
    `expected hasPermission ${reader.mayRead}, role ${role}`,
  );
}

export const ROUTES: Record<string, RouteEntry> = {
  'GET /api/health': { rule: { public: true }, probe: () => get('/api/health'), ok: 200 },
  'GET /api/ready': { rule: { public: true }, probe: () => get('/api/ready'), ok: 200 },
  // Not a room's or a user's: its own token (METRICS_TOKEN), unset in the matrix's service (404).
  'GET /metrics': {
    rule: { public: true },
    checkedIn:
      'health/metrics.test.ts (404 without METRICS_TOKEN; 401 without the token, with another, a session or Basic)',
  },
  'POST /api/auth/signup': { rule: { public: true }, probe: () => invalid('POST', '/api/auth/signup'), ok: 400 },
  'POST /api/auth/login': { rule: { public: true }, probe: () => invalid('POST', '/api/auth/login'), ok: 400 },
  'POST /api/auth/verify-email': {
    rule: { public: true },
    probe: () => invalid('POST', '/api/auth/verify-email'),
    ok: 400,
  },
  'GET /api/auth/me': { rule: { session: true }, probe: () => get('/api/auth/me'), ok: 200 },
  // Allowed, it ends the matrix users' sessions: the refusals are tested on their own.
  'POST /api/auth/logout': {
    rule: { session: true },
    checkedIn: 'users/logout.test.ts (no credential 401, a room token 403, a malformed header 401)',
  },
  // Every test user is verified: resending answers 409 and sends nothing.
  'POST /api/auth/resend-verification': {
    rule: { session: true },
    probe: () => invalid('POST', '/api/auth/resend-verification'),
    ok: 409,
  },
  // Account recovery and changes: invalid bodies, which an allowed caller hears as 400.
  'POST /api/auth/password-reset': {
    rule: { public: true },
    probe: () => invalid('POST', '/api/auth/password-reset'),
    ok: 400,
  },
  'POST /api/auth/password-reset/confirm': {
    rule: { public: true },
    probe: () => invalid('POST', '/api/auth/password-reset/confirm'),
    ok: 400,
  },
  'POST /api/auth/password': { rule: { session: true }, probe: () => invalid('POST', '/api/auth/password'), ok: 400 },
  'POST /api/auth/email': { rule: { session: true }, probe: () => invalid('POST', '/api/auth/email'), ok: 400 },
  // The language of the caller's e-mails: an unknown one is 400 and changes nothing.
  'PATCH /api/auth/me': {
    rule: { session: true },
    probe: () => invalid('PATCH', '/api/auth/me', { locale: 'xx' }),
    ok: 400,
  },
  'DELETE /api/auth/me': {
    rule: { session: true },
    probe: () => invalid('DELETE', '/api/auth/me', { password: 5 }),
    ok: 400,
  },
  // A renewal changes nothing but hands out a new JWT of the same session.
  'POST /api/auth/session': { rule: { session: true }, probe: () => invalid('POST', '/api/auth/session'), ok: 200 },
  'GET /api/rooms': { rule: { session: true }, probe: () => get('/api/rooms'), ok: 200 },
  'GET /api/users/pending-invitations': {
    rule: { session: true },
    probe: () => get('/api/users/pending-invitations'),
    ok: 200,
  },

  // Rooms and settings.
  'POST /api/rooms/{roomId}': {
    rule: { session: true, existingRoom: 'read' },
    probe: (r) => invalid('POST', base(r)),
    ok: 200,
  },
  'GET /api/rooms/{roomId}': {
    rule: { need: 'read', embed: true },
    probe: (r) => get(base(r)),
    ok: 200,
    answer: onlyMembersHearTheirRole,
  },
  'PATCH /api/rooms/{roomId}': {
    rule: { need: 'owner' },
    probe: (r) => invalid('PATCH', base(r), { name: '' }),
    ok: 400,
  },
  'DELETE /api/rooms/{roomId}': {
    rule: { need: 'owner' },
    probe: (r) => ({ method: 'DELETE', url: base(r) }),
    ok: 200,
    destructive: true,
  },
  'PUT /api/rooms/{roomId}/owner': {
    rule: { need: 'owner' },
    probe: (r) => invalid('PUT', `${base(r)}/owner`),
    ok: 400,
  },
  'GET /api/rooms/{roomId}/info': {
    rule: { need: 'info', embed: true },
    probe: (r) => get(`${base(r)}/info`),
    ok: 200,
    answer: infoFor,
  },
  'PATCH /api/rooms/{roomId}/public': {
    rule: { need: 'owner' },
    probe: (r) => invalid('PATCH', `${base(r)}/public`),
    ok: 400,
  },
  'PATCH /api/rooms/{roomId}/presentation/public': {
    rule: { need: 'editor' },
    probe: (r) => invalid('PATCH', `${base(r)}/presentation/public`),
    ok: 400,
  },
  'PATCH /api/rooms/{roomId}/camera-settings': {
    rule: { need: 'owner' },
    probe: (r) => invalid('PATCH', `${base(r)}/camera-settings`, { autoZoomEnabled: 'yes' }),
    ok: 400,
  },
  'PATCH /api/rooms/{roomId}/timeline-settings': {
    rule: { need: 'owner' },
    probe: (r) => invalid('PATCH', `${base(r)}/timeline-settings`, { groupingMode: 'never' }),
    ok: 400,
  },
  'PATCH /api/rooms/{roomId}/basemaps': {
    rule: { need: 'owner' },
    probe: (r) => invalid('PATCH', `${base(r)}/basemaps`, { basemaps: [{ id: 'Bad id' }] }),
    ok: 400,
  },
  'GET /api/rooms/{roomId}/permissions': {
    rule: { need: 'authenticated', embed: true },
    probe: (r) => get(`${base(r)}/permissions?action=view`),
    ok: 200,
    answer: mayView,
  },
  'POST /api/rooms/{roomId}/clear': {
    rule: { need: 'owner' },
    probe: (r) => ({ method: 'POST', url: `${base(r)}/clear` }),
    ok: 200,
    destructive: true,
  },
  'GET /api/rooms/{roomId}/history': { rule: { need: 'read' }, probe: (r) => get(`${base(r)}/history`), ok: 200 },
  'GET /api/rooms/{roomId}/history/snapshot': {
    rule: { need: 'read' },
    probe: (r) => get(`${base(r)}/history/snapshot?at=${Date.now()}`),
    ok: 200,
  },
  // Read, and only for members and the room's tokens: anonymous and non-member readers of a public room are refused.
  'GET /api/rooms/{roomId}/presence': {
    rule: { need: 'presence' },
    probe: (r) => get(`${base(r)}/presence`),
    ok: 200,
  },
  'GET /api/rooms/{roomId}/live': {
    rule: { listen: true },
    checkedIn:
      'live/live.test.ts (a WebSocket: a token without read, a stranger and a dead token are refused on the socket)',
  },

  // Members, invitations and tokens: owner sessions only.
  'GET /api/rooms/{roomId}/members': { rule: { need: 'member' }, probe: (r) => get(`${base(r)}/members`), ok: 200 },
  'POST /api/rooms/{roomId}/invite': {
    rule: { need: 'owner' },
    probe: (r) => invalid('POST', `${base(r)}/invite`),
    ok: 400,
  },
  'PATCH /api/rooms/{roomId}/members/{userId}': {
    rule: { need: 'owner' },
    probe: (r) => ({ method: 'PATCH', url: `${base(r)}/members/user-absent000000000`, body: { role: 'viewer' } }),
    ok: 404,
  },
  'DELETE /api/rooms/{roomId}/members/{userId}': {
    rule: { need: 'owner' },
    probe: (r) => ({ method: 'DELETE', url: `${base(r)}/members/user-absent000000000` }),
    ok: 404,
  },
  'GET /api/rooms/{roomId}/pending-invitations': {
    rule: { need: 'owner' },
    probe: (r) => get(`${base(r)}/pending-invitations`),
    ok: 200,
  },
  'DELETE /api/rooms/{roomId}/pending-invitations/{email}': {
    rule: { need: 'owner' },
    probe: (r) => ({ method: 'DELETE', url: `${base(r)}/pending-invitations/nobody%40example.com` }),
    ok: 404,
  },
  'POST /api/rooms/{roomId}/accept-invitation': {
    rule: { session: true },
    probe: (r) => ({ method: 'POST', url: `${base(r)}/accept-invitation` }),
    ok: 404,
  },
  'POST /api/rooms/{roomId}/api-tokens': {
    rule: { need: 'owner' },
    probe: (r) => invalid('POST', `${base(r)}/api-tokens`),
    ok: 400,
  },
  'GET /api/rooms/{roomId}/api-tokens': {
    rule: { need: 'owner' },
    probe: (r) => get(`${base(r)}/api-tokens`),
    ok: 200,
  },
  'DELETE /api/rooms/{roomId}/api-tokens/{tokenId}': {
    rule: { need: 'owner' },
    probe: (r) => ({ method: 'DELETE', url: `${base(r)}/api-tokens/token-absent000000000` }),
    ok: 404,
  },

  // Embedding (docs/decisions.md, "Embedding"): owner sessions only; oEmbed answers anyone.
  'GET /api/rooms/{roomId}/embedding': { rule: { need: 'owner' }, probe: (r) => get(`${base(r)}/embedding`), ok: 200 },
  'PATCH /api/rooms/{roomId}/embedding': {
    rule: { need: 'owner' },
    probe: (r) => invalid('PATCH', `${base(r)}/embedding`, { origins: ['https://example.com/a-path'] }),
    ok: 400,
  },
  'POST /api/rooms/{roomId}/embed-keys': {
    rule: { need: 'owner' },
    probe: (r) => invalid('POST', `${base(r)}/embed-keys`),
    ok: 400,
  },
  'GET /api/rooms/{roomId}/embed-keys': {
    rule: { need: 'owner' },
    probe: (r) => get(`${base(r)}/embed-keys`),
    ok: 200,
  },
  'DELETE /api/rooms/{roomId}/embed-keys/{keyId}': {
    rule: { need: 'owner' },
    probe: (r) => ({ method: 'DELETE', url: `${base(r)}/embed-keys/embedkey-absent000000000` }),
    ok: 404,
  },
  'GET /api/oembed': {
    rule: { public: true },
    probe: () => get('/api/oembed?url=https%3A%2F%2Felsewhere.example%2Fr%2Fabcdefghij'),
    ok: 404,
  },
  'POST /api/rooms/{roomId}/webhooks': {
    rule: { need: 'owner' },
    probe: (r) => invalid('POST', `${base(r)}/webhooks`),
    ok: 400,
  },
  'GET /api/rooms/{roomId}/webhooks': {
    rule: { need: 'owner' },
    probe: (r) => get(`${base(r)}/webhooks`),
    ok: 200,
  },
  'PATCH /api/rooms/{roomId}/webhooks/{hookId}': {
    rule: { need: 'owner' },
    probe: (r) => invalid('PATCH', `${base(r)}/webhooks/hook-absent0000000000`, { enabled: true }),
    ok: 404,
  },
  'DELETE /api/rooms/{roomId}/webhooks/{hookId}': {
    rule: { need: 'owner' },
    probe: (r) => ({ method: 'DELETE', url: `${base(r)}/webhooks/hook-absent0000000000` }),
    ok: 404,
  },
  'POST /api/rooms/{roomId}/webhooks/{hookId}/test': {
    rule: { need: 'owner' },
    probe: (r) => ({ method: 'POST', url: `${base(r)}/webhooks/hook-absent0000000000/test` }),
    ok: 404,
  },
  'GET /api/rooms/{roomId}/webhooks/{hookId}/deliveries': {
    rule: { need: 'owner' },
    probe: (r) => get(`${base(r)}/webhooks/hook-absent0000000000/deliveries`),
    ok: 404,
  },

  ...CONTENT_ROUTES,
  ...LAYER_ROUTES,
  ...OGC_ROUTES,
  ...RASTER_ROUTES,
  ...EXPORT_ROUTES,
  ...OIDC_ROUTES,
  ...ADMIN_ROUTES,
};
