/**
 * Maproom benchmarks (`npm run bench`; not part of the test suite, see bench/README.md).
 *
 * Compares, on this machine, Maproom's marker read-one and create routes with a bare Fastify
 * hello-world server (the named peer), and measures bulk imports of 100,000 and 1,000,000
 * points: wall time and the server's peak RSS. Every server is its own child process on
 * 127.0.0.1 with a fresh DATA_DIR (SQLite); autocannon runs here with the same settings for all.
 *
 * Environment:
 *   BENCH_QUICK=1          skip the 1,000,000-point import
 *   BENCH_ONLY=http,bulk   run only these parts (default: both)
 *   BENCH_DURATION=10      seconds per measured HTTP run (after BENCH_WARMUP=3 s of warm-up)
 *   BENCH_CONNECTIONS=10   autocannon connections (pipelining is 1)
 *   BENCH_ROUNDS=1         measure peer, GET and POST in turn this many times; report each one's median
 *   BENCH_SERVER=dist|tsx  run Maproom from dist/ (built first when stale; default) or from src/ with tsx
 *   BENCH_LOG_LEVEL=warn   LOG_LEVEL of the Maproom server
 *   BENCH_CPU_PROF=<dir>   start the Maproom servers with --cpu-prof, profiles written to <dir>
 *   BENCH_NODE_ARGS="..."  more node options for the Maproom servers (experiments, e.g. --import a preload)
 *   BENCH_TRACE=<dir>      write each server's output, and the RSS samples of each import (CSV), to <dir>
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createReadStream, createWriteStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const env = process.env;
const QUICK = env.BENCH_QUICK === '1';
const ONLY = new Set((env.BENCH_ONLY ?? 'http,bulk').split(',').map((s) => s.trim()));
const DURATION = Number(env.BENCH_DURATION ?? 10);
const WARMUP = Number(env.BENCH_WARMUP ?? 3);
const CONNECTIONS = Number(env.BENCH_CONNECTIONS ?? 10);
const ROUNDS = Math.max(1, Number(env.BENCH_ROUNDS ?? 1));
const PIPELINING = 1;
const LOG_LEVEL = env.BENCH_LOG_LEVEL ?? 'warn';
const CPU_PROF = env.BENCH_CPU_PROF ? path.resolve(env.BENCH_CPU_PROF) : undefined;
const TRACE = env.BENCH_TRACE ? path.resolve(env.BENCH_TRACE) : undefined;
if (TRACE) mkdirSync(TRACE, { recursive: true });
const BULK_SIZES = QUICK ? [100_000] : [100_000, 1_000_000];
const RSS_LIMIT_MB = 300;
const ROOM_ID = 'bench-room'; // exactly 10 characters

const TMP = mkdtempSync(path.join(os.tmpdir(), 'maproom-bench-'));
const running = new Set<Server>();

// ---------------------------------------------------------------- child servers

interface Server {
  name: string;
  child: ChildProcess;
  pid: number;
  url: string;
  dataDir?: string;
  /** Lines the server wrote after starting (warnings, errors); the last 50. */
  output: string[];
  outputLines: number;
}

/** Starts `node <args>` and waits for the line "... running at http://...". */
async function startServer(name: string, args: string[], extraEnv: Record<string, string>): Promise<Server> {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...env, PORT: '0', HOST: '127.0.0.1', ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const server: Server = { name, child, pid: child.pid!, url: '', output: [], outputLines: 0, dataDir: extraEnv.DATA_DIR };
  running.add(server);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start within 60 s:\n${server.output.join('\n')}`)), 60_000);
    const onLine = (line: string) => {
      const match = /running at (http:\/\/\S+)/.exec(line);
      if (match && !server.url) {
        clearTimeout(timer);
        resolve(match[1]!);
        return;
      }
      // The start-up banner's other lines are not log output.
      if (line.trim() === '' || /^\s+(API reference:|First account:|-d '\{)/.test(line)) return;
      server.outputLines++;
      server.output.push(line);
      if (server.output.length > 50) server.output.shift();
    };
    const trace = TRACE ? createWriteStream(path.join(TRACE, `${name.replace(/[^\w.-]+/g, '_')}-${child.pid}.log`)) : undefined;
    for (const stream of [child.stdout!, child.stderr!]) {
      if (trace) stream.pipe(trace, { end: false });
      let rest = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        const lines = (rest + chunk).split('\n');
        rest = lines.pop()!;
        lines.forEach(onLine);
      });
    }
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${code ?? signal}) before listening:\n${server.output.join('\n')}`));
    });
  });
  server.url = url;
  child.once('exit', (code, signal) => {
    if (running.has(server)) console.error(`!! ${name} exited unexpectedly (${code ?? signal})\n${server.output.slice(-20).join('\n')}`);
  });
  return server;
}

