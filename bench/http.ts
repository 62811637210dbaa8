/**
 * The HTTP part (`BENCH_ONLY=http`): Maproom's marker read-one and create routes beside a bare
 * Fastify hello-world (the peer), measured in turn with autocannon, round after round, and 20
 * clients creating markers in one room at once (bench/concurrent-creates.ts). On SQLite, then
 * on PostgreSQL (BENCH_HTTP_DBS=sqlite,postgres; a fresh database on PG_ADMIN_URL's server).
 */
import path from 'node:path';
import autocannon from 'autocannon';
import { concurrentCreates, type ConcurrentCreates } from './concurrent-creates.js';
import {
  api,
  cpuMs,
  fmt,
  freshPostgres,
  pct,
  ROOM_ID,
  type Row,
  setUp,
  startMaproom,
  startServer,
  stopServer,
  type Server,
} from './harness.js';

const env = process.env;
export const DURATION = Number(env.BENCH_DURATION ?? 10);
export const WARMUP = Number(env.BENCH_WARMUP ?? 3);
export const CONNECTIONS = Number(env.BENCH_CONNECTIONS ?? 10);
export const ROUNDS = Math.max(1, Number(env.BENCH_ROUNDS ?? 1));
export const PIPELINING = 1;
const DATABASES = (env.BENCH_HTTP_DBS ?? 'sqlite,postgres').split(',').map((s) => s.trim());
const CONCURRENT_CLIENTS = 20;
/**
 * Concurrent creates per second before the write path committed groups, as a share of the peer's req/s in the
 * same run: 439 creates/s against 14,916 (2.9%; 584 µs of server CPU per create), SQLite,
 * 2026-11-25, a busy 2-core VM (bench/README.md). The target is 3x that share.
 */
const CONCURRENT_BASELINE_OF_PEER = Number(env.BENCH_CONCURRENT_BASELINE ?? 0.03);

export interface Load {
  label: string;
  rps: number;
  p50: number;
  p99: number;
  total: number;
  /** CPU time (user + system) the server process spent per request, in microseconds. */
  cpuPerRequest: number;
  problems: string;
}

async function load(label: string, server: Server, options: autocannon.Options): Promise<Load> {
  const base = { connections: CONNECTIONS, pipelining: PIPELINING, ...options };
  if (WARMUP > 0) await autocannon({ ...base, duration: WARMUP });
  const cpu0 = cpuMs(server.pid);
  const r = await autocannon({ ...base, duration: DURATION });
  const cpu = cpuMs(server.pid) - cpu0;
  const problems = [
    r.non2xx && `${r.non2xx} non-2xx`,
    r.errors && `${r.errors} errors`,
    r.timeouts && `${r.timeouts} timeouts`,
  ]
    .filter(Boolean)
    .join(', ');
  const out: Load = {
    label,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    total: r.requests.total,
    cpuPerRequest: (cpu * 1000) / Math.max(1, r.requests.total),
    problems,
  };
  console.log(
    `   ${label}: ${fmt(out.rps)} req/s (latency p50 ${out.p50} ms, p99 ${out.p99} ms, ${out.total} requests, ` +
      `server CPU ${fmt(out.cpuPerRequest)} µs/request)${problems ? `  !! ${problems}` : ''}`,
  );
  return out;
}

const median = <T>(list: T[], by: (x: T) => number) =>
  [...list].sort((a, b) => by(a) - by(b))[Math.floor(list.length / 2)]!;

