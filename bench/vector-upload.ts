/**
 * The ingest half of the vector benchmark: a file sent as a client would send one over 50 MB
 * (upload-chunk, then process-chunked), the job polled until the layer is there, with the
 * service's memory watched the whole time (see bench/README.md, "Vector layers").
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { api, memoryOf, resetHighWaterMark, ROOM_ID, sleep, uploadMultipart, type Server } from './harness.js';

/** Chunks of 50 MB (decimal), within the interface's cap of 50 MB per chunk whichever MB it means. */
export const CHUNK_BYTES = 50_000_000;

/** The pids of a process's descendants (every thread's children, recursively: GDAL runs from a worker thread). */
function descendants(pid: number): number[] {
  const found: number[] = [];
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return found;
  }
  for (const tid of tasks) {
    let children = '';
    try {
      children = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8');
    } catch {
      continue;
    }
    for (const child of children.split(' ').filter(Boolean).map(Number)) found.push(child, ...descendants(child));
  }
  return found;
}

/**
 * Watches a server's memory from now on: its VmHWM is reset (then read at the end: the exact
 * peak of the process, worker threads included), and every 50 ms the RSS of the process and of
 * its child processes (GDAL's tools, which the process's VmHWM does not count) is sampled.
 */
export function watchMemory(pid: number, csv?: string) {
  const hwmReset = resetHighWaterMark(pid);
  const startRss = memoryOf(pid).rss;
  let treePeak = startRss;
  let childrenPeak = 0;
  const childPeaks = new Map<number, { name: string; hwm: number }>();
  const lines = ['ms,service_rss_mb,children_rss_mb,children'];
  const t0 = performance.now();
  const timer = setInterval(() => {
    try {
      const own = memoryOf(pid).rss;
      let children = 0;
      const pids = descendants(pid);
      for (const child of pids) {
        try {
          // A process that has just ended (a zombie) has no VmRSS any more.
          const { rss, hwm } = memoryOf(child);
          if (!Number.isFinite(rss)) continue;
          children += rss;
          // The name is read each time: a child caught between fork and exec is still called "node".
          const name = readFileSync(`/proc/${child}/comm`, 'utf8').trim();
          childPeaks.set(child, { name, hwm: Math.max(childPeaks.get(child)?.hwm ?? 0, hwm) });
        } catch {
          // ended between the listing and the reading
        }
      }
      childrenPeak = Math.max(childrenPeak, children);
      treePeak = Math.max(treePeak, own + children);
      if (csv)
        lines.push(`${Math.round(performance.now() - t0)},${own.toFixed(1)},${children.toFixed(1)},${pids.length}`);
    } catch {
      // the server is gone; its exit is reported elsewhere
    }
  }, 50);
  return {
    stop() {
      clearInterval(timer);
      if (csv) writeFileSync(csv, `${lines.join('\n')}\n`);
      return {
        startRss,
        /** The service process's VmHWM since the reset: exact, threads included, children not. */
        serviceHwm: memoryOf(pid).hwm,
        hwmReset,
        /** Sampled peak of the service plus its child processes at the same moment. */
        treePeak,
        /** Sampled peak of the child processes' RSS together. */
        childrenPeak,
        /** The child processes seen, by name (e.g. "ogr2ogr x2, python3"), and the largest VmHWM one of them reached (as last read). */
        childCount: childPeaks.size,
        childNames: countNames([...childPeaks.values()].map((c) => c.name)),
        largestChildHwm: Math.max(0, ...[...childPeaks.values()].map((c) => c.hwm)),
      };
    },
  };
}

const countNames = (names: string[]) =>
  [...new Set(names)]
    .map(
      (name) =>
        `${name}${names.filter((n) => n === name).length > 1 ? ` x${names.filter((n) => n === name).length}` : ''}`,
    )
    .join(', ');

export interface IngestResult {
  file: string;
  bytes: number;
  chunks: number;
  /** From the first chunk's request until the job answered `complete`. */
  seconds: number;
  uploadSeconds: number;
  layerId: string;
  featureCount: number;
  bbox: [number, number, number, number];
  memory: ReturnType<ReturnType<typeof watchMemory>['stop']>;
  /** Where the time went: the job's successive stages and messages (numbers blanked), with their durations. */
  phases: { phase: string; seconds: number }[];
}

interface Job {
  stage: string;
  message: string | null;
  layerId?: string;
}

/** What a chunked upload and its job came to: the timings, the memory, the job's last answer. */
export interface ProcessedUpload {
  bytes: number;
  chunks: number;
  seconds: number;
  uploadSeconds: number;
  job: Job;
  memory: ReturnType<ReturnType<typeof watchMemory>['stop']>;
  phases: { phase: string; seconds: number }[];
}

