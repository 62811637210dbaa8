import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import {
  assertError,
  assertOk,
  buildTestApp,
  call,
  postMultipart,
  scaffold,
  type TestApp,
  type Users,
} from '../helpers.js';
import { LiveClient } from '../support/live-client.js';

/**
 * GET /metrics (docs/decisions.md, "Metrics"): 404 without METRICS_TOKEN, 401 without the token
 * or with another, the Prometheus text to the token; the series change with what the instance
 * does: requests by route as registered, live sockets and events, jobs waiting and run,
 * database and object-store calls, people present.
 */

const TOKEN = 'metrics-token-for-the-tests-0001';
let t: TestApp;
let users: Users;
let room: string;
let wsBase: string;
const clients: LiveClient[] = [];

before(async () => {
  ({ t, users, room, wsBase } = await scaffold({ config: { metricsToken: TOKEN }, listen: true }));
});
after(async () => {
  for (const client of clients) client.ws.close();
  await t?.close();
});

/** The samples of a scrape, `name{labels}` to value (labels as the text writes them). */
async function scrape(app = t.app): Promise<Map<string, number>> {
  const res = await call(app, 'GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(res.statusCode, 200, res.body);
  assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  const samples = new Map<string, number>();
  for (const line of res.body.split('\n')) {
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{.*\})?) (\S+)$/.exec(line);
    if (sample) samples.set(sample[1]!, Number(sample[2]));
  }
  return samples;
}

