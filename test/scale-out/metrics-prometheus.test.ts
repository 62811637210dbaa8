/**
 * Metrics read by a real Prometheus (Debian's): two instances of one deployment scraped every
 * second with the metrics token; queries through Prometheus's HTTP API see each instance's
 * requests, live sockets, presence, job runs and object-store calls change with the traffic sent to it.
 * Contract: docs/decisions.md ("Metrics").
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { assertOk, call, createRoom, signup, type TestUser } from '../helpers.js';
import { LiveClient } from '../support/live-client.js';
import { type Prometheus, startPrometheus } from '../support/prometheus.js';
import { REDIS_TEST_DB } from '../support/redis.js';
import { type TwoInstances, twoInstances } from '../support/two-instances.js';

const TOKEN = 'metrics-token-for-prometheus-0001';
const OPERATIONS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs/operations');
let two: TwoInstances;
let prometheus: Prometheus;
let owner: TestUser;
let room: string;
const hostOf = (ws: string) => new URL(ws).host;

before(async () => {
  two = await twoInstances(REDIS_TEST_DB.metricsPrometheus, { metricsToken: TOKEN });
  prometheus = await startPrometheus([hostOf(two.wsA), hostOf(two.wsB)], TOKEN, [path.join(OPERATIONS, 'alerts.yml')]);
  owner = await signup(two.a.app);
  room = await createRoom(two.a.app, owner);
});
after(async () => {
  await prometheus?.stop();
  await two?.close();
});

/** Each instance's value of `promql` (by its `instance` label), once `done` holds for them (Prometheus scrapes every second). */
async function until(promql: string, done: (byInstance: Map<string, number>) => boolean) {
  let seen = new Map<string, number>();
  for (let i = 0; i < 300; i++) {
    seen = new Map((await prometheus.query(promql)).map((r) => [r.labels.instance!, r.value]));
    if (done(seen)) return seen;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.fail(`${promql}: ${JSON.stringify([...seen])}`);
}

test('Prometheus scrapes both instances with the token', async () => {
  const up = await until('up{job="maproom"}', (v) => v.size === 2 && [...v.values()].every((x) => x === 1));
  assert.deepEqual([...up.keys()].sort(), [hostOf(two.wsA), hostOf(two.wsB)].sort());
});

test("each instance's requests, by route as registered", async () => {
  const [a, b] = [hostOf(two.wsA), hostOf(two.wsB)];
  for (let i = 0; i < 12; i++)
    assertOk(await call(two.a.app, 'GET', `/api/rooms/${room}/markers`, { auth: owner.token }));
  for (let i = 0; i < 4; i++)
    assertOk(await call(two.b.app, 'GET', `/api/rooms/${room}/markers`, { auth: owner.token }));
  const counts = await until(
    'sum by (instance) (http_request_duration_seconds_count{route="/api/rooms/:roomId/markers",status_code="200"})',
    (v) => (v.get(a) ?? 0) >= 12 && (v.get(b) ?? 0) >= 4,
  );
  assert.equal(counts.get(a), 12);
  assert.equal(counts.get(b), 4);
});

test('a live socket on one instance, and a job run by whichever takes it', async () => {
  const b = hostOf(two.wsB);
  const client = new LiveClient(`${two.wsB}/api/rooms/${room}/live?access_token=${owner.token}`);
  try {
    await client.at(0);
    await until('maproom_live_sockets', (v) => v.get(b) === 1 && [...v.values()].reduce((x, y) => x + y, 0) === 1);
    // Present through B's socket (Redis holds the room's presence; each instance counts its own sockets).
    await until('maproom_presence_people', (v) => v.get(b) === 1 && [...v.values()].reduce((x, y) => x + y, 0) === 1);
    const job = await call(two.a.app, 'POST', `/api/rooms/${room}/export-jobs`, { auth: owner.token, body: {} });
    assert.equal(job.statusCode, 202, job.body);
    await until(
      'sum(maproom_job_duration_seconds_count{kind="room-export",outcome="complete"})',
      (v) => [...v.values()][0] === 1,
    );
    // The export's GeoPackage went to S3, timed by the instance that ran it; both read the database.
    await until(
      'sum(maproom_object_store_duration_seconds_count{operation="putFile"})',
      (v) => [...v.values()][0]! >= 1,
    );
    await until(
      'sum by (instance) (maproom_db_query_duration_seconds_count{operation="read"} > 0)',
      (v) => v.size === 2,
    );
  } finally {
    client.ws.close();
  }
  await until('sum(maproom_live_sockets)', (v) => [...v.values()][0] === 0);
  await until('sum(maproom_presence_people)', (v) => [...v.values()][0] === 0);
});

test("the operations docs' alert rules load, and every dashboard query is one Prometheus runs", async () => {
  const rules = await prometheus.rules();
  assert.equal(rules.length, 9, JSON.stringify(rules));
  for (let i = 0; i < 50 && (await prometheus.rules()).some((rule) => rule.health !== 'ok'); i++)
    await new Promise((resolve) => setTimeout(resolve, 100));
  assert.deepEqual(
    (await prometheus.rules()).filter((rule) => rule.health !== 'ok'),
    [],
    'every rule evaluates',
  );
  const dashboard = JSON.parse(readFileSync(path.join(OPERATIONS, 'grafana-dashboard.json'), 'utf8')) as {
    panels: { title: string; targets: { expr: string }[] }[];
  };
  for (const panel of dashboard.panels)
    for (const { expr } of panel.targets)
      await prometheus.query(expr).catch((error) => assert.fail(`${panel.title}: ${error}`));
});
