/**
 * What several instances of one deployment share, with real service processes: a fresh PostgreSQL
 * database, the machine's Redis (a database index of its own) and a real S3 server (Swift
 * with s3api) on loopback. Whichever instance a request reaches, the room is the same: live
 * changes, jobs (including the SIGKILL of the instance running one), files, access changes,
 * log-out and rate limits. And instances that cannot share a database refuse to.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import sharp from 'sharp';
import { LiveClient } from '../support/live-client.js';
import { freshDatabase, type Instance, request, startInstance, startRefused } from '../support/instances.js';
import { freshRedisUrl, REDIS_TEST_DB } from '../support/redis.js';
import { type S3TestServer, s3TestServer } from '../support/swift.js';

const PASSWORD = 'correct horse battery';
/** Logins allowed per minute and client address, across the deployment (rate limits are shared). */
const AUTH_LIMIT = 10;

let s3: S3TestServer;
let bucket: string;
let database: { url: string; drop(): Promise<void> };
let deployment: Record<string, string>;
const instances: Instance[] = [];

async function start(name: string, env: Record<string, string> = {}) {
  const instance = await startInstance(name, { ...deployment, ...env });
  instances.push(instance);
  return instance;
}

/** Polls `check` until it holds, for at most `ms` (a deadline the issue names, not a timing assertion). */
async function within(ms: number, what: string, check: () => Promise<boolean>) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.fail(`${what} did not happen within ${ms} ms`);
}

async function signupOn(instance: Instance, name: string) {
  const email = `${name}-${randomBytes(4).toString('hex')}@example.com`;
  const res = await request(instance, 'POST', '/api/auth/signup', { body: { email, password: PASSWORD, name } });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return { email, token: res.body.token as string, id: res.body.user.id as string };
}

