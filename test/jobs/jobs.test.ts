import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { before, describe, test } from 'node:test';
import {
  adminQuery,
  assertError,
  assertOk,
  call,
  createRoom,
  issueToken,
  PG_ADMIN_URL,
  scaffoldSuite,
  TEST_DB,
  TOKEN_ERRORS,
  uniqueEmail,
  uniqueRoomId,
} from '../helpers.js';
import { bulkImportCalls, collection, isTerminal, JOB_DEADLINE_MS, point, pointsText } from '../support/bulk-import.js';

/**
 * The job queue: a job started by POST /api/rooms/:roomId/bulk-import is polled at
 * GET /api/jobs/:jobId (and /api/layers/jobs/:jobId) for `{stage, progress, message}`; jobs are
 * bound to their room and outlive restarts and crashes.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

let otherRoom: string;
const s = scaffoldSuite({}, async () => {
  otherRoom = await createRoom(s.t.app, s.users.stranger);
});
const { startImport, pollJob, markerCount, listMarkers, historyEvents } = bulkImportCalls(() => s);

describe('job status is bound to its room', () => {
  let jobId: string;
  let readToken: string;
  let writeToken: string;

  before(async () => {
    writeToken = (await issueToken(s.t.app, s.users.owner, s.room, ['write'])).token;
    readToken = (await issueToken(s.t.app, s.users.owner, s.room, ['read'])).token;
    // Imported with a write-only token: the job belongs to the room, not to the caller.
    jobId = await startImport(s.room, collection([point(0, { title: 'by token' }), point(1)]), writeToken);
    const job = await pollJob(jobId, isTerminal, s.users.owner.token);
    assert.equal(job.stage, 'complete', JSON.stringify(job));
  });

  for (const url of ['/api/jobs/', '/api/layers/jobs/']) {
    test(`GET ${url}:jobId: members and read tokens of the room see it; everyone else gets 404`, async () => {
      for (const auth of [s.users.owner.token, s.users.editor.token, s.users.viewer.token, readToken]) {
        const job = assertOk(await call(s.t.app, 'GET', `${url}${jobId}`, { auth }));
        assert.equal(job.jobId, jobId);
        assert.equal(job.stage, 'complete');
        assert.equal(job.progress, 100);
        assert.equal(typeof job.message, 'string');
        assert.equal(job.markersCreated, 2);
      }
      const { token: otherRoomToken } = await issueToken(s.t.app, s.users.stranger, otherRoom, [
        'read',
        'write',
        'upload',
      ]);
      const refused: [string, string | undefined][] = [
        ['a user of another room', s.users.stranger.token],
        ['a token of another room', otherRoomToken],
        ['anonymous', undefined],
      ];
      for (const [who, auth] of refused) {
        const res = await call(s.t.app, 'GET', `${url}${jobId}`, { auth });
        assert.equal(res.statusCode, 404, `${who}: ${res.statusCode} ${res.body}`);
        assertError(res, 404, 'not_found');
        assert.doesNotMatch(res.body, /complete|markersCreated/);
      }
      // A token of the job's own room may know the job exists, and hears what it lacks.
      const writeOnly = assertError(
        await call(s.t.app, 'GET', `${url}${jobId}`, { auth: writeToken }),
        403,
        'forbidden',
        TOKEN_ERRORS.lacksRead,
      );
      assert.doesNotMatch(JSON.stringify(writeOnly), /complete|markersCreated/);
      assertError(
        await call(s.t.app, 'GET', `${url}bulk-import-doesnotexist000000`, { auth: s.users.owner.token }),
        404,
        'not_found',
      );
      assertError(
        await call(s.t.app, 'GET', `${url}job-${randomBytes(8).toString('hex')}`, { auth: readToken }),
        404,
        'not_found',
      );
    });
  }

  test('the import made with a room token is recorded in history as the token', async () => {
    const entry = (await historyEvents(s.room)).find(
      (e) => e.type === 'room.imported' && JSON.stringify(e).includes(jobId),
    );
    assert.ok(entry, 'room.imported for the token job');
    assert.equal(entry.actor.kind, 'token');
  });
});

describe('job queue: progress, restarts and crashes', () => {
  test('progress is reported while a large import runs', async () => {
    const roomId = await createRoom(s.t.app, s.users.owner);
    const seen: any[] = [];
    const n = 20_000;
    const jobId = await startImport(roomId, pointsText(n));
    const job = await pollJob(jobId, isTerminal, s.users.owner.token, seen, 2);
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
    const roomId = await createRoom(s.t.app, s.users.owner);
    const n = 30_000;
    const jobId = await startImport(roomId, pointsText(n));
    await pollJob(jobId, (job) => job.stage === 'processing');
    await s.t.restart();

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
    const row = await s.t.database.db
      .selectFrom('jobs')
      .select(['attempts'])
      .where('id', '=', jobId)
      .executeTakeFirstOrThrow();
    assert.ok(Number(row.attempts) >= 2, `the job was interrupted by the restart (attempts ${row.attempts})`);
  });

  test('a job interrupted too many times ends in error with a message after a restart, never stays processing', async () => {
    const roomId = await createRoom(s.t.app, s.users.owner);
    const jobId = await startImport(roomId, collection([point(0), point(1)]));
    assert.equal((await pollJob(jobId)).stage, 'complete');
    await s.t.database.db
      .updateTable('jobs')
      .set({ stage: 'processing', attempts: 3, progress: 40, message: 'Processing' })
      .where('id', '=', jobId)
      .execute();
    assert.equal(
      assertOk(await call(s.t.app, 'GET', `/api/jobs/${jobId}`, { auth: s.users.owner.token })).stage,
      'processing',
    );

    await s.t.restart();
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