async function stopServer(server: Server) {
  running.delete(server);
  if (server.child.exitCode === null && server.child.signalCode === null) {
    const exited = once(server.child, 'exit');
    server.child.kill('SIGTERM');
    const timer = setTimeout(() => server.child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  }
  if (server.outputLines > 0) {
    console.log(`   (${server.name} wrote ${server.outputLines} log line(s) at ${LOG_LEVEL} or above; last: ${server.output.at(-1)?.slice(0, 300)})`);
  }
  if (server.dataDir) rmSync(server.dataDir, { recursive: true, force: true });
}

/** How Maproom is started: the built JS (rebuilt when older than src/) or src/ through tsx. */
function maproomCommand(): { args: string[]; how: string } {
  const profile = [
    ...(CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF}`] : []),
    ...(env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean),
  ];
  const viaTsx = { args: [...profile, '--import', 'tsx', 'src/server.ts'], how: 'node --import tsx src/server.ts' };
  if (env.BENCH_SERVER === 'tsx') return viaTsx;
  const built = path.join(ROOT, 'dist/src/server.js');
  const stale = !existsSync(built) || newestMtime(path.join(ROOT, 'src')) > statSync(built).mtimeMs;
  if (stale && env.BENCH_SERVER !== 'dist') {
    console.log('dist/ is missing or older than src/: npm run build');
    const started = Date.now();
    const result = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
    if (result.status !== 0) {
      // tsc still emits JavaScript on type errors (say, someone's unfinished edit elsewhere).
      if (existsSync(built) && statSync(built).mtimeMs >= started - 1000) {
        console.log('!! npm run build reported type errors; the JavaScript was emitted and is what runs');
      } else {
        console.log('!! npm run build failed; running Maproom from src/ with tsx instead');
        return viaTsx;
      }
    }
  }
  return { args: [...profile, 'dist/src/server.js'], how: 'node dist/src/server.js' };
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs);
  }
  return newest;
}

let maproom: { args: string[]; how: string };

async function startMaproom(name: string) {
  const dataDir = mkdtempSync(path.join(TMP, 'data-'));
  return startServer(name, maproom.args, { DATA_DIR: dataDir, LOG_LEVEL, DATABASE_URL: '' });
}

// ---------------------------------------------------------------- HTTP set-up, as a script would

async function api<T = any>(base: string, method: string, url: string, options: { token?: string; body?: unknown } = {}): Promise<T> {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(base + url, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

/** Signs up, creates a room and issues a read+write room token; returns the token. */
async function setUp(base: string) {
  const { token: session } = await api(base, 'POST', '/api/auth/signup', {
    body: { email: 'bench@example.com', password: 'bench-password-1', name: 'Bench' },
  });
  await api(base, 'POST', `/api/rooms/${ROOM_ID}`, { token: session, body: { name: 'Benchmark room' } });
  const { token } = await api(base, 'POST', `/api/rooms/${ROOM_ID}/api-tokens`, {
    token: session,
    body: { name: 'bench script', permissions: ['read', 'write'], expiresInDays: 1 },
  });
  if (!String(token).startsWith('mrt_')) throw new Error(`unexpected room token ${token}`);
  return token as string;
}

// ---------------------------------------------------------------- autocannon

interface Load {
  label: string;
  rps: number;
  p50: number;
  p99: number;
  total: number;
  /** CPU time (user + system) the server process spent per request, in microseconds. */
  cpuPerRequest: number;
  problems: string;
}

/** CPU time (user + system) of a process so far, in ms (clock ticks of 10 ms on Linux). */
function cpuMs(pid: number) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10; // utime, stime
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
  ].filter(Boolean).join(', ');
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

// ---------------------------------------------------------------- bulk import

/** Writes a FeatureCollection of `n` points by streaming, 1,000 features at a time. */
async function generateGeoJson(file: string, n: number) {
  function* chunks() {
    yield '{"type":"FeatureCollection","features":[\n';
    let seed = 42;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
    let parts: string[] = [];
    for (let i = 0; i < n; i++) {
      const lon = (random() * 360 - 180).toFixed(6);
      const lat = (random() * 180 - 90).toFixed(6);
      const feature =
        `{"type":"Feature","geometry":{"type":"Point","coordinates":[${lon},${lat}]},` +
        `"properties":{"title":"Point ${i + 1}","description":"Imported by the benchmark","tags":["bench","t${i % 10}"],` +
        `"eventDate":${1_700_000_000_000 + i * 1000}}}`;
      parts.push(i === 0 ? feature : `,\n${feature}`);
      if (parts.length === 1000) {
        yield parts.join('');
        parts = [];
      }
    }
    yield parts.join('');
    yield '\n]}\n';
  }
  await pipeline(Readable.from(chunks()), createWriteStream(file));
}

/** POSTs the file as multipart/form-data, streaming it from disk (never held in memory). */
function uploadMultipart(url: string, token: string, file: string): Promise<{ status: number; body: string }> {
  const boundary = `----maproom-bench-${Date.now().toString(16)}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${path.basename(file)}"\r\n` +
      'Content-Type: application/geo+json\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const length = head.length + statSync(file).size + tail.length;
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(length),
      },
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    async function* parts() {
      yield head;
      for await (const chunk of createReadStream(file, { highWaterMark: 256 * 1024 })) yield chunk as Buffer;
      yield tail;
    }
    pipeline(Readable.from(parts()), req).catch(reject);
  });
}

