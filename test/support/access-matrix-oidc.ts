import { get, type RouteEntry } from './access-matrix-routes.js';

/**
 * The expectation table's entries for sign-in with identity providers (merged into
 * access-matrix-table.ts). All are public: they look at no credential. The matrix's service has
 * no provider, so the start and the callback (browser redirects, walked end to end against a
 * real provider in oidc-sign-in.test.ts and oidc-refusals.test.ts) answer 404 to everyone here:
 * what the matrix checks is that no credential changes that.
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
};
