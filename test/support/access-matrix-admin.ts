import { get, invalid, type RouteEntry } from './access-matrix-routes.js';

/**
 * The expectation table's entries for the instance admin (merged into access-matrix-table.ts):
 * a session of an admin only. No caller of the matrix is an admin, so every one of them is
 * refused (401, 403 forbidden, tokens 403 api_token_not_allowed) and nothing changes; what an
 * admin gets is tested in admin*.test.ts. `ok` is what an admin's probe would answer.
 */

const admin = (probe: RouteEntry['probe'], ok: number): RouteEntry => ({ rule: { admin: true }, probe, ok });
const USER = 'user-absent000000000000';
const JOB = 'job-absent';

export const ADMIN_ROUTES: Record<string, RouteEntry> = {
  'GET /api/admin/users': admin(() => get('/api/admin/users'), 200),
  'POST /api/admin/users/{userId}/disable': admin(() => invalid('POST', `/api/admin/users/${USER}/disable`), 404),
  'POST /api/admin/users/{userId}/enable': admin(() => invalid('POST', `/api/admin/users/${USER}/enable`), 404),
  'DELETE /api/admin/users/{userId}': admin(() => ({ method: 'DELETE', url: `/api/admin/users/${USER}` }), 404),
  'POST /api/admin/users/{userId}/password-reset': admin(
    () => invalid('POST', `/api/admin/users/${USER}/password-reset`),
    404,
  ),
  'GET /api/admin/rooms': admin(() => get('/api/admin/rooms'), 200),
  'PUT /api/admin/rooms/{roomId}/owner': admin((r) => invalid('PUT', `/api/admin/rooms/${r.roomId}/owner`), 400),
  'DELETE /api/admin/rooms/{roomId}': admin((r) => ({ method: 'DELETE', url: `/api/admin/rooms/${r.roomId}` }), 204),
  'GET /api/admin/jobs': admin(() => get('/api/admin/jobs'), 200),
  'POST /api/admin/jobs/{jobId}/retry': admin(() => invalid('POST', `/api/admin/jobs/${JOB}/retry`), 404),
  'POST /api/admin/jobs/{jobId}/cancel': admin(() => invalid('POST', `/api/admin/jobs/${JOB}/cancel`), 404),
  'GET /api/admin/audit': admin(() => get('/api/admin/audit'), 200),
  'GET /api/admin/limits': admin(() => get('/api/admin/limits'), 200),
};