/** Samples VmRSS of a process every 50 ms; `stop` returns the peak and VmHWM, in MB. */
function sampleRss(pid: number, note: () => string = () => '', csv?: string) {
  const read = () => {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
  };
  // Writing 5 to clear_refs resets VmHWM to the current RSS (Linux 4.0+), so that the high
  // water mark read at the end is the import's, not the start-up's.
  let hwmReset = true;
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    hwmReset = false;
  }
  const start = read().rss;
  let peak = start;
  let samples = 0;
  const t0 = performance.now();
  const lines: string[] = ['ms,rss_mb,note'];
  const timer = setInterval(() => {
    try {
      const { rss } = read();
      peak = Math.max(peak, rss);
      samples++;
      if (csv) lines.push(`${Math.round(performance.now() - t0)},${rss.toFixed(1)},"${note()}"`);
    } catch {
      // the process is gone; its exit is reported elsewhere
    }
  }, 50);
  return {
    start,
    stop() {
      clearInterval(timer);
      if (csv) writeFileSync(csv, lines.join('\n') + '\n');
      const last = read();
      return { peak: Math.max(peak, last.rss, hwmReset ? last.hwm : 0), hwm: last.hwm, hwmReset, samples };
    },
  };
}

/** The bench process's own peak RSS, to show that generating and uploading stream. */
let ownPeakRss = 0;
const ownSampler = setInterval(() => (ownPeakRss = Math.max(ownPeakRss, process.memoryUsage.rss() / 1024 ** 2)), 50);
ownSampler.unref();

interface BulkResult {
  size: number;
  bytes: number;
  seconds: number;
  uploadSeconds: number;
  idleRss: number;
  peakRss: number;
  hwm: number;
  /** VmHWM before the import (start-up and set-up). */
  startupHwm: number;
  hwmReset: boolean;
  created: number;
}

async function bulkImport(size: number, file: string): Promise<BulkResult> {
  const server = await startMaproom(`maproom (bulk ${label(size)})`);
  try {
    const token = await setUp(server.url);
    await sleep(500); // let start-up garbage settle before the idle reading
    const startupHwm = Number(/^VmHWM:\s+(\d+)/m.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))?.[1]) / 1024;
    let phase = 'uploading';
    const rss = sampleRss(server.pid, () => phase, TRACE && path.join(TRACE, `rss-${label(size)}.csv`));
    const t0 = performance.now();
    const upload = await uploadMultipart(`${server.url}/api/rooms/${ROOM_ID}/bulk-import`, token, file);
    const uploadSeconds = (performance.now() - t0) / 1000;
    if (upload.status !== 200) throw new Error(`bulk import upload: ${upload.status} ${upload.body}`);
    const { jobId } = JSON.parse(upload.body) as { jobId: string };
    let job: { stage: string; message: string | null; markersCreated?: number };
    let lastMessage = '';
    const deadline = Date.now() + 60 * 60_000;
    for (;;) {
      if (Date.now() > deadline) throw new Error(`bulk import job ${jobId} still ${lastMessage} after an hour`);
      job = await api(server.url, 'GET', `/api/jobs/${jobId}`, { token });
      if (job.stage === 'complete' || job.stage === 'error') break;
      if (job.message && job.message !== lastMessage && process.stdout.isTTY) process.stdout.write(`\r   ${job.message}          `);
      lastMessage = job.message ?? '';
      phase = `${job.stage}: ${lastMessage}`;
      await sleep(100);
    }
    const seconds = (performance.now() - t0) / 1000;
    if (process.stdout.isTTY) process.stdout.write('\r');
    const memory = rss.stop();
    if (job.stage !== 'complete') throw new Error(`bulk import job ended in ${job.stage}: ${job.message}`);
    const result: BulkResult = {
      size,
      bytes: statSync(file).size,
      seconds,
      uploadSeconds,
      idleRss: rss.start,
      peakRss: memory.peak,
      hwm: memory.hwm,
      startupHwm,
      hwmReset: memory.hwmReset,
      created: Number(job.markersCreated ?? NaN),
    };
    console.log(
      `   ${label(size)} points (${mb(result.bytes)} MB file): ${result.seconds.toFixed(1)} s ` +
        `(upload ${result.uploadSeconds.toFixed(1)} s), server RSS idle ${mb(result.idleRss, false)} MB, ` +
        `peak ${mb(result.peakRss, false)} MB (${memory.samples} samples), VmHWM ${mb(result.hwm, false)} MB ` +
        `(${result.hwmReset ? 'reset before the upload; ' : 'not resettable, includes start-up; '}start-up VmHWM ${mb(startupHwm, false)} MB), ` +
        `${result.created} markers created`,
    );
    if (result.created !== size) throw new Error(`expected ${size} markers, the job says ${result.created}`);
    const room = await api<{ counts?: { markers?: number } }>(server.url, 'GET', `/api/rooms/${ROOM_ID}`, { token });
    if (room.counts?.markers !== size) throw new Error(`expected ${size} markers in the room, it counts ${room.counts?.markers}`);
    return result;
  } finally {
    await stopServer(server);
  }
}

