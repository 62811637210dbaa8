import { get, type RouteEntry } from './access-matrix-routes.js';

/**
 * The expectation table's entries for sign-in with identity providers (merged into
 * access-matrix-table.ts). All are public: they look at no credential. The matrix's service has
 * no provider, so the start and the callback (browser redirects, walked end to end against a
 * real provider in oidc/sign-in.test.ts and oidc/refusals.test.ts) answer 404 to everyone here:
 * what the matrix checks is that no credential changes that. The hand-over needs the callback's
 * cookie, which no credential replaces: 400 to everyone.
 */
export const OIDC_ROUTES: Record<string, RouteEntry> = {
  'GET /api/auth/providers': { rule: { public: true }, probe: () => get('/api/auth/providers'), ok: 200 },
  'GET /api/auth/oidc/{providerId}/start': {
    rule: { public: true },
    probe: () => get('/api/auth/oidc/oidc/start?returnTo=/r/abcdefghij'),
    ok: 404,
  },
  'GET /api/auth/oidc/{providerId}/callback': {
    rule: { public: true },
    probe: () => get('/api/auth/oidc/oidc/callback?code=x&state=y'),
    ok: 404,
  },
  // Without the callback's hand-over cookie (no credential stands for it): 400 sign_in_mismatch to everyone.
  'POST /api/auth/oidc/session': {
    rule: { public: true },
    probe: () => ({ method: 'POST', url: '/api/auth/oidc/session' }),
    ok: 400,
  },
};