/**
 * Uploads `file` in chunks under a fresh upload id, asks for it to be processed, and polls the
 * job every 100 ms until it is complete. Throws when any step is refused or the job ends in
 * `error`.
 */
export async function uploadAndProcess(
  server: Server,
  token: string,
  file: string,
  csv?: string,
): Promise<ProcessedUpload> {
  const bytes = statSync(file).size;
  const fileName = path.basename(file);
  const totalChunks = Math.max(1, Math.ceil(bytes / CHUNK_BYTES));
  const uploadId = `bench-${Date.now().toString(36)}-${Math.floor(Math.random() * 1e6)}`;
  const memory = watchMemory(server.pid, csv);
  const phases: { phase: string; at: number }[] = [];
  const mark = (phase: string) => {
    if (phases.at(-1)?.phase !== phase) phases.push({ phase, at: performance.now() });
  };
  const t0 = performance.now();
  mark('upload-chunk');
  for (let index = 0; index < totalChunks; index++) {
    const range = { start: index * CHUNK_BYTES, end: Math.min(bytes, (index + 1) * CHUNK_BYTES) };
    const fields = {
      roomName: ROOM_ID,
      uploadId,
      chunkIndex: String(index),
      totalChunks: String(totalChunks),
      fileName,
    };
    const sent = await uploadMultipart(
      `${server.url}/api/layers/upload-chunk`,
      token,
      { field: 'chunk', path: file, fileName, range },
      fields,
    );
    if (sent.status !== 200) throw new Error(`upload-chunk ${index} of ${totalChunks}: ${sent.status} ${sent.body}`);
  }
  mark('process-chunked (assemble, open, queue)');
  const { jobId } = await api<{ jobId: string }>(server.url, 'POST', '/api/layers/process-chunked', {
    token,
    body: { roomName: ROOM_ID, uploadId, layerName: fileName, fileName },
  });
  const uploadSeconds = (performance.now() - t0) / 1000;
  let job: Job;
  const deadline = Date.now() + 2 * 3600_000;
  for (;;) {
    job = await api<Job>(server.url, 'GET', `/api/layers/jobs/${jobId}`, { token });
    if (job.stage === 'complete' || job.stage === 'error') break;
    if (Date.now() > deadline) throw new Error(`layer job ${jobId} still at "${job.message}" after two hours`);
    mark(`${job.stage}: ${(job.message ?? '').replace(/\d[\d,.]*/g, '#')}`);
    if (process.stdout.isTTY) process.stdout.write(`\r   ${job.message ?? job.stage}          `);
    await sleep(100);
  }
  const end = performance.now();
  if (process.stdout.isTTY) process.stdout.write('\r');
  const used = memory.stop();
  if (job.stage !== 'complete' || !job.layerId) throw new Error(`layer job ended in ${job.stage}: ${job.message}`);
  return {
    bytes,
    chunks: totalChunks,
    seconds: (end - t0) / 1000,
    uploadSeconds,
    job,
    memory: used,
    phases: phases.map((p, i) => ({ phase: p.phase, seconds: ((phases[i + 1]?.at ?? end) - p.at) / 1000 })),
  };
}

/**
 * A vector file through `uploadAndProcess`; then checks that the room lists the layer with
 * `expectedCount` features and a bbox.
 */
export async function ingestByChunks(
  server: Server,
  token: string,
  file: string,
  expectedCount: number,
  csv?: string,
): Promise<IngestResult> {
  const processed = await uploadAndProcess(server, token, file, csv);
  const { layers } = await api<{ layers: { id: string; featureCount: number; bbox: number[] | null }[] }>(
    server.url,
    'GET',
    `/api/layers/${ROOM_ID}`,
    { token },
  );
  const layer = layers.find((l) => l.id === processed.job.layerId);
  if (!layer || layer.featureCount !== expectedCount || !layer.bbox) {
    throw new Error(
      `expected layer ${processed.job.layerId} with ${expectedCount} features and a bbox, the room lists ${JSON.stringify(layer)}`,
    );
  }
  const { job: _job, ...rest } = processed;
  return {
    file,
    ...rest,
    layerId: layer.id,
    featureCount: layer.featureCount,
    bbox: layer.bbox as IngestResult['bbox'],
  };
}

/** The phases merged by name (a message seen again later adds to its first place), for a one-line summary. */
export function phaseSummary(phases: IngestResult['phases']): string {
  const merged = new Map<string, number>();
  for (const { phase, seconds } of phases) merged.set(phase, (merged.get(phase) ?? 0) + seconds);
  return [...merged].map(([phase, seconds]) => `${phase} ${seconds.toFixed(1)} s`).join('; ');
}
