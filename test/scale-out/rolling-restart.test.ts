/**
 * Rolling restarts behind a real nginx (Debian's, running docs/operations/nginx.conf, the
 * configuration the README shows): two service processes on one PostgreSQL database, Redis and
 * S3, 200 live clients and a steady mix of writes and reads through nginx, and bulk imports
 * (their files read over a slowed link to S3, so that one is running when its instance stops).
 * Each instance in turn gets SIGTERM, exits on its own, and starts again on its port. Then: no
 * request failed (a read is sent once more when it fails, as a client may; a write never is),
 * every acknowledged write is there, every live client saw each change exactly once across its
 * reconnections with `?since=` (closed with 1012 each time), and every import finished exactly
 * once, the stopping instance's handed back and run again elsewhere.
 * Contract: docs/decisions.md ("Rolling restarts").
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import WebSocket from 'ws';
import { uniqueEmail, uniqueRoomId } from '../helpers.js';
import { freshDatabase, type Instance, startInstance } from '../support/instances.js';
import { refusedUpgrade } from '../support/live-client.js';
import { type Nginx, NGINX_CONF, startNginx } from '../support/nginx.js';
import { freePort } from '../support/prometheus.js';
import { freshRedisUrl, REDIS_TEST_DB } from '../support/redis.js';
import { type S3TestServer, s3TestServer } from '../support/swift.js';
import { type ThrottledRelay, throttledRelay } from '../support/throttled-relay.js';

const CLIENTS = 200;
/** Points per bulk import: a file of about 1.1 MB... */
const POINTS = 10_000;
/** ...read from S3 at this pace: an import runs for over 5 s, and is still running when its instance closes. */
const S3_BYTES_PER_SECOND = 200_000;
/** Guards against hangs (deadlines, not timing assertions). */
const WAIT_MS = 60_000;
const README = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../README.md');

let s3: S3TestServer | undefined;
let slowS3: ThrottledRelay | undefined;
let nginx: Nginx | undefined;
let drop: (() => Promise<void>) | undefined;
const running = new Map<'a' | 'b', Instance>();
let clients: LiveReader[] = [];
after(async () => {
  traffic = false;
  for (const client of clients) client.end();
  for (const instance of running.values()) await instance.stop('SIGKILL');
  await nginx?.stop();
  await slowS3?.close();
  await drop?.();
  await s3?.stop();
});

/** Polls `check` until it holds; fails after WAIT_MS with `what` (and nginx's errors). */
async function until(what: string, check: () => Promise<boolean> | boolean) {
  for (const end = Date.now() + WAIT_MS; !(await check()); await sleep(25))
    if (Date.now() > end) assert.fail(`${what} did not happen\n${nginx?.errors() ?? ''}`);
}

// ---- Clients: requests through nginx, and what they saw ------------------------------------

let token = '';
/** Requests that failed as a client sees them: a write at once, a read when sent twice. */
const failed: string[] = [];
/** Reads that failed once and succeeded when sent again. */
let readsSentAgain = 0;

async function send(method: string, url: string, body?: unknown): Promise<{ status: number; body: any }> {
  const json = body !== undefined && !(body instanceof FormData);
  try {
    const response = await fetch(`${nginx!.url}${url}`, {
      method,
      headers: {
        ...(token && { authorization: `Bearer ${token}` }),
        ...(json && { 'content-type': 'application/json' }),
      },
      ...(body !== undefined && { body: json ? JSON.stringify(body) : (body as FormData) }),
    });
    const text = await response.text();
    return { status: response.status, body: text.startsWith('{') ? JSON.parse(text) : text };
  } catch (error) {
    return { status: 0, body: String((error as Error).cause ?? error) };
  }
}

const ok = (status: number) => status >= 200 && status < 300;