async function roomOn(instance: Instance, owner: { token: string }) {
  const roomId = randomBytes(8).toString('base64url').slice(0, 10);
  const res = await request(instance, 'POST', `/api/rooms/${roomId}`, { auth: owner.token, body: { name: 'Shared' } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return roomId;
}

const liveUrl = (instance: Instance, roomId: string, token: string, since?: number) =>
  `${instance.url.replace(/^http/, 'ws')}/api/rooms/${roomId}/live?access_token=${encodeURIComponent(token)}${since === undefined ? '' : `&since=${since}`}`;

/** A GeoJSON FeatureCollection of `n` points, as a bulk import takes it. */
function points(n: number): Blob {
  const features = Array.from({ length: n }, (_, i) => ({
    type: 'Feature',
    geometry: { type: 'Point', coordinates: [6 + (i % 1000) / 1000, 46 + Math.floor(i / 1000) / 1000] },
    properties: { title: `p${i}` },
  }));
  return new Blob([JSON.stringify({ type: 'FeatureCollection', features })], { type: 'application/geo+json' });
}

async function upload(instance: Instance, url: string, token: string, fields: Record<string, Blob | string>) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields))
    typeof value === 'string' ? form.append(name, value) : form.append(name, value, `${name}.geojson`);
  const res = await fetch(`${instance.url}${url}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  return { status: res.status, body: await res.json() };
}

describe('two instances of one deployment', () => {
  let a: Instance;
  let b: Instance;

  before(async () => {
    s3 = await s3TestServer();
    bucket = await s3.newBucket();
    database = await freshDatabase();
    deployment = {
      DATABASE_URL: database.url,
      JWT_SECRET: randomBytes(32).toString('base64url'),
      REDIS_URL: await freshRedisUrl(REDIS_TEST_DB.twoInstances),
      AUTH_RATE_LIMIT_PER_MINUTE: String(AUTH_LIMIT),
      S3_BUCKET: bucket,
      S3_ENDPOINT: s3.endpoint,
      S3_FORCE_PATH_STYLE: 'true',
    };
    [a, b] = await Promise.all([start('a'), start('b')]);
  });

  after(async () => {
    await Promise.all(instances.map((instance) => instance.stop('SIGKILL')));
    await database?.drop();
    await s3?.stop();
  });

  test('both are ready, and say which parts they use', async () => {
    for (const instance of [a, b]) {
      const res = await request(instance, 'GET', '/api/ready');
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(
        Object.keys(res.body).filter((k) => k !== 'status'),
        ['database', 'redis', 'objectStore'],
      );
    }
  });

  test('a change through one instance reaches a room open on the other, in order, once; a client moving over catches up', async () => {
    const owner = await signupOn(a, 'live');
    const roomId = await roomOn(a, owner);
    const onB = new LiveClient(liveUrl(b, roomId, owner.token));
    await onB.opened;
    const hello = await onB.at(0);
    const created = await request(a, 'POST', `/api/rooms/${roomId}/markers`, {
      auth: owner.token,
      body: { latitude: 46.5, longitude: 6.6, title: 't0' },
    });
    assert.equal(created.status, 201);
    const markerId = created.body.marker.id as string;
    // Writes alternate between the instances, several at once: the events of both arrive in version order.
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        request(i % 2 ? a : b, 'PATCH', `/api/rooms/${roomId}/markers/${markerId}`, {
          auth: owner.token,
          body: { title: `t${i + 1}` },
        }),
      ),
    );
    await onB.waitUntil((m) => m.version === hello.version + 21, `version ${hello.version + 21}`);
    await onB.settled();
    const versions = onB.messages.slice(1).map((m) => m.version);
    assert.deepEqual(
      versions,
      Array.from({ length: 21 }, (_, i) => hello.version + 1 + i),
      'every version once, in order, no gap',
    );
    onB.ws.close();

    // A client that was on B reconnects to A, naming the last version it saw.
    const onA = new LiveClient(liveUrl(a, roomId, owner.token, hello.version + 10));
    await onA.waitUntil(
      (m) => m.type === 'marker.updated' && m.version === hello.version + 21,
      `version ${hello.version + 21}`,
    );
    await onA.settled();
    assert.deepEqual(
      onA.messages.filter((m) => m.type === 'marker.updated').map((m) => m.version),
      Array.from({ length: 11 }, (_, i) => hello.version + 11 + i),
    );
    onA.ws.close();
  });

  test('a file stored through one instance is read through the other; deleting the room deletes its objects', async () => {
    const owner = await signupOn(a, 'files');
    const roomId = await roomOn(a, owner);
    const photo = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3a7' } })
      .jpeg()
      .toBuffer();
    const form = new FormData();
    form.append('image', new Blob([new Uint8Array(photo)], { type: 'image/jpeg' }), 'photo.jpg');
    const stored = await fetch(`${a.url}/api/rooms/${roomId}/markers/upload-image`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}` },
      body: form,
    });
    assert.equal(stored.status, 200, await stored.clone().text());
    const { imageKey } = (await stored.json()) as { imageKey: string };
    const read = await fetch(`${b.url}/api/rooms/${roomId}/markers/image?key=${encodeURIComponent(imageKey)}`, {
      headers: { authorization: `Bearer ${owner.token}` },
    });
    assert.equal(read.status, 200);
    assert.equal(read.headers.get('content-type'), 'image/jpeg');
    const objects = async () => (await s3.keysIn(bucket)).filter((key) => key.includes(roomId)).length;
    assert.ok((await objects()) >= 2, 'the photo and its thumbnail are in the bucket');
    assert.equal((await request(b, 'DELETE', `/api/rooms/${roomId}`, { auth: owner.token })).status, 200);
    assert.equal(await objects(), 0, 'no object of the room is left');
  });

  test('a revoked token and a room made private are refused on the other instance within a second, and its sockets close', async () => {
    const owner = await signupOn(a, 'owner');
    const roomId = await roomOn(a, owner);
    const issued = await request(a, 'POST', `/api/rooms/${roomId}/api-tokens`, {
      auth: owner.token,
      body: { name: 'script', permissions: ['read'], expiresInDays: 1 },
    });
    const token = issued.body.token as string;
    assert.equal((await request(b, 'GET', `/api/rooms/${roomId}/markers`, { auth: token })).status, 200);
    const socket = new LiveClient(liveUrl(b, roomId, token));
    await socket.at(0);
    assert.equal(
      (await request(a, 'DELETE', `/api/rooms/${roomId}/api-tokens/${issued.body.id}`, { auth: owner.token })).status,
      200,
    );
    await within(
      1000,
      'the revoked token refused on b',
      async () => (await request(b, 'GET', `/api/rooms/${roomId}/markers`, { auth: token })).status === 401,
    );
    assert.equal((await socket.closedWithin()).code, 4401);

    await request(a, 'PATCH', `/api/rooms/${roomId}/public`, { auth: owner.token, body: { isPublic: true } });
    const anonymous = () => request(b, 'GET', `/api/rooms/${roomId}/markers`);
    await within(1000, 'the public room read anonymously on b', async () => (await anonymous()).status === 200);
    await request(a, 'PATCH', `/api/rooms/${roomId}/public`, { auth: owner.token, body: { isPublic: false } });
    await within(1000, 'the private room refused on b', async () => (await anonymous()).status === 401);
  });

  test('logging out on one instance ends the session on the other', async () => {
    const user = await signupOn(a, 'leaving');
    assert.equal((await request(b, 'GET', '/api/auth/me', { auth: user.token })).status, 200);
    assert.equal((await request(a, 'POST', '/api/auth/logout', { auth: user.token })).status, 204);
    await within(
      1000,
      'the session refused on b',
      async () => (await request(b, 'GET', '/api/auth/me', { auth: user.token })).status === 401,
    );
  });

  // It spends the deployment's log-in allowance of this minute (sign-ups are counted apart).
  test('rate limits count the requests of both instances', async () => {
    const user = await signupOn(a, 'limited');
    const login = (instance: Instance) =>
      request(instance, 'POST', '/api/auth/login', { body: { email: user.email, password: PASSWORD } });
    const statuses: number[] = [];
    for (let i = 0; i < AUTH_LIMIT + 2; i++) statuses.push((await login(i % 2 ? a : b)).status);
    assert.ok(statuses.includes(429), `one of ${AUTH_LIMIT + 2} logins over both instances is limited: ${statuses}`);
  });

  test('a job queued on one instance is polled alike on both; a joining worker leaves it alone; when its instance is killed, another finishes it once', async () => {
    // c serves requests only, so the job runs on d, the deployment's only worker.
    const c = await start('c', { INSTANCE_ROLE: 'http' });
    await a.stop('SIGKILL');
    await b.stop('SIGKILL');
    const d = await start('d', { INSTANCE_ROLE: 'all' });
    const owner = await signupOn(c, 'jobs');
    const roomId = await roomOn(c, owner);
    const n = Number(process.env.SCALE_OUT_JOB_POINTS ?? 200_000);
    const queued = await upload(c, `/api/rooms/${roomId}/bulk-import`, owner.token, { file: points(n) });
    assert.equal(queued.status, 200, JSON.stringify(queued.body));
    const jobId = queued.body.jobId as string;
    const poll = (instance: Instance) => request(instance, 'GET', `/api/jobs/${jobId}`, { auth: owner.token });
    await within(60_000, 'the job started on d', async () => (await poll(c)).body.stage === 'processing');
    assert.deepEqual((await poll(c)).body.stage, (await poll(d)).body.stage);

    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    try {
      const attempts = async () => (await db.query('SELECT attempts, stage FROM jobs WHERE id = $1', [jobId])).rows[0];
      // Held midway, however fast the machine: once the job has written some markers, a lock
      // that lets reads through stops its next write until d is killed.
      const written = async () =>
        Number((await db.query('SELECT count(*) AS n FROM markers WHERE import_job_id = $1', [jobId])).rows[0].n);
      await within(60_000, 'the job wrote some markers', async () => (await written()) > 0);
      await db.query('BEGIN');
      await db.query('LOCK TABLE markers IN SHARE MODE');
      // A worker that joins does not take the running job over or run it a second time.
      const e = await start('e', { INSTANCE_ROLE: 'jobs' });
      const whileRunning = await attempts();
      assert.equal(whileRunning.attempts, 1, 'the joining worker left the running job alone');
      assert.equal((await request(e, 'GET', '/api/ready')).status, 200);
      assert.equal(
        (await request(e, 'GET', `/api/jobs/${jobId}`, { auth: owner.token })).status,
        404,
        'a jobs instance serves no API',
      );
      assert.equal(whileRunning.stage, 'processing', 'the job is still running');
      assert.ok((await written()) < n, 'held midway');

      await d.stop('SIGKILL');
      await db.query('COMMIT');
      await within(90_000, 'the job finished on e', async () => (await poll(c)).body.stage === 'complete');
      const markers = await request(c, 'GET', `/api/rooms/${roomId}/markers`, { auth: owner.token });
      assert.equal(markers.body.count, n, 'every point once: nothing of the killed run is left');
      assert.equal((await attempts()).attempts, 2);
    } finally {
      await db.end();
    }
  });

  test('an instance without Redis or without S3 refuses to start beside the others', async () => {
    const { REDIS_URL: _, ...withoutRedis } = deployment;
    const refused = await startRefused('no-redis', withoutRedis);
    assert.match(refused.output, /REDIS_URL/);
    const { S3_BUCKET: __, ...withoutS3 } = deployment;
    const alsoRefused = await startRefused('no-s3', withoutS3);
    assert.match(alsoRefused.output, /S3/);
  });
});
