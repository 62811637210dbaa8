/**
 * What every benchmark part shares (see bench/README.md): Maproom and its peers as child
 * processes on 127.0.0.1 with a fresh DATA_DIR, set-up through HTTP as a script would do it,
 * multipart uploads streamed from disk, and the RSS of a server read from /proc.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import {
  copyFileSync,
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const env = process.env;
export const LOG_LEVEL = env.BENCH_LOG_LEVEL ?? 'warn';
export const CPU_PROF = env.BENCH_CPU_PROF ? path.resolve(env.BENCH_CPU_PROF) : undefined;
export const TRACE = env.BENCH_TRACE ? path.resolve(env.BENCH_TRACE) : undefined;
if (TRACE) mkdirSync(TRACE, { recursive: true });
export const RSS_LIMIT_MB = 300;
export const ROOM_ID = 'bench-room'; // exactly 10 characters
/** The run's scratch folder, removed by `cleanUp`. */
export const TMP = mkdtempSync(path.join(os.tmpdir(), 'maproom-bench-'));
const running = new Set<Server>();

// ---------------------------------------------------------------- child servers

export interface Server {
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
export async function startServer(name: string, args: string[], extraEnv: Record<string, string>): Promise<Server> {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...env, PORT: '0', HOST: '127.0.0.1', ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const server: Server = {
    name,
    child,
    pid: child.pid!,
    url: '',
    output: [],
    outputLines: 0,
    dataDir: extraEnv.DATA_DIR,
  };
  running.add(server);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${name} did not start within 60 s:\n${server.output.join('\n')}`)),
      60_000,
    );
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
    const trace = TRACE
      ? createWriteStream(path.join(TRACE, `${name.replace(/[^\w.-]+/g, '_')}-${child.pid}.log`))
      : undefined;
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
    if (running.has(server))
      console.error(`!! ${name} exited unexpectedly (${code ?? signal})\n${server.output.slice(-20).join('\n')}`);
  });
  return server;
}

/** Stops a server (SIGTERM, then SIGKILL after 15 s), shows what it logged, and removes its DATA_DIR unless told to keep it. */
export async function stopServer(server: Server, options: { keepData?: boolean } = {}) {
  running.delete(server);
  if (server.child.exitCode === null && server.child.signalCode === null) {
    const exited = once(server.child, 'exit');
    server.child.kill('SIGTERM');
    const timer = setTimeout(() => server.child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  }
  if (server.outputLines > 0) {
    console.log(
      `   (${server.name} wrote ${server.outputLines} log line(s) at ${LOG_LEVEL} or above; last: ${server.output.at(-1)?.slice(0, 300)})`,
    );
  }
  if (server.dataDir && !options.keepData) rmSync(server.dataDir, { recursive: true, force: true });
}

/** The options `npm start` gives Node before `dist/src/server.js` (its heap's settings): the service is measured as it runs. */
function startOptions(): string[] {
  const start: string = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts.start;
  const options = /\bnode((?: --\S+)*) dist\/src\/server\.js/.exec(start);
  if (!options) throw new Error(`package.json's start does not run node dist/src/server.js: ${start}`);
  return options[1]!.split(' ').filter(Boolean);
}

/** How Maproom is started: the built JS (rebuilt when older than src/) or src/ through tsx. */
function maproomCommand(): { args: string[]; how: string } {
  const options = startOptions();
  const profile = [
    ...options,
    ...(CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF}`] : []),
    ...(env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean),
  ];
  const node = ['node', ...options].join(' ');
  const viaTsx = { args: [...profile, '--import', 'tsx', 'src/server.ts'], how: `${node} --import tsx src/server.ts` };
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
  copyMissingAssets(path.join(ROOT, 'src'), path.join(ROOT, 'dist', 'src'));
  return { args: [...profile, 'dist/src/server.js'], how: `${node} dist/src/server.js` };
}

/**
 * `tsc` emits only JavaScript, but the service also loads files beside its modules (the GDAL
 * inspection script, JSON tables). Those missing or older in dist/ are copied there, loudly,
 * so that the bench runs what `src/` holds; the build should do this itself.
 */
function copyMissingAssets(from: string, to: string) {
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) {
      copyMissingAssets(source, target);
    } else if (
      !/\.ts$/.test(entry.name) &&
      (!existsSync(target) || statSync(target).mtimeMs < statSync(source).mtimeMs)
    ) {
      mkdirSync(to, { recursive: true });
      copyFileSync(source, target);
      console.log(`!! npm run build did not put ${path.relative(ROOT, source)} in dist/: the bench copied it there`);
    }
  }
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs);
  }
  return newest;
}

let maproom: { args: string[]; how: string } | undefined;

/** Decides once how Maproom runs (building dist/ when it is stale) and says how. */
export function prepareMaproom() {
  maproom ??= maproomCommand();
  return maproom;
}

/**
 * Starts Maproom with a fresh DATA_DIR; on SQLite unless `extraEnv` names a DATABASE_URL
 * (with its JWT_SECRET).
 */
export async function startMaproom(name: string, extraEnv: Record<string, string> = {}) {
  const dataDir = mkdtempSync(path.join(TMP, 'data-'));
  return startServer(name, prepareMaproom().args, { DATA_DIR: dataDir, LOG_LEVEL, DATABASE_URL: '', ...extraEnv });
}

/** Stops a Maproom and starts a fresh process on the same DATA_DIR: the same data, and none of the old process's memory. */
export async function restartMaproom(server: Server): Promise<Server> {
  await stopServer(server, { keepData: true });
  return startServer(server.name, prepareMaproom().args, { DATA_DIR: server.dataDir!, LOG_LEVEL, DATABASE_URL: '' });
}

const PG_ADMIN_URL = env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function adminQuery(text: string) {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** A fresh PostgreSQL database on PG_ADMIN_URL's server: its URL, the environment of a Maproom on it, and how to drop it. */
export async function freshPostgres() {
  const name = `maproom_bench_${randomBytes(4).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    env: { DATABASE_URL: url.toString(), JWT_SECRET: randomBytes(32).toString('base64url') },
    drop: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

// ---------------------------------------------------------------- HTTP set-up, as a script would

/** One JSON call; a non-2xx answer throws with its status and body. */
export async function api<T = any>(
  base: string,
  method: string,
  url: string,
  options: { token?: string; body?: unknown } = {},
): Promise<T> {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(base + url, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

/** Signs up, creates a room and issues a room token (read and write unless told); returns the token. */
export async function setUp(base: string, permissions = ['read', 'write']) {
  const { token: session } = await api(base, 'POST', '/api/auth/signup', {
    body: { email: 'bench@example.com', password: 'bench-password-1', name: 'Bench' },
  });
  await api(base, 'POST', `/api/rooms/${ROOM_ID}`, { token: session, body: { name: 'Benchmark room' } });
  const { token } = await api(base, 'POST', `/api/rooms/${ROOM_ID}/api-tokens`, {
    token: session,
    body: { name: 'bench script', permissions, expiresInDays: 1 },
  });
  if (!String(token).startsWith('mrt_')) throw new Error(`unexpected room token ${token}`);
  return token as string;
}

export interface MultipartFile {
  /** The form field of the file part. */
  field: string;
  path: string;
  /** The file name the part declares (default: the file's own). */
  fileName?: string;
  contentType?: string;
  /** Only these bytes of the file, [start, end) (a chunk of it). */
  range?: { start: number; end: number };
}

/**
 * POSTs text fields and one file as multipart/form-data, streaming the file (or a byte range
 * of it) from disk, so that it is never held in memory.
 */
export function uploadMultipart(
  url: string,
  token: string,
  file: MultipartFile,
  fields: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  const boundary = `----maproom-bench-${Date.now().toString(16)}`;
  const text = Object.entries(fields)
    .map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
    .join('');
  const head = Buffer.from(
    `${text}--${boundary}\r\nContent-Disposition: form-data; name="${file.field}"; filename="${file.fileName ?? path.basename(file.path)}"\r\n` +
      `Content-Type: ${file.contentType ?? 'application/octet-stream'}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const range = file.range ?? { start: 0, end: statSync(file.path).size };
  const length = head.length + (range.end - range.start) + tail.length;
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
      if (range.end > range.start) {
        for await (const chunk of createReadStream(file.path, {
          start: range.start,
          end: range.end - 1,
          highWaterMark: 256 * 1024,
        }))
          yield chunk as Buffer;
      }
      yield tail;
    }
    pipeline(Readable.from(parts()), req).catch(reject);
  });
}

/** Writes a FeatureCollection of `n` points by streaming, 1,000 features at a time. */
export async function writePointsGeoJson(file: string, n: number) {
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

// ---------------------------------------------------------------- the server's resources, from /proc

/** CPU time (user + system) of a process so far, in ms (clock ticks of 10 ms on Linux). */
export function cpuMs(pid: number) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10; // utime, stime
}

/** VmRSS and VmHWM of a process, in MB. */
export function memoryOf(pid: number) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
}

/**
 * Resets a process's VmHWM to its current RSS (writing 5 to clear_refs, Linux 4.0+), so that
 * the high-water mark read later is that of what ran in between; false when not allowed.
 */
export function resetHighWaterMark(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Samples VmRSS of a process every 50 ms; `stop` returns the peak and VmHWM, in MB. */
export function sampleRss(pid: number, note: () => string = () => '', csv?: string) {
  const hwmReset = resetHighWaterMark(pid);
  const start = memoryOf(pid).rss;
  let peak = start;
  let samples = 0;
  const t0 = performance.now();
  const lines: string[] = ['ms,rss_mb,note'];
  const timer = setInterval(() => {
    try {
      const { rss } = memoryOf(pid);
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
      if (csv) writeFileSync(csv, `${lines.join('\n')}\n`);
      const last = memoryOf(pid);
      return { peak: Math.max(peak, last.rss, hwmReset ? last.hwm : 0), hwm: last.hwm, hwmReset, samples };
    },
  };
}

// ---------------------------------------------------------------- formatting

/** One row of the results table: benchmark, maproom, peer, ratio, target, met?. */
export type Row = [string, string, string, string, string, string];

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
export const pct = (n: number) => `${(n * 100).toFixed(1)}%`;
export const label = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}M` : `${n / 1000}k`);
/** Bytes to MB, or (bytes=false) an MB figure formatted. */
export const mb = (n: number, bytes = true) => (bytes ? n / 1024 ** 2 : n).toFixed(bytes ? 0 : 1);

/** Stops every server still running and removes the scratch folder. */
export async function cleanUp() {
  for (const server of [...running]) await stopServer(server).catch(() => undefined);
  rmSync(TMP, { recursive: true, force: true });
}
