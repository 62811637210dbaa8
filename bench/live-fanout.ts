/**
 * Live fan-out (`BENCH_ONLY=live`): 1,000 WebSocket clients on one room, 100 marker PATCHes a
 * second for 30 s, on one instance and then on two instances of one deployment (PostgreSQL,
 * Redis, S3) with the clients and the PATCHes spread over both. For each change it measures
 * the time from the PATCH's acknowledgement (its 200 reaching the caller) to its arrival at
 * every client; a change that arrives before the acknowledgement counts 0 ms. Lost: changes
 * a client never received. The target: p99 at most 100 ms and none lost on two instances.
 *
 * The clients run in BENCH_LIVE_PROCESSES child processes (bench/live-clients.mjs), so that
 * receiving does not share one event loop with the sender.
 *
 * Environment:
 *   BENCH_LIVE_CLIENTS=1000  BENCH_LIVE_RATE=100  BENCH_LIVE_SECONDS=30  BENCH_LIVE_PROCESSES=2
 *   REDIS_URL (default redis://127.0.0.1:6379/9, emptied first), PG_ADMIN_URL
 *   S3_* and AWS_*: an S3 store for the two instances; unset, a Swift server is started here
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Redis } from 'ioredis';
import {
  api,
  fmt,
  freshPostgres,
  ROOM_ID,
  ROOT,
  type Row,
  setUp,
  sleep,
  startMaproom,
  stopServer,
  type Server,
} from './harness.js';

const env = process.env;
const CLIENTS = Number(env.BENCH_LIVE_CLIENTS ?? 1000);
const RATE = Number(env.BENCH_LIVE_RATE ?? 100);
const SECONDS = Number(env.BENCH_LIVE_SECONDS ?? 30);
const PROCESSES = Number(env.BENCH_LIVE_PROCESSES ?? 2);
const REDIS_URL = env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/9';

interface ClientProcess {
  child: ChildProcess;
  lines: AsyncIterableIterator<string>;
}

async function startClients(urls: string[], count: number): Promise<ClientProcess> {
  const child = spawn(process.execPath, [path.join(ROOT, 'bench/live-clients.mjs'), JSON.stringify({ urls, count })], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const first = await lines.next();
  if (first.value !== 'ready') throw new Error(`live clients did not start: ${first.value}`);
  return { child, lines };
}

async function report(clients: ClientProcess) {
  clients.child.stdin!.write('report\n');
  const { value } = await clients.lines.next();
  return JSON.parse(value) as { arrivals: [number, number[]][]; closed: number; disordered: number };
}

const percentile = (sorted: Float64Array, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

/** The load on the given instances: clients spread over them, PATCHes sent to each in turn. */
async function measure(label: string, servers: Server[], token: string): Promise<Row> {
  const liveUrls = servers.map(
    (s) => `${s.url.replace(/^http/, 'ws')}/api/rooms/${ROOM_ID}/live?access_token=${encodeURIComponent(token)}`,
  );
  const { marker } = await api(servers[0]!.url, 'POST', `/api/rooms/${ROOM_ID}/markers`, {
    token,
    body: { latitude: 46.5, longitude: 6.6, title: 's0' },
  });
  const per = Math.ceil(CLIENTS / PROCESSES);
  const clients: ClientProcess[] = [];
  for (let i = 0; i < PROCESSES; i++) clients.push(await startClients(liveUrls, Math.min(per, CLIENTS - i * per)));

  const total = RATE * SECONDS;
  const acks = new Float64Array(total + 1);
  const started = performance.now();
  const pending: Promise<void>[] = [];
  for (let seq = 1; seq <= total; seq++) {
    const due = started + (seq - 1) * (1000 / RATE);
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const server = servers[seq % servers.length]!;
    pending.push(
      api(server.url, 'PATCH', `/api/rooms/${ROOM_ID}/markers/${marker.id}`, {
        token,
        body: { title: `s${seq}` },
      }).then(() => void (acks[seq] = performance.timeOrigin + performance.now())),
    );
  }
  await Promise.all(pending);
  await sleep(2000); // the last changes' way to every client
  const reports = await Promise.all(clients.map(report));

  const latencies: number[] = [];
  let received = 0;
  for (const { arrivals } of reports) {
    for (const [seq, times] of arrivals) {
      if (seq < 1 || seq > total) continue;
      received += times.length;
      for (const at of times) latencies.push(Math.max(0, at - acks[seq]!));
    }
  }
  const sorted = Float64Array.from(latencies).sort();
  const counts = new Map<number, number>();
  for (const { arrivals } of reports)
    for (const [seq, times] of arrivals) counts.set(seq, (counts.get(seq) ?? 0) + times.length);
  const short = [...Array(total).keys()].map((i) => i + 1).filter((seq) => (counts.get(seq) ?? 0) < CLIENTS);
  if (short.length)
    console.log(
      `${label}: changes not received by every client: ${short.slice(0, 20).join(', ')}${short.length > 20 ? ', ...' : ''}`,
    );
  const lost = total * CLIENTS - received;
  const disordered = reports.reduce((n, r) => n + r.disordered, 0);
  const closed = reports.reduce((n, r) => n + r.closed, 0);
  console.log(
    `${label}: ${fmt(received)} deliveries, p50 ${percentile(sorted, 0.5).toFixed(1)} ms, p99 ${percentile(sorted, 0.99).toFixed(1)} ms, max ${sorted[sorted.length - 1]?.toFixed(1)} ms, lost ${lost}, out of order ${disordered}, closed ${closed}`,
  );
  return [
    `live fan-out, ${fmt(CLIENTS)} clients, ${RATE} PATCH/s for ${SECONDS} s, ${label} (p50 / p99)`,
    `${percentile(sorted, 0.5).toFixed(1)} / ${percentile(sorted, 0.99).toFixed(1)} ms; lost ${lost}${disordered ? `; ${disordered} clients out of order` : ''}`,
    'n/a',
    'n/a',
    servers.length > 1 ? 'p99 <= 100 ms, 0 lost' : 'none (reference)',
    servers.length > 1 ? (percentile(sorted, 0.99) <= 100 && lost === 0 && !disordered ? 'yes' : 'NO') : 'n/a',
  ];
}