// ---------------------------------------------------------------- formatting

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const pct = (n: number) => `${(n * 100).toFixed(1)}%`;
const label = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}M` : `${n / 1000}k`);
/** Bytes to MB, or (bytes=false) an MB figure formatted. */
const mb = (n: number, bytes = true) => (bytes ? n / 1024 ** 2 : n).toFixed(bytes ? 0 : 1);

// ---------------------------------------------------------------- main

async function main() {
  const cpus = os.cpus();
  const fastifyVersion = JSON.parse(readFileSync(path.join(ROOT, 'node_modules/fastify/package.json'), 'utf8')).version;
  const facts = [
    `cores: ${cpus.length} (${cpus[0]?.model.trim() ?? 'unknown CPU'})`,
    `memory: ${(os.totalmem() / 1024 ** 3).toFixed(1)} GB`,
    `node: ${process.version}`,
    `os: ${os.type()} ${os.release()} ${os.arch()}`,
    `fastify: ${fastifyVersion}`,
    `load: autocannon in the bench process, ${CONNECTIONS} connections, pipelining ${PIPELINING}, ` +
      `${WARMUP} s warm-up + ${DURATION} s measured per route${ROUNDS > 1 ? `, ${ROUNDS} rounds (median)` : ''}`,
    `load average at start: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}` +
      (os.loadavg()[0]! > cpus.length / 2 ? ' !! the machine is busy with other processes: req/s figures will be noisy' : ''),
  ];
  console.log('# Maproom benchmarks\n');
  for (const fact of facts) console.log(`- ${fact}`);
  maproom = maproomCommand();
  console.log(
    `- maproom: \`${maproom.how}\`, LOG_LEVEL=${LOG_LEVEL}, fresh SQLite DATA_DIR per server` +
      (CPU_PROF ? `, --cpu-prof to ${CPU_PROF}` : '') +
      (env.BENCH_NODE_ARGS ? `, node options: ${env.BENCH_NODE_ARGS}` : ''),
  );
  console.log('- peer: bare Fastify hello-world (`node bench/peer-hello.mjs`), GET / -> {"hello":"world"}\n');

  const rows: string[][] = [];
  const loads: Load[] = [];
  const missed: string[] = [];

  if (ONLY.has('http')) {
    console.log('## HTTP');
    // Both servers run side by side (an idle one costs nothing); with BENCH_ROUNDS > 1 the
    // routes are measured in turn, round after round, and each reports its median round.
    const peer = await startServer('fastify hello-world', [path.join('bench', 'peer-hello.mjs')], {});
    const server = await startMaproom('maproom');
    const runs: Record<'hello' | 'read' | 'create', Load[]> = { hello: [], read: [], create: [] };
    try {
      const token = await setUp(server.url);
      const { marker } = await api(server.url, 'POST', `/api/rooms/${ROOM_ID}/markers`, {
        token,
        body: { latitude: 48.8584, longitude: 2.2945, title: 'Eiffel Tower', description: 'A marker to read', color: '#e74c3c', tags: ['bench'] },
      });
      const headers = { authorization: `Bearer ${token}` };
      for (let round = 1; round <= ROUNDS; round++) {
        if (ROUNDS > 1) console.log(`   round ${round} of ${ROUNDS}`);
        runs.hello.push(await load('fastify hello-world GET /', peer, { url: `${peer.url}/` }));
        runs.read.push(
          await load(`maproom GET /api/rooms/${ROOM_ID}/markers/:markerId`, server, {
            url: `${server.url}/api/rooms/${ROOM_ID}/markers/${marker.id}`,
            headers,
          }),
        );
        runs.create.push(
          await load(`maproom POST /api/rooms/${ROOM_ID}/markers`, server, {
            url: `${server.url}/api/rooms/${ROOM_ID}/markers`,
            method: 'POST',
            headers: { ...headers, 'content-type': 'application/json' },
            body: JSON.stringify({ latitude: 45.764, longitude: 4.8357, title: 'Bench marker', tags: ['bench'] }),
          }),
        );
      }
    } finally {
      await stopServer(server);
      await stopServer(peer);
    }
    const median = (list: Load[]) => [...list].sort((a, b) => a.rps - b.rps)[Math.floor(list.length / 2)]!;
    const [hello, read, create] = [median(runs.hello), median(runs.read), median(runs.create)];
    loads.push(hello, read, create);
    for (const [name, result, target] of [
      ['GET marker (req/s)', read, 0.4],
      ['POST marker (req/s)', create, 0.25],
    ] as const) {
      const ratio = result.rps / hello.rps;
      const ok = ratio >= target && !result.problems;
      if (!ok) missed.push(name);
      rows.push([
        name,
        fmt(result.rps) + (result.problems ? ` (${result.problems})` : ''),
        `${fmt(hello.rps)} (fastify hello-world)`,
        pct(ratio),
        `>= ${target * 100}% of peer`,
        ok ? 'yes' : 'NO',
      ]);
    }
    console.log();
  }

  if (ONLY.has('bulk')) {
    console.log('## Bulk import');
    for (const size of BULK_SIZES) {
      const file = path.join(TMP, `points-${label(size)}.geojson`);
      const t = performance.now();
      await generateGeoJson(file, size);
      console.log(`   generated ${file} (${mb(statSync(file).size)} MB) in ${((performance.now() - t) / 1000).toFixed(1)} s`);
      const result = await bulkImport(size, file);
      rmSync(file, { force: true });
      const ok = result.peakRss < RSS_LIMIT_MB && result.hwm < RSS_LIMIT_MB && result.startupHwm < RSS_LIMIT_MB;
      const name = `bulk import ${label(size)} points (s, peak RSS MB)`;
      if (!ok) missed.push(name);
      rows.push([
        name,
        `${result.seconds.toFixed(1)} s, ${mb(result.peakRss, false)} MB ` +
          `(VmHWM ${mb(result.hwm, false)} during import, ${mb(result.startupHwm, false)} at start-up)`,
        'n/a',
        'n/a',
        `peak RSS < ${RSS_LIMIT_MB} MB`,
        ok ? 'yes' : 'NO',
      ]);
    }
    console.log(`   bench process peak RSS while generating and uploading: ${mb(ownPeakRss, false)} MB\n`);
  }

  console.log('## Results\n');
  console.log('| benchmark | maproom | peer | ratio | target | met? |');
  console.log('|---|---|---|---|---|---|');
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
  if (loads.length) {
    const peer = loads[0]!;
    console.log('\n| route | req/s | latency p50 / p99 (ms) | server CPU per request (µs) | CPU per request vs peer |');
    console.log('|---|---|---|---|---|');
    for (const l of loads) {
      console.log(`| ${l.label} | ${fmt(l.rps)} | ${l.p50} / ${l.p99} | ${fmt(l.cpuPerRequest)} | ${(l.cpuPerRequest / peer.cpuPerRequest).toFixed(1)}x |`);
    }
  }
  console.log(`\n${missed.length ? `Targets missed: ${missed.join('; ')}` : 'All targets met.'}`);
}

async function cleanUp() {
  for (const server of [...running]) await stopServer(server).catch(() => undefined);
  rmSync(TMP, { recursive: true, force: true });
}

process.on('SIGINT', () => void cleanUp().then(() => process.exit(130)));

try {
  await main();
  await cleanUp();
} catch (error) {
  console.error('\nBenchmark failed:', error instanceof Error ? error.stack : error);
  await cleanUp();
  process.exit(1);
}
