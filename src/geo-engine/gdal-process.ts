import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

/**
 * The one adapter to GDAL's command-line tools, the service's geo engine (formats, CRS and
 * datum transformations, warping). Every uploaded file is hostile, so each run has a time
 * limit and an address-space limit, cannot reach the network, and its failure is a
 * `GdalError` whose `reason` is GDAL's own message, fit to show to the person who sent the file.
 * The limits come from config.ts (`geoLimitsOf`); callers pass the kind of run's.
 */
export type GdalTool =
  | 'ogr2ogr'
  | 'ogrinfo'
  | 'gdalinfo'
  | 'gdalwarp'
  | 'gdal_translate'
  | 'gdaladdo'
  | 'gdalsrsinfo'
  | 'gdallocationinfo'
  | 'python3';

/** A run's limits (from config.ts's GeoLimits) and options. */
export interface GdalLimits {
  /** The process is killed after this long. */
  timeoutMs: number;
  /** Address-space limit of the process (`ulimit -v`). */
  memoryBytes: number;
  /** Largest stdout runGdal keeps (streamGdal's caller reads its own). */
  maxOutputBytes?: number;
  /** Aborting kills the process (a job shutting down, a client gone). */
  signal?: AbortSignal;
  /** Extra environment (GDAL configuration options). */
  env?: Record<string, string>;
  cwd?: string;
}

export type GdalFailure = 'failed' | 'timeout' | 'memory' | 'aborted' | 'missing';

export class GdalError extends Error {
  constructor(
    /** GDAL's reason in one line, without paths of ours. */
    readonly reason: string,
    readonly failure: GdalFailure,
  ) {
    super(reason);
  }
}

/**
 * Configuration every run gets: no network access from inside GDAL, no reading of sibling
 * files it was not given, quiet progress, and drivers that can point at other files or URLs
 * switched off (a zipped VRT could otherwise make GDAL print a local file). A sibling file is
 * never read unless named (no `.aux.xml`, `.ovr` or world files from the upload's folder).
 */
export const SAFE_GDAL_ENV: Record<string, string> = {
  // Names of Debian's GDAL 3.6 build; an unknown name would only print a warning. The raster
  // VRT driver stays (the COG writer needs it): raster inputs are opened with `-if GTiff`.
  GDAL_SKIP:
    'OGR_VRT WMS WMTS WCS WFS OAPIF OGCAPI ESRIC PLMOSAIC PLSCENES STACIT NGW EEDA EEDAI Elasticsearch AmigoCloud Carto CSW HTTP PostGISRaster Rasterlite',
  // Drivers can still fetch a URL a file names (GeoJSON's `"crs": {"type": "link"}` is read by
  // GDAL itself, whatever GDAL_SKIP says): every such request goes to a proxy that does not
  // exist (the discard port on loopback) and fails at once.
  GDAL_HTTP_PROXY: '127.0.0.1:9',
  GDAL_HTTPS_PROXY: '127.0.0.1:9',
  GDAL_HTTP_TIMEOUT: '1',
  GDAL_HTTP_MAX_RETRY: '0',
  CPL_VSIL_CURL_ALLOWED_EXTENSIONS: '.none',
  GDAL_DISABLE_READDIR_ON_OPEN: 'EMPTY_DIR',
  CPL_DEBUG: 'OFF',
  GDAL_PAM_ENABLED: 'NO',
  OGR_GEOJSON_MAX_OBJ_SIZE: '200MB',
};

type GdalChild = ChildProcessByStdio<Writable | null, Readable, Readable>;

/** GDAL processes this process runs now (the metrics' `maproom_gdal_processes`). */
let running = 0;
export const gdalProcessesRunning = () => running;