/** One database: the peer, GET and POST of a marker, and the concurrent creates, ROUNDS times. */
async function onDatabase(
  database: string,
  peer: Server,
  rows: Row[],
  missed: string[],
  loads: Load[],
): Promise<{ read: Load; create: Load }> {
  const postgres = database === 'postgres' ? await freshPostgres() : undefined;
  const on = postgres ? ' (PostgreSQL)' : '';
  const server = await startMaproom(`maproom${on}`, postgres?.env ?? {});
  const runs = { hello: [] as Load[], read: [] as Load[], create: [] as Load[], concurrent: [] as ConcurrentCreates[] };
  try {
    const token = await setUp(server.url);
    const { marker } = await api(server.url, 'POST', `/api/rooms/${ROOM_ID}/markers`, {
      token,
      body: {
        latitude: 48.8584,
        longitude: 2.2945,
        title: 'Eiffel Tower',
        description: 'A marker to read',
        color: '#e74c3c',
        tags: ['bench'],
      },
    });
    const headers = { authorization: `Bearer ${token}` };
    for (let round = 1; round <= ROUNDS; round++) {
      if (ROUNDS > 1) console.log(`   round ${round} of ${ROUNDS}${on}`);
      runs.hello.push(await load('fastify hello-world GET /', peer, { url: `${peer.url}/` }));
      runs.read.push(
        await load(`maproom GET /api/rooms/${ROOM_ID}/markers/:markerId${on}`, server, {
          url: `${server.url}/api/rooms/${ROOM_ID}/markers/${marker.id}`,
          headers,
        }),
      );
      runs.create.push(
        await load(`maproom POST /api/rooms/${ROOM_ID}/markers${on}`, server, {
          url: `${server.url}/api/rooms/${ROOM_ID}/markers`,
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify({ latitude: 45.764, longitude: 4.8357, title: 'Bench marker', tags: ['bench'] }),
        }),
      );
      // About DURATION seconds at the rate the POST run just had.
      const amount = Math.max(200, Math.round(runs.create.at(-1)!.rps * DURATION));
      runs.concurrent.push(await concurrentCreates(server, token, CONCURRENT_CLIENTS, amount));
    }
  } finally {
    await stopServer(server);
    await postgres?.drop();
  }
  const [hello, read, create] = [runs.hello, runs.read, runs.create].map((list) => median(list, (l) => l.rps)) as [
    Load,
    Load,
    Load,
  ];
  const concurrent = median(runs.concurrent, (c) => c.perSecond);
  loads.push(hello, read, create, {
    label: `maproom ${CONCURRENT_CLIENTS} clients POST markers in one room${on}`,
    rps: concurrent.perSecond,
    p50: NaN,
    p99: NaN,
    total: concurrent.creates,
    cpuPerRequest: concurrent.cpuPerCreate,
    problems: '',
  });
  for (const [name, result, sqliteTarget] of [
    ['GET marker', read, 0.4],
    ['POST marker', create, 0.25],
  ] as const) {
    const target = postgres ? undefined : sqliteTarget;
    const ratio = result.rps / hello.rps;
    const ok = target !== undefined && ratio >= target && !result.problems;
    if (target !== undefined && !ok) missed.push(`${name} (req/s)${on}`);
    rows.push([
      `${name} (req/s)${on}`,
      `${fmt(result.rps)}${result.problems ? ` (${result.problems})` : ''}; ${fmt(result.cpuPerRequest)} µs CPU`,
      `${fmt(hello.rps)} (fastify hello-world); ${fmt(hello.cpuPerRequest)} µs CPU`,
      pct(ratio),
      target === undefined ? 'none (reported beside SQLite)' : `>= ${target * 100}% of peer`,
      target === undefined ? 'n/a' : ok ? 'yes' : 'NO',
    ]);
  }
  const ratio = concurrent.perSecond / hello.rps;
  const target = postgres ? undefined : 3 * CONCURRENT_BASELINE_OF_PEER;
  const ok = target !== undefined && ratio >= target;
  const name = `${CONCURRENT_CLIENTS} clients creating markers in one room (creates/s)${on}`;
  if (target !== undefined && !ok) missed.push(name);
  rows.push([
    name,
    `${fmt(concurrent.perSecond)}; ${fmt(concurrent.cpuPerCreate)} µs CPU; all acknowledged, in order`,
    `${fmt(hello.rps)} (fastify hello-world)`,
    pct(ratio),
    target === undefined ? 'none (reported beside SQLite)' : `>= 3x main's ${pct(CONCURRENT_BASELINE_OF_PEER)} of peer`,
    target === undefined ? 'n/a' : ok ? 'yes' : 'NO',
  ]);
  return { read, create };
}

/** PostgreSQL against SQLite in the same run: a marker read at least 80%, a create at least 60%. */
const POSTGRES_OF_SQLITE = { read: 0.8, create: 0.6 } as const;

function postgresBesideSqlite(sqlite: { read: Load; create: Load }, postgres: { read: Load; create: Load }) {
  const rows: Row[] = [];
  const missed: string[] = [];
  for (const [name, key] of [
    ['GET marker', 'read'],
    ['POST marker', 'create'],
  ] as const) {
    const ratio = postgres[key].rps / sqlite[key].rps;
    const target = POSTGRES_OF_SQLITE[key];
    const ok = ratio >= target && !postgres[key].problems;
    if (!ok) missed.push(`${name} (req/s) on PostgreSQL against SQLite`);
    rows.push([
      `${name} (req/s) on PostgreSQL`,
      `${fmt(postgres[key].rps)}; ${fmt(postgres[key].cpuPerRequest)} µs CPU`,
      `${fmt(sqlite[key].rps)} (the same on SQLite); ${fmt(sqlite[key].cpuPerRequest)} µs CPU`,
      pct(ratio),
      `>= ${target * 100}% of SQLite`,
      ok ? 'yes' : 'NO',
    ]);
  }
  return { rows, missed };
}

export async function runHttpBench() {
  console.log('## HTTP');
  const rows: Row[] = [];
  const missed: string[] = [];
  const loads: Load[] = [];
  // The peer and Maproom run side by side (an idle one costs nothing); with BENCH_ROUNDS > 1
  // the routes are measured in turn, round after round, and each reports its median round.
  const peer = await startServer('fastify hello-world', [path.join('bench', 'peer-hello.mjs')], {});
  try {
    const measured = new Map<string, { read: Load; create: Load }>();
    for (const database of DATABASES) measured.set(database, await onDatabase(database, peer, rows, missed, loads));
    const [sqlite, postgres] = [measured.get('sqlite'), measured.get('postgres')];
    if (sqlite && postgres) {
      const beside = postgresBesideSqlite(sqlite, postgres);
      rows.push(...beside.rows);
      missed.push(...beside.missed);
    }
  } finally {
    await stopServer(peer);
  }
  console.log();
  return { rows, missed, loads };
}
