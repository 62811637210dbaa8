import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { assertOk, call, postMultipart, type Response, type TestApp, type Users } from '../helpers.js';

/** What the bulk-import and job tests share: GeoJSON points, and the import and job calls. */

/** A guard against a job that never ends (not a timing assertion). */
export const JOB_DEADLINE_MS = 180_000;

type Feature = { type: 'Feature'; geometry: unknown; properties?: unknown };

export const point = (i: number, properties: Record<string, unknown> | null = { title: `p-${i}` }): Feature => ({
  type: 'Feature',
  geometry: { type: 'Point', coordinates: [((i * 0.0137) % 360) - 180, ((i * 0.0071) % 180) - 90] },
  properties,
});

/** A FeatureCollection text of `n` numbered points titled `p-<i>`, built as text (large ones stay cheap). */
export function pointsText(n: number): string {
  const parts: string[] = [];
  for (let i = 0; i < n; i++) parts.push(JSON.stringify(point(i)));
  return `{"type":"FeatureCollection","features":[${parts.join(',')}]}`;
}

export const collection = (features: unknown[]) => JSON.stringify({ type: 'FeatureCollection', features });

export const isTerminal = (job: { stage: string }) => job.stage === 'complete' || job.stage === 'error';

/**
 * The bulk-import calls of a test file, bound to its world (read at each call, so the file can
 * create them at load time and set the world in `before`); the owner's credential by default.
 */
export function bulkImportCalls(world: () => { t: TestApp; users: Pick<Users, 'owner'> }) {
  const app = () => world().t.app;
  const owner = () => world().users.owner.token;

  /** `auth` null sends no credential. */
  async function postImport(
    roomId: string,
    text: string,
    auth: string | null = owner(),
    field = 'file',
  ): Promise<Response> {
    return postMultipart(
      app(),
      `/api/rooms/${roomId}/bulk-import`,
      { [field]: { data: text, filename: 'points.geojson' } },
      auth ?? undefined,
    );
  }

  /** Starts an import and returns its job id (checking the documented answer). */
  async function startImport(roomId: string, text: string, auth: string = owner()): Promise<string> {
    const body = assertOk(await postImport(roomId, text, auth));
    assert.deepEqual(Object.keys(body), ['jobId']);
    assert.match(body.jobId, /^bulk-import-[A-Za-z0-9_-]+$/);
    return body.jobId;
  }

  /** Polls GET /api/jobs/:jobId until `done` holds; `seen` collects every poll. */
  async function pollJob(
    jobId: string,
    done: (job: any) => boolean = isTerminal,
    auth = owner(),
    seen: any[] = [],
    intervalMs = 25,
  ) {
    const deadline = Date.now() + JOB_DEADLINE_MS;
    for (;;) {
      const job = assertOk(await call(app(), 'GET', `/api/jobs/${jobId}`, { auth }));
      seen.push(job);
      assert.ok(
        ['queued', 'processing', 'complete', 'error'].includes(job.stage),
        `documented stage: ${JSON.stringify(job)}`,
      );
      if (done(job)) return job;
      if (isTerminal(job)) throw new Error(`job ended before the awaited state: ${JSON.stringify(job)}`);
      if (Date.now() > deadline)
        throw new Error(`job ${jobId} never reached the awaited state; last ${JSON.stringify(job)}`);
      await sleep(intervalMs);
    }
  }

  async function markerCount(roomId: string): Promise<number> {
    return assertOk(await call(app(), 'GET', `/api/rooms/${roomId}`, { auth: owner() })).counts.markers;
  }

  async function listMarkers(roomId: string): Promise<any[]> {
    const body = assertOk(await call(app(), 'GET', `/api/rooms/${roomId}/markers`, { auth: owner() }));
    assert.equal(body.count, body.markers.length);
    return body.markers;
  }

  async function historyEvents(roomId: string, limit = 500): Promise<any[]> {
    return assertOk(await call(app(), 'GET', `/api/rooms/${roomId}/history?limit=${limit}`, { auth: owner() })).events;
  }

  async function registerIcon(roomId: string): Promise<string> {
    const svg =
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><circle cx="12" cy="12" r="10" fill="#e33"/></svg>';
    const parts = { icon: { data: svg, filename: 'pin.svg', type: 'image/svg+xml' }, name: 'Pin', size: '32' };
    return assertOk(await postMultipart(app(), `/api/rooms/${roomId}/marker-icons`, parts, owner()), 201).iconId;
  }

  /** Asserts that a job ended in `error` with a message matching every pattern. */
  async function assertJobFails(roomId: string, text: string, ...patterns: RegExp[]) {
    const job = await pollJob(await startImport(roomId, text));
    assert.equal(job.stage, 'error', JSON.stringify(job));
    assert.equal(typeof job.message, 'string');
    for (const pattern of patterns) assert.match(job.message, pattern);
    assert.equal(job.markersCreated, undefined, JSON.stringify(job));
    return job;
  }

  return { postImport, startImport, pollJob, markerCount, listMarkers, historyEvents, registerIcon, assertJobFails };
}