/** An S3 store for the deployment: the environment's, or a Swift server started here. */
async function objectStore(): Promise<{ env: Record<string, string>; stop(): Promise<void> }> {
  if (env.S3_BUCKET) return { env: {}, stop: async () => undefined };
  const { s3TestServer } = await import('../test/support/swift.js');
  const s3 = await s3TestServer();
  const bucket = await s3.newBucket();
  return {
    env: {
      S3_BUCKET: bucket,
      S3_ENDPOINT: s3.endpoint,
      S3_FORCE_PATH_STYLE: 'true',
      AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID!,
      AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY!,
    },
    stop: () => s3.stop(),
  };
}

export async function runLiveBench(): Promise<Row[]> {
  const rows: Row[] = [];
  const jwtSecret = randomBytes(32).toString('base64url');

  // One instance on PostgreSQL, live in its own process.
  const single = await freshPostgres();
  const one = await startMaproom('maproom-live-1', { DATABASE_URL: single.url, JWT_SECRET: jwtSecret });
  try {
    const token = await setUp(one.url);
    rows.push(await measure('one instance', [one], token));
  } finally {
    await stopServer(one);
    await single.drop();
  }

  // Two instances of one deployment.
  const redis = new Redis(REDIS_URL);
  await redis.flushdb();
  redis.disconnect();
  const shared = await freshPostgres();
  const store = await objectStore();
  const deployment = { DATABASE_URL: shared.url, JWT_SECRET: jwtSecret, REDIS_URL, ...store.env };
  const servers: Server[] = [];
  try {
    servers.push(await startMaproom('maproom-live-a', deployment));
    servers.push(await startMaproom('maproom-live-b', deployment));
    const token = await setUp(servers[0]!.url);
    rows.push(await measure('two instances (Redis)', servers, token));
  } finally {
    for (const server of servers) await stopServer(server);
    await store.stop();
    await shared.drop();
  }
  return rows;
}