/** Starts the tool under `ulimit -v`; stdout is the caller's to read. */
function start(tool: GdalTool, args: string[], limits: GdalLimits): GdalChild {
  const kib = Math.max(1, Math.floor(limits.memoryBytes / 1024));
  // sh applies the limit to itself, then becomes the tool: no extra process stays around.
  const child = spawn('/bin/sh', ['-c', `ulimit -v ${kib} && exec "$0" "$@"`, tool, ...args], {
    cwd: limits.cwd,
    // Debian's tools and Debian's python3 (which has GDAL's bindings), whatever else is on PATH.
    env: { PATH: '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...SAFE_GDAL_ENV, ...limits.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  }) as GdalChild;
  running++;
  child.once('close', () => running--);
  return child;
}

/**
 * GDAL's reason in one line: the last "ERROR n: ..." message (or the line after a bare
 * "FAILURE:"), without warnings and driver lists.
 */
export function reasonFrom(stderr: string): string {
  const lines = stderr
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line && !/^->/.test(line) && !/^Warning\b/.test(line));
  let pick: string | undefined;
  for (const [i, line] of lines.entries()) {
    const message = /^(?:ERROR\s*\d*|FAILURE)\s*:\s*(.*)$/.exec(line);
    if (message) pick = message[1] || lines[i + 1];
  }
  pick ??= lines[lines.length - 1];
  return (pick || 'GDAL could not read the file').slice(0, 500);
}

/**
 * A running tool whose stdout the caller streams (e.g. `ogr2ogr -f GeoJSONSeq /vsistdout/`).
 * `done` resolves when it exits cleanly and rejects with a GdalError otherwise; stderr is
 * kept (the last 64 KiB) for the reason.
 */
export function streamGdal(
  tool: GdalTool,
  args: string[],
  limits: GdalLimits,
): { stdout: Readable; done: Promise<void>; kill(): void; stderr(): string } {
  const child = start(tool, args, limits);
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-65536);
  });
  let killedFor: GdalFailure | null = null;
  const kill = (why: GdalFailure) => {
    if (killedFor || child.exitCode !== null) return;
    killedFor = why;
    child.kill('SIGKILL');
  };
  const timer = setTimeout(() => kill('timeout'), limits.timeoutMs);
  const onAbort = () => kill('aborted');
  limits.signal?.addEventListener('abort', onAbort, { once: true });
  if (limits.signal?.aborted) onAbort();

  const done = new Promise<void>((resolve, reject) => {
    child.on('error', (error: NodeJS.ErrnoException) => {
      reject(new GdalError(error.code === 'ENOENT' ? `${tool} is not installed` : error.message, 'missing'));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      limits.signal?.removeEventListener('abort', onAbort);
      if (code === 0 && !killedFor) return resolve();
      if (code === 127) return reject(new GdalError(`${tool} is not installed`, 'missing'));
      if (killedFor === 'timeout')
        return reject(new GdalError(`GDAL took longer than ${Math.round(limits.timeoutMs / 1000)} s`, 'timeout'));
      if (killedFor === 'aborted') return reject(new GdalError('Stopped', 'aborted'));
      const outOfMemory =
        /out of memory|cannot allocate|bad_alloc|std::bad_alloc/i.test(stderr) ||
        signal === 'SIGSEGV' ||
        signal === 'SIGABRT';
      if (outOfMemory && /memory|alloc/i.test(stderr)) {
        return reject(
          new GdalError(`GDAL ran out of its ${Math.round(limits.memoryBytes / 2 ** 20)} MB memory limit`, 'memory'),
        );
      }
      reject(new GdalError(reasonFrom(stderr), 'failed'));
    });
  });
  return { stdout: child.stdout, done, kill: () => kill('aborted'), stderr: () => stderr };
}

/** Runs a tool to completion and returns its output (at most `maxOutputBytes` of stdout). */
export async function runGdal(
  tool: GdalTool,
  args: string[],
  limits: GdalLimits & { maxOutputBytes: number },
): Promise<{ stdout: string }> {
  const run = streamGdal(tool, args, limits);
  const max = limits.maxOutputBytes;
  const chunks: Buffer[] = [];
  let size = 0;
  run.stdout.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > max) run.kill();
    else chunks.push(chunk);
  });
  await run.done.catch((error: GdalError) => {
    if (size > max) throw new GdalError(`GDAL's answer is larger than ${max} bytes`, 'failed');
    // Some tools (ogrinfo) say why on stdout.
    if (error.failure === 'failed')
      throw new GdalError(
        reasonFrom(`${Buffer.concat(chunks).toString('utf8').slice(-4096)}\n${run.stderr()}`),
        'failed',
      );
    throw error;
  });
  return { stdout: Buffer.concat(chunks).toString('utf8') };
}
