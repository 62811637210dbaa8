import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import WebSocket from 'ws';
import {
  adminQuery,
  assertError,
  assertOk,
  call,
  createRoom,
  issueToken,
  PG_ADMIN_URL,
  postMultipart,
  type Response,
  scaffold,
  TEST_DB,
  type TestApp,
  TOKEN_ERRORS,
  type Users,
  uniqueEmail,
  uniqueRoomId,
} from '../helpers.js';

/**
 * Bulk marker import and the job queue: POST /api/rooms/:roomId/bulk-import answers
 * `{jobId}`, polled at GET /api/jobs/:jobId (and /api/layers/jobs/:jobId) for
 * `{stage, progress, message}`; jobs are bound to their room and outlive restarts and crashes.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** A guard against a job that never ends (not a timing assertion). */
const JOB_DEADLINE_MS = 180_000;

type Feature = { type: 'Feature'; geometry: unknown; properties?: unknown };

const point = (i: number, properties: Record<string, unknown> | null = { title: `p-${i}` }): Feature => ({
  type: 'Feature',
  geometry: { type: 'Point', coordinates: [((i * 0.0137) % 360) - 180, ((i * 0.0071) % 180) - 90] },
  properties,
});

/** A FeatureCollection text of `n` numbered points titled `p-<i>`, built as text (large ones stay cheap). */
function pointsText(n: number): string {
  const parts: string[] = [];
  for (let i = 0; i < n; i++) parts.push(JSON.stringify(point(i)));
  return `{"type":"FeatureCollection","features":[${parts.join(',')}]}`;
}

const collection = (features: unknown[]) => JSON.stringify({ type: 'FeatureCollection', features });

let t: TestApp;
let users: Users;
let room: string;
let otherRoom: string;
let wsBase: string;

/** `auth` null sends no credential. */
async function postImport(
  roomId: string,
  text: string,
  auth: string | null = users.owner.token,
  field = 'file',
): Promise<Response> {
  return postMultipart(
    t.app,
    `/api/rooms/${roomId}/bulk-import`,
    { [field]: { data: text, filename: 'points.geojson' } },
    auth ?? undefined,
  );
}

/** Starts an import and returns its job id (checking the documented answer). */
async function startImport(roomId: string, text: string, auth: string = users.owner.token): Promise<string> {
  const body = assertOk(await postImport(roomId, text, auth));
  assert.deepEqual(Object.keys(body), ['jobId']);
  assert.match(body.jobId, /^bulk-import-[A-Za-z0-9_-]+$/);
  return body.jobId;
}

const isTerminal = (job: { stage: string }) => job.stage === 'complete' || job.stage === 'error';