test('without METRICS_TOKEN there are no metrics: 404 with the error body', async () => {
  const plain = await buildTestApp();
  try {
    assertError(await call(plain.app, 'GET', '/metrics'), 404, 'not_found');
    assertError(
      await call(plain.app, 'GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } }),
      404,
      'not_found',
    );
  } finally {
    await plain.close();
  }
});

test('a short METRICS_TOKEN, or one with a space, does not start the service', () => {
  for (const token of ['too-short-0001', `${'x'.repeat(20)} ${'y'.repeat(20)}`])
    assert.throws(() => loadConfig({ METRICS_TOKEN: token }), ConfigError, token);
  assert.equal(loadConfig({ METRICS_TOKEN: TOKEN }).metricsToken, TOKEN);
});

test('only the token reads them: none, another, a session or Basic is 401', async () => {
  assertError(await call(t.app, 'GET', '/metrics'), 401, 'unauthorized');
  assertError(await call(t.app, 'GET', '/metrics', { auth: `${TOKEN}x` }), 401, 'unauthorized');
  assertError(await call(t.app, 'GET', '/metrics', { auth: users.owner.token }), 401, 'unauthorized');
  const basic = `Basic ${Buffer.from(`any:${TOKEN}`).toString('base64')}`;
  assertError(await call(t.app, 'GET', '/metrics', { headers: { authorization: basic } }), 401, 'unauthorized');
  const samples = await scrape();
  assert.ok((samples.get('process_resident_memory_bytes') ?? 0) > 0, 'the process metrics');
  assert.ok(samples.has('nodejs_eventloop_lag_p99_seconds'), 'the event loop delay');
});

test('requests are counted by method, route as registered and status', async () => {
  const markers = (status: number) =>
    `http_request_duration_seconds_count{method="GET",route="/api/rooms/:roomId/markers",status_code="${status}"}`;
  const before = await scrape();
  assertOk(await call(t.app, 'GET', `/api/rooms/${room}/markers`, { auth: users.viewer.token }));
  assertOk(await call(t.app, 'GET', `/api/rooms/${room}/markers`, { auth: users.viewer.token }));
  assertError(await call(t.app, 'GET', `/api/rooms/${room}/markers`, { auth: users.stranger.token }), 403, 'forbidden');
  assertError(await call(t.app, 'GET', '/api/no-such-route'), 404, 'not_found');
  const samples = await scrape();
  assert.equal((samples.get(markers(200)) ?? 0) - (before.get(markers(200)) ?? 0), 2);
  assert.equal((samples.get(markers(403)) ?? 0) - (before.get(markers(403)) ?? 0), 1);
  // An address no route has is one series, whatever the address (no label per URL).
  assert.ok(
    (samples.get('http_request_duration_seconds_count{method="GET",route="unmatched",status_code="404"}') ?? 0) >= 1,
  );
  assert.ok(![...samples.keys()].some((key) => key.includes(room)), 'no room id in any label');
});

test('live sockets and the events sent on them', async () => {
  const before = await scrape();
  const client = new LiveClient(`${wsBase}/api/rooms/${room}/live?access_token=${users.viewer.token}`);
  clients.push(client);
  await client.at(0); // hello
  assert.equal((await scrape()).get('maproom_live_sockets'), (before.get('maproom_live_sockets') ?? 0) + 1);
  const marker = { latitude: 46.9, longitude: 7.4, title: 'Counted' };
  assertOk(await call(t.app, 'POST', `/api/rooms/${room}/markers`, { auth: users.editor.token, body: marker }), 201);
  await client.at(1);
  const sent = (await scrape()).get('maproom_live_events_sent_total') ?? 0;
  assert.ok(sent >= (before.get('maproom_live_events_sent_total') ?? 0) + 2, `hello and the change: ${sent}`);
  client.ws.close();
  await client.closed;
  for (let i = 0; i < 100 && (await scrape()).get('maproom_live_sockets') !== before.get('maproom_live_sockets'); i++)
    await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal((await scrape()).get('maproom_live_sockets'), before.get('maproom_live_sockets') ?? 0);
});

test("a job's run is timed by kind and outcome; jobs waiting are counted with their age", async () => {
  const { jobId } = assertOk(
    await call(t.app, 'POST', `/api/rooms/${room}/export-jobs`, { auth: users.viewer.token, body: {} }),
    202,
  );
  const run = 'maproom_job_duration_seconds_count{kind="room-export",outcome="complete"}';
  for (let i = 0; i < 300 && !(await scrape()).has(run); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal((await scrape()).get(run), 1, `job ${jobId} timed once`);

  // An instance that runs no jobs: the export waits, counted as queued, with its age.
  const waiting = await scaffold({ config: { metricsToken: TOKEN }, build: { jobWorkers: 0 } });
  try {
    assertOk(
      await call(waiting.t.app, 'POST', `/api/rooms/${waiting.room}/export-jobs`, {
        auth: waiting.users.viewer.token,
        body: {},
      }),
      202,
    );
    const samples = await scrape(waiting.t.app);
    assert.equal(samples.get('maproom_jobs{kind="room-export",state="queued"}'), 1);
    assert.ok((samples.get('maproom_job_oldest_seconds{kind="room-export",state="queued"}') ?? -1) >= 0);
    assert.equal(samples.get('maproom_gdal_processes'), 0);
  } finally {
    await waiting.t.close();
  }
});

/** How much `series` grew between two scrapes. */
const grew = (before: Map<string, number>, after: Map<string, number>, series: string) =>
  (after.get(series) ?? 0) - (before.get(series) ?? 0);

test('database calls are timed by operation: reads, writes and whole transactions, never by SQL', async () => {
  const db = (operation: string) => `maproom_db_query_duration_seconds_count{operation="${operation}"}`;
  const before = await scrape();
  const marker = { latitude: 46.9, longitude: 7.4, title: 'Timed' };
  assertOk(await call(t.app, 'POST', `/api/rooms/${room}/markers`, { auth: users.editor.token, body: marker }), 201);
  const afterWrite = await scrape();
  assert.ok(grew(before, afterWrite, db('write')) >= 1, 'the marker insert and its history entry');
  assert.ok(grew(before, afterWrite, db('transaction')) >= 1, 'the write path commits once');
  assertOk(await call(t.app, 'GET', `/api/rooms/${room}/markers`, { auth: users.viewer.token }));
  const afterRead = await scrape();
  assert.ok(grew(afterWrite, afterRead, db('read')) >= 1);
  const operations = [...afterRead.keys()]
    .filter((key) => key.startsWith('maproom_db_query_duration_seconds_count'))
    .map((key) => /operation="([^"]*)"/.exec(key)?.[1]);
  assert.deepEqual(operations.sort(), ['read', 'transaction', 'write']);
  assert.ok((afterRead.get('maproom_db_query_duration_seconds_sum{operation="write"}') ?? 0) > 0);
});

test('object-store calls are timed by operation: an icon stored, then read', async () => {
  const store = (operation: string) => `maproom_object_store_duration_seconds_count{operation="${operation}"}`;
  const before = await scrape();
  const svg =
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24"><circle cx="12" cy="12" r="10"/></svg>';
  const icon = { data: svg, filename: 'icon.svg', type: 'image/svg+xml' };
  const parts = { icon, name: 'Pin', size: '24' };
  const url = `/api/rooms/${room}/marker-icons`;
  const { iconId } = assertOk(await postMultipart(t.app, url, parts, users.editor.token), 201);
  const stored = await scrape();
  assert.equal(grew(before, stored, store('put')), 1);
  assert.equal(grew(before, stored, store('get')), 0);
  const res = await call(t.app, 'GET', `${url}/${iconId}`, { auth: users.viewer.token });
  assert.equal(res.statusCode, 200);
  assert.equal(grew(stored, await scrape(), store('get')), 1);
});

test('people present through the instance: once per person and room, however many sockets', async () => {
  const people = async () => (await scrape()).get('maproom_presence_people') ?? 0;
  const rooms = async () => (await scrape()).get('maproom_presence_rooms') ?? 0;
  const until = async (read: () => Promise<number>, value: number) => {
    for (let i = 0; i < 100 && (await read()) !== value; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(await read(), value);
  };
  const [people0, rooms0] = [await people(), await rooms()];
  const open = async (token: string) => {
    const client = new LiveClient(`${wsBase}/api/rooms/${room}/live?access_token=${token}`);
    clients.push(client);
    await client.at(0); // hello: present by then
    return client;
  };
  const viewer = [await open(users.viewer.token), await open(users.viewer.token)];
  assert.equal(await people(), people0 + 1, 'two sockets, one person');
  assert.equal(await rooms(), rooms0 + 1);
  const editor = await open(users.editor.token);
  assert.equal(await people(), people0 + 2);
  assert.equal(await rooms(), rooms0 + 1);
  for (const client of [...viewer, editor]) client.ws.close();
  await until(people, people0);
  await until(rooms, rooms0);
});
