import { base, get, invalid, notMultipart, type RouteEntry } from './access-matrix-routes.js';

/**
 * The expectation table's entries for export, import and clone (merged into
 * access-matrix-table.ts). Probes are cheap: an invalid body (400), a job id that names
 * nothing (404), a JSON body where the import needs multipart (415); the export itself and the
 * manifest answer 200. Export jobs are bound to their room: exports/jobs.test.ts checks
 * another room's job id.
 */
const NO_SUCH_JOB = '00000000-0000-4000-8000-000000000000';

export const EXPORT_ROUTES: Record<string, RouteEntry> = {
  'POST /api/rooms/{roomId}/export': {
    rule: { need: 'read' },
    probe: (r) => invalid('POST', `${base(r)}/export`, { everything: true }),
    ok: 400,
    noWriteOnlyProbe: 'an export needs read; a write-only token is refused',
  },
  'GET /api/rooms/{roomId}/export-size': {
    rule: { need: 'read' },
    probe: (r) => get(`${base(r)}/export-size`),
    ok: 200,
  },
  'POST /api/rooms/{roomId}/export-jobs': {
    rule: { need: 'read' },
    probe: (r) => invalid('POST', `${base(r)}/export-jobs`, { include_tiffs: 'maybe' }),
    ok: 400,
    noWriteOnlyProbe: 'an export job needs read; a write-only token is refused',
  },
  'GET /api/rooms/{roomId}/export-jobs/{jobId}': {
    rule: { need: 'read' },
    probe: (r) => get(`${base(r)}/export-jobs/${NO_SUCH_JOB}`),
    ok: 404,
  },
  'GET /api/rooms/{roomId}/export-jobs/{jobId}/artifact': {
    rule: { need: 'read' },
    probe: (r) => get(`${base(r)}/export-jobs/${NO_SUCH_JOB}/artifact`),
    ok: 404,
  },
  'POST /api/rooms/{roomId}/import': {
    rule: { need: 'write' },
    probe: (r) => notMultipart(`${base(r)}/import`),
    ok: 415,
    noWriteOnlyProbe:
      'the answer is counts of what the sent file held, nothing stored; exports/exports.test.ts imports with a write token',
  },
  'GET /api/rooms/{roomId}/export-manifest': {
    rule: { need: 'read' },
    probe: (r) => get(`${base(r)}/export-manifest`),
    ok: 200,
  },
  'POST /api/rooms/{roomId}/clone-jobs': {
    rule: { need: 'write' },
    probe: (r) => invalid('POST', `${base(r)}/clone-jobs`, {}),
    ok: 400,
    noWriteOnlyProbe: 'the answer is only the job id; exchange/clones.test.ts clones with a write token',
  },
};