/** Polls GET /api/jobs/:jobId until `done` holds; `seen` collects every poll. */
async function pollJob(
  jobId: string,
  done: (job: any) => boolean = isTerminal,
  auth = users.owner.token,
  seen: any[] = [],
  intervalMs = 25,
) {
  const deadline = Date.now() + JOB_DEADLINE_MS;
  for (;;) {
    const job = assertOk(await call(t.app, 'GET', `/api/jobs/${jobId}`, { auth }));
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
  return assertOk(await call(t.app, 'GET', `/api/rooms/${roomId}`, { auth: users.owner.token })).counts.markers;
}

async function listMarkers(roomId: string): Promise<any[]> {
  const body = assertOk(await call(t.app, 'GET', `/api/rooms/${roomId}/markers`, { auth: users.owner.token }));
  assert.equal(body.count, body.markers.length);
  return body.markers;
}

async function historyEvents(roomId: string, limit = 500): Promise<any[]> {
  return assertOk(await call(t.app, 'GET', `/api/rooms/${roomId}/history?limit=${limit}`, { auth: users.owner.token }))
    .events;
}

async function registerIcon(roomId: string): Promise<string> {
  const svg =
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><circle cx="12" cy="12" r="10" fill="#e33"/></svg>';
  const parts = { icon: { data: svg, filename: 'pin.svg', type: 'image/svg+xml' }, name: 'Pin', size: '32' };
  return assertOk(await postMultipart(t.app, `/api/rooms/${roomId}/marker-icons`, parts, users.owner.token), 201)
    .iconId;
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

before(async () => {
  ({ t, users, room, wsBase } = await scaffold({ listen: true }));
  otherRoom = await createRoom(t.app, users.stranger);
});

after(async () => {
  await t?.close();
});

describe('bulk import', () => {
  test('imports every point with its mapped properties; one room.imported in history and on the live channel', async () => {
    const iconId = await registerIcon(room);
    const features: unknown[] = [
      point(0, {
        title: 'Alpha',
        description: 'First of all',
        tags: ['museum', 'free'],
        eventDate: 1_700_000_000_000,
        markerIconId: iconId,
        markerIconSize: 48,
      }),
      point(1, { title: 'Beta', eventDate: '2024-03-01T12:30:00Z', tags: [] }),
      { type: 'Feature', geometry: { type: 'Point', coordinates: [7.44, 46.95, 540] }, properties: null },
    ];
    for (let i = 3; i < 2503; i++) features.push(point(i));
    const n = features.length;

    const countBefore = await markerCount(room);
    const live = new WebSocket(`${wsBase}/api/rooms/${room}/live?access_token=${users.viewer.token}`);
    const messages: any[] = [];
    live.on('message', (raw) => messages.push(JSON.parse(String(raw))));
    live.on('error', () => undefined);
    try {
      const waitMessages = async (count: number) => {
        const deadline = Date.now() + 10_000;
        while (messages.length < count) {
          if (Date.now() > deadline) throw new Error(`live messages so far: ${JSON.stringify(messages)}`);
          await sleep(10);
        }
      };
      await waitMessages(1);
      const version = messages[0].version as number;
      assert.equal(messages[0].type, 'hello');

      const jobId = await startImport(room, collection(features));
      const job = await pollJob(jobId);
      assert.equal(job.stage, 'complete', JSON.stringify(job));
      assert.equal(job.progress, 100);
      assert.equal(job.markersCreated, n);
      assert.equal(job.jobId, jobId);
      assert.equal(typeof job.message, 'string');

      assert.equal(await markerCount(room), countBefore + n);
      const markers = await listMarkers(room);
      const byTitle = new Map(markers.map((m) => [m.title, m]));
      const alpha = byTitle.get('Alpha');
      assert.ok(alpha, 'Alpha imported');
      assert.match(alpha.id, /^marker-/);
      assert.equal(alpha.longitude, -180);
      assert.equal(alpha.latitude, -90);
      assert.equal(alpha.description, 'First of all');
      assert.deepEqual(alpha.tags, ['museum', 'free']);
      assert.equal(alpha.eventDate, 1_700_000_000_000);
      assert.equal(alpha.markerIconId, iconId);
      assert.equal(alpha.markerIconSize, 48);
      const beta = byTitle.get('Beta');
      assert.ok(beta, 'Beta imported');
      assert.equal(beta.eventDate, Date.parse('2024-03-01T12:30:00Z'));
      const bare = markers.find((m) => m.latitude === 46.95 && m.longitude === 7.44);
      assert.ok(bare, 'a feature with an altitude and null properties is imported');
      assert.equal(bare.title, null);
      for (let i = 3; i < 2503; i++) assert.ok(byTitle.has(`p-${i}`), `p-${i} imported`);
      const one = assertOk(
        await call(t.app, 'GET', `/api/rooms/${room}/markers/${alpha.id}`, { auth: users.viewer.token }),
      ).marker;
      assert.deepEqual(one.tags, ['museum', 'free']);
      assert.equal(one.eventDate, 1_700_000_000_000);

      // History: exactly one entry for the whole import, not one per marker.
      const events = await historyEvents(room);
      assert.equal(events[0].version, version + 1, 'the import advanced the room version by exactly one');
      assert.equal(events[0].type, 'room.imported');
      assert.equal(events.filter((e) => e.type === 'room.imported').length, 1);
      assert.ok(
        !events.some((e) => e.version > version && e.type !== 'room.imported'),
        JSON.stringify(events.slice(0, 3)),
      );

      // Live: exactly one room.imported event, then whatever comes next.
      const sentinel = assertOk(
        await call(t.app, 'POST', `/api/rooms/${room}/markers`, {
          auth: users.owner.token,
          body: { latitude: 1, longitude: 1 },
        }),
        201,
      ).marker;
      await waitMessages(3);
      assert.equal(messages[1].type, 'room.imported', JSON.stringify(messages[1]));
      assert.equal(messages[1].version, version + 1);
      assert.equal(messages[2].type, 'marker.created');
      assert.equal(messages[2].objectId, sentinel.id);
      assert.equal(messages.length, 3, JSON.stringify(messages.map((m) => m.type)));
    } finally {
      live.terminate();
    }
  });

  test('an invalid feature ends the job in error naming the feature and the problem; nothing is imported', async () => {
    const countBefore = await markerCount(room);
    const importsBefore = (await historyEvents(room)).filter((e) => e.type === 'room.imported').length;
    const valid = (from: number, count: number) => Array.from({ length: count }, (_, i) => point(from + i));

    // The 3rd feature is a LineString.
    await assertJobFails(
      room,
      collection([
        ...valid(0, 2),
        {
          type: 'Feature',
          geometry: {
            type: 'LineString',
            coordinates: [
              [0, 0],
              [1, 1],
            ],
          },
          properties: {},
        },
        ...valid(3, 5),
      ]),
      /Feature 3\b/,
      /Point/,
    );
    // Latitude 95 far into the file, after more than a batch of valid points.
    const late = valid(0, 2600);
    late[2500] = {
      type: 'Feature',
      geometry: { type: 'Point', coordinates: [10, 95] },
      properties: { title: 'too far north' },
    };
    await assertJobFails(room, collection(late), /Feature 2501\b/, /latitude/);
    // 51 tags.
    const tags = Array.from({ length: 51 }, (_, i) => `t${i}`);
    await assertJobFails(
      room,
      collection([...valid(0, 1), point(1, { title: 'tagged', tags }), ...valid(2, 1500)]),
      /Feature 2\b/,
      /tags/,
      /50/,
    );
    // A markerIconSize out of range.
    await assertJobFails(
      room,
      collection([...valid(0, 5), point(5, { markerIconSize: 300 })]),
      /Feature 6\b/,
      /markerIconSize/,
    );
    // A title with a newline.
    await assertJobFails(room, collection([point(0, { title: 'two\nlines' })]), /Feature 1\b/, /title/);

    assert.equal(await markerCount(room), countBefore, 'no marker was created by a failed import');
    const importsAfter = (await historyEvents(room)).filter((e) => e.type === 'room.imported').length;
    assert.equal(importsAfter, importsBefore, 'a failed import writes no room.imported');
  });

  test('a file that is not JSON or not a FeatureCollection ends in error with a clear message', async () => {
    const countBefore = await markerCount(room);
    await assertJobFails(room, 'this is not JSON at all', /JSON/);
    await assertJobFails(room, `{"type":"FeatureCollection","features":[${JSON.stringify(point(0))},`, /JSON/);
    await assertJobFails(room, JSON.stringify(point(0)), /FeatureCollection/);
    await assertJobFails(room, JSON.stringify([point(0), point(1)]), /FeatureCollection/);
    await assertJobFails(
      room,
      JSON.stringify({ type: 'GeometryCollection', features: [point(0)] }),
      /FeatureCollection/,
    );
    assert.equal(await markerCount(room), countBefore);
  });

  test('a markerIconId that is not an icon of the room ends in error naming the feature', async () => {
    const countBefore = await markerCount(room);
    const foreignIcon = await (async () => {
      const parts = {
        icon: {
          data: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 4 4"><rect width="4" height="4"/></svg>',
          filename: 'x.svg',
          type: 'image/svg+xml',
        },
        name: 'Foreign',
        size: '24',
      };
      const res = await postMultipart(t.app, `/api/rooms/${otherRoom}/marker-icons`, parts, users.stranger.token);
      return assertOk(res, 201).iconId as string;
    })();
    const features = Array.from({ length: 1500 }, (_, i) => point(i));
    features[3] = point(3, { title: 'with a foreign icon', markerIconId: foreignIcon });
    await assertJobFails(room, collection(features), /Feature 4\b/, new RegExp(foreignIcon));
    features[3] = point(3, { markerIconId: 'icon-api-doesnotexist0000' });
    await assertJobFails(room, collection(features), /Feature 4\b/, /icon-api-doesnotexist0000/);
    assert.equal(await markerCount(room), countBefore);
  });

  test('the request itself: missing file field 400, not multipart 415, and write access needed', async () => {
    // A multipart body without a `file` part: only a text field, or the file under another name.
    let res = await postMultipart(t.app, `/api/rooms/${room}/bulk-import`, { note: 'no file here' }, users.owner.token);
    assertError(res, 400, 'validation_error');
    assert.match(res.json().message + JSON.stringify(res.json().details ?? ''), /file/);
    res = await postImport(room, collection([point(0)]), users.owner.token, 'upload');
    assertError(res, 400, 'validation_error');

    // Not multipart.
    res = await call(t.app, 'POST', `/api/rooms/${room}/bulk-import`, {
      auth: users.owner.token,
      body: { type: 'FeatureCollection', features: [] },
    });
    assertError(res, 415, 'unsupported_media_type');
    res = await call(t.app, 'POST', `/api/rooms/${room}/bulk-import`, {
      auth: users.owner.token,
      body: collection([point(0)]),
      headers: { 'content-type': 'application/geo+json' },
    });
    assertError(res, 415, 'unsupported_media_type');

    // Access: a viewer, a read-only token and anonymous cannot import.
    assertError(await postImport(room, collection([point(0)]), users.viewer.token), 403, 'forbidden');
    const { token: readOnly } = await issueToken(t.app, users.owner, room, ['read']);
    const lacks = assertError(await postImport(room, collection([point(0)]), readOnly), 403, 'forbidden');
    assert.equal(lacks.message, TOKEN_ERRORS.lacksWrite);
    assertError(await postImport(room, collection([point(0)]), null), 401, 'unauthorized');
    assertError(await postImport(room, collection([point(0)]), users.stranger.token), 403, 'forbidden');
  });
});

describe('job status is bound to its room', () => {
  let jobId: string;
  let readToken: string;
  let writeToken: string;

  before(async () => {
    writeToken = (await issueToken(t.app, users.owner, room, ['write'])).token;
    readToken = (await issueToken(t.app, users.owner, room, ['read'])).token;
    // Imported with a write-only token: the job belongs to the room, not to the caller.
    jobId = await startImport(room, collection([point(0, { title: 'by token' }), point(1)]), writeToken);
    const job = await pollJob(jobId, isTerminal, users.owner.token);
    assert.equal(job.stage, 'complete', JSON.stringify(job));
  });

  for (const url of ['/api/jobs/', '/api/layers/jobs/']) {
    test(`GET ${url}:jobId: members and read tokens of the room see it; everyone else gets 404`, async () => {
      for (const auth of [users.owner.token, users.editor.token, users.viewer.token, readToken]) {
        const job = assertOk(await call(t.app, 'GET', `${url}${jobId}`, { auth }));
        assert.equal(job.jobId, jobId);
        assert.equal(job.stage, 'complete');
        assert.equal(job.progress, 100);
        assert.equal(typeof job.message, 'string');
        assert.equal(job.markersCreated, 2);
      }
      const { token: otherRoomToken } = await issueToken(t.app, users.stranger, otherRoom, ['read', 'write', 'upload']);
      const refused: [string, string | undefined][] = [
        ['a user of another room', users.stranger.token],
        ['a token of another room', otherRoomToken],
        ['anonymous', undefined],
      ];
      for (const [who, auth] of refused) {
        const res = await call(t.app, 'GET', `${url}${jobId}`, { auth });
        assert.equal(res.statusCode, 404, `${who}: ${res.statusCode} ${res.body}`);
        assertError(res, 404, 'not_found');
        assert.doesNotMatch(res.body, /complete|markersCreated/);
      }
      // A token of the job's own room may know the job exists, and hears what it lacks.
      const writeOnly = assertError(
        await call(t.app, 'GET', `${url}${jobId}`, { auth: writeToken }),
        403,
        'forbidden',
        TOKEN_ERRORS.lacksRead,
      );
      assert.doesNotMatch(JSON.stringify(writeOnly), /complete|markersCreated/);
      assertError(
        await call(t.app, 'GET', `${url}bulk-import-doesnotexist000000`, { auth: users.owner.token }),
        404,
        'not_found',
      );
      assertError(
        await call(t.app, 'GET', `${url}job-${randomBytes(8).toString('hex')}`, { auth: readToken }),
        404,
        'not_found',
      );
    });
  }

  test('the import made with a room token is recorded in history as the token', async () => {
    const entry = (await historyEvents(room)).find(
      (e) => e.type === 'room.imported' && JSON.stringify(e).includes(jobId),
    );
    assert.ok(entry, 'room.imported for the token job');
    assert.equal(entry.actor.kind, 'token');
  });
});

describe('job queue: progress, restarts and crashes', () => {
  test('progress is reported while a large import runs', async () => {
    const roomId = await createRoom(t.app, users.owner);
    const seen: any[] = [];
    const n = 20_000;
    const jobId = await startImport(roomId, pointsText(n));
    const job = await pollJob(jobId, isTerminal, users.owner.token, seen, 2);
    assert.equal(job.stage, 'complete', JSON.stringify(job));
    assert.equal(job.progress, 100);
    assert.equal(job.markersCreated, n);
    const midway = seen.filter((j) => j.stage === 'processing' && j.progress > 0 && j.progress < 100);
    assert.ok(
      midway.length >= 1,
      `a poll saw 0 < progress < 100 while processing: ${JSON.stringify(seen.map((j) => [j.stage, j.progress]))}`,
    );
    for (const j of seen) assert.ok(j.progress >= 0 && j.progress <= 100, JSON.stringify(j));
    // Only the last poll is terminal, and it alone says 100.
    assert.ok(seen.slice(0, -1).every((j) => !isTerminal(j) && j.progress < 100));
    assert.equal(await markerCount(roomId), n);
  });

  test('a graceful restart during an import: the job resumes and ends complete without duplicates', async () => {
    const roomId = await createRoom(t.app, users.owner);
    const n = 30_000;
    const jobId = await startImport(roomId, pointsText(n));
    await pollJob(jobId, (job) => job.stage === 'processing');
    await t.restart();

    const job = await pollJob(jobId);
    assert.equal(job.stage, 'complete', JSON.stringify(job));
    assert.equal(job.progress, 100);
    assert.equal(job.markersCreated, n);
    assert.equal(await markerCount(roomId), n);
    const titles = new Set((await listMarkers(roomId)).map((m) => m.title));
    assert.equal(titles.size, n, 'every point exactly once');
    const imported = (await historyEvents(roomId)).filter((e) => e.type === 'room.imported');
    assert.equal(imported.length, 1, JSON.stringify(imported));
    // The premise: the restart did interrupt the job (it was run a second time).
    const row = await t.database.db
      .selectFrom('jobs')
      .select(['attempts'])
      .where('id', '=', jobId)
      .executeTakeFirstOrThrow();
    assert.ok(Number(row.attempts) >= 2, `the job was interrupted by the restart (attempts ${row.attempts})`);
  });

  test('a job interrupted too many times ends in error with a message after a restart, never stays processing', async () => {
    const roomId = await createRoom(t.app, users.owner);
    const jobId = await startImport(roomId, collection([point(0), point(1)]));
    assert.equal((await pollJob(jobId)).stage, 'complete');
    await t.database.db
      .updateTable('jobs')
      .set({ stage: 'processing', attempts: 3, progress: 40, message: 'Processing' })
      .where('id', '=', jobId)
      .execute();
    assert.equal(
      assertOk(await call(t.app, 'GET', `/api/jobs/${jobId}`, { auth: users.owner.token })).stage,
      'processing',
    );

    await t.restart();
    const job = await pollJob(jobId);
    assert.equal(job.stage, 'error', JSON.stringify(job));
    assert.equal(typeof job.message, 'string');
    assert.ok(job.message.length > 0 && job.message !== 'Processing', JSON.stringify(job));
  });

  test('a crash (SIGKILL) during an import: the restarted server finishes the job with exactly every point', async () => {
    const n = 100_000;
    const dataDir = mkdtempSync(path.join(tmpdir(), 'maproom-crash-'));
    let dbName: string | undefined;
    let databaseUrl: string | undefined;
    const children: ChildProcess[] = [];
    const admin = adminQuery;

    /** Starts `node --import tsx src/server.ts` and resolves with its base URL. */
    const startServer = async (): Promise<{ child: ChildProcess; base: string }> => {
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        DATA_DIR: dataDir,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
      };
      delete env.DATABASE_URL;
      if (databaseUrl)
        Object.assign(env, { DATABASE_URL: databaseUrl, JWT_SECRET: 'a-shared-test-secret-of-32-characters' });
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
        cwd: ROOT,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      let output = '';
      const base = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`server did not start: ${output}`)), 60_000);
        const onData = (chunk: Buffer) => {
          output += chunk.toString();
          const match = /Maproom is running at (http:\/\/\S+)/.exec(output);
          if (match) {
            clearTimeout(timer);
            resolve(match[1]!);
          }
        };
        child.stdout!.on('data', onData);
        child.stderr!.on('data', onData);
        child.once('exit', (code) => {
          clearTimeout(timer);
          reject(new Error(`server exited (${code}) before it started: ${output}`));
        });
      });
      return { child, base };
    };

    const stop = async (child: ChildProcess, signal: NodeJS.Signals) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill(signal);
      await exited;
    };

    try {
      if (TEST_DB === 'postgres') {
        dbName = `maproom_test_${randomBytes(6).toString('hex')}`;
        await admin(`CREATE DATABASE ${dbName}`);
        const url = new URL(PG_ADMIN_URL);
        url.pathname = `/${dbName}`;
        databaseUrl = url.toString();
      }
      let { child, base } = await startServer();
      const http = async (method: string, url: string, token?: string, body?: unknown) => {
        const res = await fetch(`${base}${url}`, {
          method,
          headers: {
            ...(token && { authorization: `Bearer ${token}` }),
            ...(body !== undefined && { 'content-type': 'application/json' }),
          },
          ...(body !== undefined && { body: JSON.stringify(body) }),
        });
        const text = await res.text();
        return { status: res.status, body: text ? JSON.parse(text) : null, text };
      };

      const signup = await http('POST', '/api/auth/signup', undefined, {
        email: uniqueEmail('crash'),
        password: 'correct horse battery',
      });
      assert.equal(signup.status, 201, signup.text);
      const token = signup.body.token as string;
      const roomId = uniqueRoomId();
      assert.equal((await http('POST', `/api/rooms/${roomId}`, token, {})).status, 200);

      const form = new FormData();
      form.append('file', new Blob([pointsText(n)], { type: 'application/geo+json' }), 'points.geojson');
      const started = await fetch(`${base}/api/rooms/${roomId}/bulk-import`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: form,
      });
      const startedBody = (await started.json()) as { jobId: string };
      assert.equal(started.status, 200, JSON.stringify(startedBody));
      const { jobId } = startedBody;
      assert.match(jobId, /^bulk-import-/);

      // Wait until markers are being inserted (past the checking pass), then kill the process.
      let deadline = Date.now() + JOB_DEADLINE_MS;
      let markersAtKill = -1;
      for (;;) {
        const job = await http('GET', `/api/jobs/${jobId}`, token);
        assert.equal(job.status, 200, job.text);
        assert.ok(!isTerminal(job.body), `the import ended before it could be interrupted: ${job.text}`);
        if (job.body.stage === 'processing' && job.body.progress > 40) {
          markersAtKill = (await http('GET', `/api/rooms/${roomId}`, token)).body.counts.markers;
          await stop(child, 'SIGKILL');
          break;
        }
        if (Date.now() > deadline) throw new Error(`job never progressed: ${job.text}`);
        await sleep(10);
      }
      assert.ok(markersAtKill >= 0 && markersAtKill < n, `interrupted midway (${markersAtKill} markers at the kill)`);

      ({ child, base } = await startServer());
      deadline = Date.now() + JOB_DEADLINE_MS;
      let job;
      for (;;) {
        job = await http('GET', `/api/jobs/${jobId}`, token);
        assert.equal(job.status, 200, job.text);
        if (isTerminal(job.body)) break;
        if (Date.now() > deadline) throw new Error(`job stuck after the crash: ${job.text}`);
        await sleep(100);
      }
      assert.equal(job.body.stage, 'complete', job.text);
      assert.equal(job.body.progress, 100);
      assert.equal(job.body.markersCreated, n);
      const meta = await http('GET', `/api/rooms/${roomId}`, token);
      assert.equal(meta.body.counts.markers, n);
      const list = await http('GET', `/api/rooms/${roomId}/markers`, token);
      assert.equal(list.body.count, n);
      assert.equal(
        new Set((list.body.markers as { title: string }[]).map((m) => m.title)).size,
        n,
        'every point exactly once',
      );
      const history = await http('GET', `/api/rooms/${roomId}/history`, token);
      assert.equal((history.body.events as { type: string }[]).filter((e) => e.type === 'room.imported').length, 1);
      await stop(child, 'SIGTERM');
    } finally {
      for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await Promise.all(
        children.map((child) =>
          child.exitCode === null && child.signalCode === null ? new Promise((r) => child.once('exit', r)) : null,
        ),
      );
      if (dbName) await admin(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
