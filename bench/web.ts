/**
 * The web application benchmark (`BENCH_ONLY=web npm run bench`; see bench/README.md).
 *
 * One room on a fresh Maproom (SQLite, no internet base map): the vector benchmark's 1,000,000
 * building footprints (chunked upload) and 10,000 markers (bulk import) spread over the same
 * area, the room's default view on them. Debian's Chromium (headless, software WebGL) then opens
 * /r/<room> with the owner's session, five times, and reports the time from navigation start
 * until the first frame with the markers drawn (the page's `maproom:markers-drawn` User Timing
 * mark); then the frames drawn while the map is dragged for 3 seconds; and the gzipped size
 * of the application's JavaScript; and the presence pointer latency between two browsers
 * (bench/web-presence.ts).
 *
 * Environment:
 *   BENCH_WEB_COUNT=1000000   polygons in the layer (BENCH_QUICK=1: 100,000)
 *   BENCH_WEB_MARKERS=10000   markers in the room
 */
import { createWriteStream, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import {
  api,
  ROOM_ID,
  ROOT,
  setUp,
  sleep,
  startMaproom,
  stopServer,
  TMP,
  uploadMultipart,
  type Row,
  type Server,
} from './harness.js';
import { vectorData } from './vector-data.js';
import { ingestByChunks } from './vector-upload.js';
import { measurePresenceLatency } from './web-presence.js';

const env = process.env;
const COUNT = Number(env.BENCH_WEB_COUNT ?? (env.BENCH_QUICK === '1' ? 100_000 : 1_000_000));
const MARKERS = Number(env.BENCH_WEB_MARKERS ?? 10_000);
const DRAWN_TARGET_MS = 2000;
const RUNS = 5;

/** `count` markers at random places inside `bbox`, as a GeoJSON file for bulk import. */
async function markersIn(bbox: number[], count: number): Promise<string> {
  const file = path.join(TMP, 'web-markers.geojson');
  let seed = 7;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
  const colours = ['#e53e3e', '#3182ce', '#38a169', '#d69e2e'];
  function* features() {
    yield '{"type":"FeatureCollection","features":[';
    for (let i = 0; i < count; i++) {
      const lon = bbox[0]! + random() * (bbox[2]! - bbox[0]!);
      const lat = bbox[1]! + random() * (bbox[3]! - bbox[1]!);
      yield `${i ? ',' : ''}{"type":"Feature","geometry":{"type":"Point","coordinates":[${lon.toFixed(6)},${lat.toFixed(6)}]},"properties":{"title":"Site ${i + 1}","color":"${colours[i % 4]}"}}`;
    }
    yield ']}';
  }
  await pipeline(Readable.from(features()), createWriteStream(file));
  return file;
}

async function bulkImport(server: Server, token: string, file: string) {
  const sent = await uploadMultipart(`${server.url}/api/rooms/${ROOM_ID}/bulk-import`, token, {
    field: 'file',
    path: file,
    contentType: 'application/geo+json',
  });
  if (sent.status !== 200) throw new Error(`bulk import: ${sent.status} ${sent.body}`);
  const { jobId } = JSON.parse(sent.body) as { jobId: string };
  for (;;) {
    const job = await api<{ stage: string; message: string | null }>(server.url, 'GET', `/api/jobs/${jobId}`, {
      token,
    });
    if (job.stage === 'error') throw new Error(`bulk import failed: ${job.message}`);
    if (job.stage === 'complete') return;
    await sleep(200);
  }
}

/** Gzipped bytes of every JavaScript file the build emitted (the app, MapLibre, MapLibre's worker). */
function gzippedJs(): { total: number; files: string[] } {
  const dir = path.join(ROOT, 'dist', 'web', 'assets');
  const files = readdirSync(dir).filter((f) => f.endsWith('.js'));
  const sizes = files.map((f) => ({ f, gz: gzipSync(readFileSync(path.join(dir, f)), { level: 9 }).length }));
  return {
    total: sizes.reduce((sum, s) => sum + s.gz, 0),
    files: sizes.map((s) => `${s.f} ${(s.gz / 1024).toFixed(0)} kB`),
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function runWebBench(): Promise<{ rows: Row[]; missed: string[] }> {
  console.log(
    `\n## Web application: ${MARKERS.toLocaleString('en-US')} markers and ${COUNT.toLocaleString('en-US')} polygons\n`,
  );
  const data = await vectorData(COUNT);
  const server = await startMaproom('maproom-web', { BASEMAPS: 'none' });
  const browser = await chromium.launch({
    executablePath: env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
  });
  try {
    const token = await setUp(server.url, ['read', 'write', 'upload']);
    const layer = await ingestByChunks(server, token, data.gpkg, COUNT);
    const bbox = layer.bbox as number[];
    const markers = await markersIn(bbox, MARKERS);
    await bulkImport(server, token, markers);
    rmSync(markers, { force: true });
    const session = await api<{ token: string; user: unknown }>(server.url, 'POST', '/api/auth/login', {
      body: { email: 'bench@example.com', password: 'bench-password-1' },
    });
    const centre = { lat: (bbox[1]! + bbox[3]!) / 2, lng: (bbox[0]! + bbox[2]!) / 2 };
    await api(server.url, 'PATCH', `/api/rooms/${ROOM_ID}/camera-settings`, {
      token: session.token,
      body: { defaultView: { ...centre, zoom: 12 } },
    });

    const drawn: number[] = [];
    const idle: number[] = [];
    let fps = 0;
    let slowFrames = 0;
    for (let run = 0; run < RUNS; run++) {
      // bypassCSP: the page's policy forbids evaluating strings, which the measuring code below is.
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
      await context.addInitScript((saved) => localStorage.setItem('maproom.session', saved), JSON.stringify(session));
      const page = await context.newPage();
      await page.goto(`${server.url}/r/${ROOM_ID}`);
      // Page code as text: tsx would wrap named functions in a helper the page does not have.
      const marks = await page.waitForFunction(
        `(() => {
          const drawn = performance.getEntriesByName('maproom:markers-drawn')[0];
          const idle = performance.getEntriesByName('maproom:map-idle')[0];
          return drawn && idle && { markersDrawn: drawn.startTime, mapIdle: idle.startTime };
        })()`,
        undefined,
        { timeout: 120_000, polling: 50 },
      );
      const { markersDrawn, mapIdle } = (await marks.jsonValue()) as { markersDrawn: number; mapIdle: number };
      drawn.push(markersDrawn);
      idle.push(mapIdle);
      // Where the time went: when the scripts arrived, the room's requests went out, the markers arrived.
      const phases = (await page.evaluate(`(() => {
        const r = performance.getEntriesByType('resource');
        const end = (part) => Math.round(Math.max(...r.filter((e) => e.name.includes(part)).map((e) => e.responseEnd)));
        const start = (part) => Math.round(Math.min(...r.filter((e) => e.name.includes(part)).map((e) => e.startTime)));
        return 'scripts ' + end('/assets/') + ', first API request ' + start('/api/') + ', markers answered ' + end('/markers') + ', all answered ' + end('/comments');
      })()`)) as string;
      console.log(
        `   run ${run + 1}: markers drawn ${markersDrawn.toFixed(0)} ms, map idle ${mapIdle.toFixed(0)} ms after navigation (${phases} ms)`,
      );
      if (run === RUNS - 1) {
        // Frames while panning: the map dragged 600 px and back, for about 3 seconds.
        const box = (await page.getByTestId('map').boundingBox())!;
        const x = box.x + box.width / 2;
        const y = box.y + box.height / 2;
        await page.evaluate(`(() => {
          window.frames_ = [];
          const tick = (t) => { window.frames_.push(t); requestAnimationFrame(tick); };
          requestAnimationFrame(tick);
        })()`);
        await page.mouse.move(x, y);
        await page.mouse.down();
        for (let step = 0; step < 60; step++) {
          await page.mouse.move(
            x + 300 * Math.sin((step / 60) * 2 * Math.PI),
            y + 100 * Math.sin((step / 30) * Math.PI),
            { steps: 1 },
          );
          await sleep(50);
        }
        await page.mouse.up();
        const times = (await page.evaluate('window.frames_')) as number[];
        const gaps = times.slice(1).map((t, i) => t - times[i]!);
        fps = gaps.length / ((times.at(-1)! - times[0]!) / 1000);
        slowFrames = gaps.filter((g) => g > 50).length / gaps.length;
        console.log(
          `   panning: ${gaps.length} frames, ${fps.toFixed(1)} fps, ${(slowFrames * 100).toFixed(0)}% of frames over 50 ms`,
        );
      }
      await context.close();
    }
    const presence = await measurePresenceLatency(browser, server.url, session);
    const js = gzippedJs();
    console.log(`   JavaScript (gzip -9): ${js.files.join(', ')}`);
    const drawnMs = median(drawn);
    const met = drawnMs < DRAWN_TARGET_MS;
    const rows: Row[] = [
      [
        `web: navigation to ${MARKERS / 1000}k markers drawn, median of ${RUNS} (ms)`,
        `${drawnMs.toFixed(0)} ms`,
        'n/a',
        'n/a',
        `< ${DRAWN_TARGET_MS} ms`,
        met ? 'yes' : 'NO',
      ],
      [
        `web: navigation to map idle (markers and ${COUNT / 1e6 >= 1 ? `${COUNT / 1e6}M` : `${COUNT / 1000}k`}-polygon tiles), median (ms)`,
        `${median(idle).toFixed(0)} ms`,
        'n/a',
        'n/a',
        'none',
        'n/a',
      ],
      [
        'web: frames while panning (headless Chromium, software WebGL)',
        `${fps.toFixed(1)} fps; ${(slowFrames * 100).toFixed(0)}% over 50 ms`,
        'n/a',
        'n/a',
        'none',
        'n/a',
      ],
      [
        'web: JavaScript, gzipped (app + MapLibre + its worker)',
        `${(js.total / 1024).toFixed(0)} kB`,
        'n/a',
        'n/a',
        'none',
        'n/a',
      ],
      ...presence.rows,
    ];
    const missed = met ? [] : [`markers drawn in ${drawnMs.toFixed(0)} ms (target < ${DRAWN_TARGET_MS} ms)`];
    return { rows, missed: [...missed, ...presence.missed] };
  } finally {
    await browser.close();
    await stopServer(server);
  }
}