/** A write, sent once: it must succeed. */
async function write(method: string, url: string, body: unknown) {
  const answer = await send(method, url, body);
  if (!ok(answer.status)) failed.push(`${method} ${url}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer;
}

/** An idempotent read, sent once more when it fails. */
async function read(url: string) {
  let answer = await send('GET', url);
  if (!ok(answer.status)) {
    readsSentAgain++;
    answer = await send('GET', url);
    if (!ok(answer.status)) failed.push(`GET ${url} (twice): ${answer.status} ${JSON.stringify(answer.body)}`);
  }
  return answer;
}

/** A live client: each change must follow the last one it saw; it reconnects with `?since=` when closed. */
class LiveReader {
  last = -1;
  readonly created: string[] = [];
  readonly closes: number[] = [];
  readonly problems: string[] = [];
  private socket!: WebSocket;
  private ending = false;

  constructor(private readonly roomId: string) {
    this.open();
  }

  private open() {
    const since = this.last < 0 ? '' : `&since=${this.last}`;
    const url = `${nginx!.url.replace(/^http/, 'ws')}/api/rooms/${this.roomId}/live?access_token=${token}${since}`;
    const socket = new WebSocket(url);
    this.socket = socket;
    let opened = false;
    socket.on('open', () => (opened = true));
    socket.on('error', (error) => opened || this.problems.push(`could not connect: ${error.message}`));
    socket.on('message', (raw) => this.receive(JSON.parse(String(raw))));
    socket.on('close', (code) => {
      if (this.ending) return;
      if (opened) this.closes.push(code);
      if (opened && code !== 1012) this.problems.push(`closed with ${code}`);
      this.open();
    });
  }

  private receive(message: { type: string; version?: number; objectId?: string }) {
    if (message.type === 'hello') {
      if (message.version! < this.last) this.problems.push(`hello at ${message.version} after ${this.last}`);
      if (this.last < 0) this.last = message.version!;
      return;
    }
    if (message.type === 'resync' || message.version === undefined) {
      this.problems.push(`unexpected ${JSON.stringify(message)}`);
      return;
    }
    if (message.version !== this.last + 1) this.problems.push(`version ${message.version} after ${this.last}`);
    this.last = Math.max(this.last, message.version);
    if (message.type === 'marker.created') this.created.push(message.objectId!);
  }

  end() {
    this.ending = true;
    this.socket.close();
  }
}

// ---- Load: writes and reads on the live room; imports, each in a room of its own -----------

let traffic = true;
const acknowledged = new Set<string>();

async function writer(room: string, n: number) {
  for (let i = 0; traffic; i++) {
    const created = await write('POST', `/api/rooms/${room}/markers`, {
      latitude: 46,
      longitude: 7,
      title: `${n}-${i}`,
    });
    if (created.status === 201) {
      acknowledged.add(created.body.marker.id);
      await read(`/api/rooms/${room}/markers/${created.body.marker.id}`);
    }
    await sleep(50); // a steady pace, not a flood
  }
}

async function reader(room: string) {
  while (traffic) {
    await read(`/api/rooms/${room}`);
    const ids = [...acknowledged];
    if (ids.length) await read(`/api/rooms/${room}/markers/${ids[Math.floor(Math.random() * ids.length)]}`);
    await sleep(10);
  }
}

const pointsFile = () => {
  const features = Array.from({ length: POINTS }, (_, i) => ({
    type: 'Feature',
    geometry: { type: 'Point', coordinates: [7 + (i % 1000) / 1000, 46 + i / POINTS] },
    properties: { title: `p-${i}` },
  }));
  return new Blob([JSON.stringify({ type: 'FeatureCollection', features })], { type: 'application/geo+json' });
};

interface Import {
  room: string;
  jobId: string;
}

async function newRoom(): Promise<string> {
  const room = uniqueRoomId();
  assert.equal((await write('POST', `/api/rooms/${room}`, {})).status, 200);
  return room;
}

async function startImport(file: Blob): Promise<Import> {
  const room = await newRoom();
  const form = new FormData();
  form.append('file', file, 'points.geojson');
  const started = await write('POST', `/api/rooms/${room}/bulk-import`, form);
  assert.equal(started.status, 200, JSON.stringify(started.body));
  return { room, jobId: started.body.jobId };
}

const jobOf = async ({ jobId }: Import) => (await read(`/api/jobs/${jobId}`)).body;

// ---- The deployment -------------------------------------------------------------------------

test('two instances behind nginx restarted in turn: no failed request, no lost write, no lost or repeated live event, each job once', async () => {
  const database = await freshDatabase();
  drop = database.drop;
  s3 = await s3TestServer();
  slowS3 = await throttledRelay(s3.endpoint, S3_BYTES_PER_SECOND);
  const ports = { a: await freePort(), b: await freePort() };
  const deployment = {
    DATABASE_URL: database.url,
    JWT_SECRET: 'a-shared-test-secret-of-32-characters',
    REDIS_URL: await freshRedisUrl(REDIS_TEST_DB.rollingRestart),
    S3_BUCKET: await s3.newBucket(),
    S3_ENDPOINT: slowS3.url,
    S3_FORCE_PATH_STYLE: 'true',
    TRUST_PROXY: 'true',
  };
  const start = async (key: 'a' | 'b') => {
    const instance = await startInstance(key, { ...deployment, PORT: String(ports[key]) });
    running.set(key, instance);
    await until(`${key} ready`, async () => (await fetch(`${instance.url}/api/ready`)).status === 200);
    return instance;
  };
  await start('a');
  await start('b');
  nginx = await startNginx([`127.0.0.1:${ports.a}`, `127.0.0.1:${ports.b}`]);
  assert.ok(
    readFileSync(README, 'utf8').includes(readFileSync(NGINX_CONF, 'utf8')),
    'the README shows docs/operations/nginx.conf as the test runs it',
  );

  const signup = await write('POST', '/api/auth/signup', {
    email: uniqueEmail('rolling'),
    password: 'correct horse battery',
  });
  assert.equal(signup.status, 201, JSON.stringify(signup.body));
  token = signup.body.token;
  const room = await newRoom();
  clients = Array.from({ length: CLIENTS }, () => new LiveReader(room));
  await until('every live client has its hello', () => clients.every((client) => client.last >= 0));
  const firstVersion = clients[0]!.last;

  const load = [writer(room, 0), writer(room, 1), writer(room, 2), reader(room), reader(room), reader(room)];
  const file = pointsFile();
  const imports: Import[][] = [];

  for (const key of ['a', 'b'] as const) {
    // An import running on each instance's worker (one job at a time each): one is the stopping instance's.
    await until('the earlier imports complete', async () => {
      for (const job of imports.flat()) if ((await jobOf(job)).stage !== 'complete') return false;
      return true;
    });
    const pair = [await startImport(file), await startImport(file)];
    imports.push(pair);
    await until('both imports processing', async () => {
      for (const job of pair) if ((await jobOf(job)).stage !== 'processing') return false;
      return true;
    });

    const old = running.get(key)!;
    const address = `127.0.0.1:${ports[key]}`;
    const refusedBefore = nginx.answersOf(address).filter((status) => status === 503).length;
    const exit = new Promise<number | null>((resolve) => old.process.once('exit', (code) => resolve(code)));
    old.process.kill('SIGTERM');
    // The drain, seen on the instance itself: not ready, reads refused (nginx sends them to the
    // other instance, and leaves this one alone), each answer closing its connection.
    let ready: Response | undefined;
    await until(`${key} draining`, async () => {
      ready = await fetch(`${old.url}/api/ready`).catch(() => undefined);
      return ready?.status === 503;
    });
    assert.equal(((await ready!.json()) as { status: string }).status, 'stopping');
    assert.equal(ready!.headers.get('connection'), 'close');
    const refused = await fetch(`${old.url}/api/rooms/${room}`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(refused.status, 503);
    assert.equal(((await refused.json()) as { error: string }).error, 'shutting_down');
    const upgrade = await refusedUpgrade(
      `${old.url.replace(/^http/, 'ws')}/api/rooms/${room}/live?access_token=${token}`,
    );
    assert.deepEqual([upgrade.status, upgrade.body.error], [503, 'shutting_down']);
    assert.equal(await exit, 0, `${key} exits on its own within its grace period:\n${old.output()}`);
    // nginx met the drain too (and sent those reads to the other instance: no client saw them fail).
    assert.ok(nginx.answersOf(address).filter((status) => status === 503).length > refusedBefore);

    // nginx tries the instance again once its fail_timeout is over: the next one stops after that.
    await start(key);
    const answered = () => nginx!.answersOf(address).filter((status) => status < 500).length;
    const before = answered();
    await until(`nginx sends requests to the restarted ${key}`, () => answered() > before);
  }

  traffic = false;
  await Promise.all(load);

  // Jobs: each import complete, its points there once; the stopping instance's ran again elsewhere.
  await until('every import complete', async () => {
    for (const job of imports.flat()) if ((await jobOf(job)).stage !== 'complete') return false;
    return true;
  });
  for (const job of imports.flat()) {
    assert.equal((await jobOf(job)).markersCreated, POINTS);
    const markers = (await read(`/api/rooms/${job.room}/markers`)).body.markers as { title: string }[];
    assert.equal(new Set(markers.map((marker) => marker.title)).size, POINTS);
    assert.equal(markers.length, POINTS);
    const history = (await read(`/api/rooms/${job.room}/history`)).body.events as { type: string }[];
    assert.equal(history.filter((entry) => entry.type === 'room.imported').length, 1);
  }
  const db = new pg.Client({ connectionString: database.url });
  await db.connect();
  try {
    for (const pair of imports) {
      const { rows } = await db.query('SELECT attempts FROM jobs WHERE id = ANY($1) ORDER BY attempts', [
        pair.map((job) => job.jobId),
      ]);
      // The instance that stayed ran its import once; the stopping one's was handed back and run once more.
      assert.deepEqual(
        rows.map((row) => Number(row.attempts)),
        [1, 2],
      );
    }
  } finally {
    await db.end();
  }

  // Writes and reads.
  assert.deepEqual(failed, [], `failed requests (reads sent again: ${readsSentAgain})`);
  const listed = (await read(`/api/rooms/${room}/markers`)).body.markers as { id: string }[];
  assert.deepEqual(new Set(listed.map((marker) => marker.id)), acknowledged, 'every acknowledged write is there');

  // Live: every change once, in order, on every client, through two restarts.
  const lastVersion = firstVersion + acknowledged.size;
  await until('every live client has the last change', () => clients.every((client) => client.last >= lastVersion));
  for (const client of clients) client.end();
  for (const [i, client] of clients.entries()) {
    assert.deepEqual(client.problems, [], `client ${i}`);
    assert.equal(client.last, lastVersion, `client ${i}`);
    assert.equal(client.created.length, acknowledged.size, `client ${i} saw each write once`);
    assert.deepEqual(new Set(client.created), acknowledged, `client ${i}`);
    // Every client was on the instance restarted last (the other was restarting), so closed at least once.
    assert.ok(
      client.closes.length >= 1 && client.closes.every((code) => code === 1012),
      `client ${i}: ${client.closes}`,
    );
  }
});
