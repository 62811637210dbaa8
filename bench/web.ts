/**
 * The web application benchmark (`BENCH_ONLY=web npm run bench`; see bench/README.md).
 *
 * One room on a fresh Maproom (SQLite, no internet base map): the vector benchmark's 1,000,000
 * building footprints (chunked upload) and 10,000 markers (bulk import) spread over the same
 * area, the room's default view on them, and a published deck whose first slide shows a few
 * markers, a labelled drawing and the buildings. Debian's Chromium (headless, software WebGL)
 * then opens, in turn, five times each: a bare MapLibre page with the same base style (the
 * peer), /r/<room> with the owner's session to the first frame with the markers drawn (the
 * page's `maproom:markers-drawn` User Timing mark), and /p/<room> to its first slide drawn
 * (`maproom:slide-shown`, its preview's frame or the map's: web/src/map/slide-preview.ts; the
 * map's own, `maproom:slide-map-drawn`, is reported beside it); each of the two must take at most
 * 1.5x the bare page; and the bare page and the room again on a phone's viewport (390x844, touch),
 * the room at most 1.5x the bare page there. Then the frames
 * drawn while the map is dragged for 3 seconds, and the gzipped size of the JavaScript. Last, a
 * small room (3 markers, 3 layers) and its deck on a Maproom that offers the internet's base
 * maps, opened while every request to a tile server hangs: each must show in under 2 s. And the
 * presence pointer latency between two browsers (bench/web-presence.ts).
 *
 * Environment:
 *   BENCH_WEB_COUNT=1000000   polygons in the layer (BENCH_QUICK=1: 100,000)
 *   BENCH_WEB_MARKERS=10000   markers in the room
 *   BENCH_WEB_ONLY=open       only the openings in turn (bare page, room, deck): no map idle, panning,
 *                             presence or small room (for iterating on the pages' opening)
 *   BENCH_WEB_RUNS=5          openings of each in turn
 *   BENCH_WEB_TRACE=<dir>     afterwards, a Chromium performance trace of one room opening and one
 *                             deck opening, written to <dir> (open them in Chrome's performance panel)
 */
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { type Browser, chromium } from 'playwright-core';
import { api, ROOM_ID, ROOT, type Row, setUp, startMaproom, stopServer } from './harness.js';
import { vectorData } from './vector-data.js';
import { ingestByChunks } from './vector-upload.js';
import { markTime, median, openToMark, PHONE, startBarePage } from './web-pages.js';
import { measureGis, panning } from './web-gis.js';
import { measurePresenceLatency } from './web-presence.js';
import { bulkImport, markersIn, publishDeck, smallRoom } from './web-rooms.js';

const env = process.env;
const COUNT = Number(env.BENCH_WEB_COUNT ?? (env.BENCH_QUICK === '1' ? 100_000 : 1_000_000));
const MARKERS = Number(env.BENCH_WEB_MARKERS ?? 10_000);
/** The room and the deck each at most this many times the bare MapLibre page. */
const RATIO_TARGET = 1.5;
/** The small room and its deck, base map tiles hanging. */
const SMALL_TARGET_MS = 2000;
/** How long a request to a tile server hangs before it fails (a resolver or connection timing out). */
const HANG_MS = 10_000;
const RUNS = Number(env.BENCH_WEB_RUNS ?? 5);
const OPEN_ONLY = env.BENCH_WEB_ONLY === 'open';
const TRACE_DIR = env.BENCH_WEB_TRACE ? path.resolve(env.BENCH_WEB_TRACE) : undefined;
const SMALL_RUNS = 3;

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

const BROWSER_ARGS = ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'];

/**
 * A browser whose connections to the base map's tile servers hang: every host name resolves to
 * 127.0.0.1, where port 443 accepts and answers nothing for HANG_MS. Without port 443, the
 * pages' own requests to other hosts are held in the browser instead (which adds its cost).
 */
async function browserWithoutInternet(): Promise<{ browser: Browser; hangTiles?: number; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const hanging = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    setTimeout(() => socket.destroy(), HANG_MS).unref();
  });
  const listening = await new Promise<boolean>((resolve) => {
    hanging.once('error', () => resolve(false));
    hanging.listen(443, '127.0.0.1', () => resolve(true));
  });
  const browser = await chromium.launch({
    executablePath: env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [...BROWSER_ARGS, ...(listening ? ['--host-resolver-rules=MAP * 127.0.0.1'] : [])],
  });
  return {
    browser,
    ...(!listening && { hangTiles: HANG_MS }),
    close: async () => {
      await browser.close();
      for (const socket of sockets) socket.destroy();
      if (listening) await new Promise((resolve) => hanging.close(resolve));
    },
  };
}

/** The small room and its deck on a Maproom offering the internet's base maps, every tile request hanging. */
async function smallRoomTimes() {
  const server = await startMaproom('maproom-web-small', { BASEMAPS: 'builtin' });
  const { browser, hangTiles, close } = await browserWithoutInternet();
  try {
    const session = await smallRoom(server);
    const room: number[] = [];
    const deck: number[] = [];
    for (let run = 0; run < SMALL_RUNS; run++) {
      const opened = await openToMark(browser, `${server.url}/r/${ROOM_ID}`, 'maproom:markers-drawn', {
        session,
        hangTiles,
      });
      room.push(opened.ms);
      await opened.close();
      const shown = await openToMark(browser, `${server.url}/p/${ROOM_ID}`, 'maproom:slide-shown', {
        hangTiles,
      });
      deck.push(shown.ms);
      await shown.close();
      console.log(
        `   small room, tiles hanging, run ${run + 1}: markers drawn ${opened.ms.toFixed(0)} ms (${opened.phases}); deck's first slide ${shown.ms.toFixed(0)} ms (${shown.phases})`,
      );
    }
    return { room: median(room), deck: median(deck) };
  } finally {
    await close();
    await stopServer(server);
  }
}

/** The room and the deck against the bare page: medians of the openings in turn. */
function openRows(times: {
  bare: number[];
  room: number[];
  deck: number[];
  deckMap: number[];
  phoneBare: number[];
  phoneRoom: number[];
}): Row[] {
  const peerMs = median(times.bare);
  const ratioRow = (name: string, value: number, peer = peerMs): Row => [
    name,
    ms(value),
    ms(peer),
    `${(value / peer).toFixed(2)}x`,
    `<= ${RATIO_TARGET}x`,
    value / peer <= RATIO_TARGET ? 'yes' : 'NO',
  ];
  return [
    ratioRow(`web: ${MARKERS / 1000}k-marker room, navigation to markers drawn, median of ${RUNS}`, median(times.room)),
    ratioRow(
      `web: the same room on a phone (${PHONE.width}x${PHONE.height}, touch), to markers drawn, median of ${RUNS}`,
      median(times.phoneRoom),
      median(times.phoneBare),
    ),
    ratioRow(`web: public deck, navigation to its first slide drawn, median of ${RUNS}`, median(times.deck)),
    // The slide is first drawn by its preview (web/src/map/slide-preview.ts); this is MapLibre's own.
    [
      `web: public deck, navigation to its first slide drawn by the map itself, median of ${RUNS}`,
      ms(median(times.deckMap)),
      ms(peerMs),
      `${(median(times.deckMap) / peerMs).toFixed(2)}x`,
      'none',
      'n/a',
    ],
  ];
}

/** One room opening and one deck opening under Chromium's tracing, each written to TRACE_DIR. */
async function traceOpenings(browser: Browser, url: string, session: string) {
  mkdirSync(TRACE_DIR!, { recursive: true });
  const categories = [
    'devtools.timeline',
    'disabled-by-default-devtools.timeline',
    'v8.execute',
    'blink.user_timing',
    'loading',
    'gpu',
    'toplevel',
  ];
  for (const [name, address, mark, options] of [
    ['room', `${url}/r/${ROOM_ID}`, 'maproom:markers-drawn', { session }],
    ['deck', `${url}/p/${ROOM_ID}`, 'maproom:slide-shown', {}],
  ] as const) {
    const file = path.join(TRACE_DIR!, `${name}.json`);
    await browser.startTracing(undefined, { path: file, categories, screenshots: false });
    const opened = await openToMark(browser, address, mark, options);
    await browser.stopTracing();
    await opened.close();
    console.log(`   trace of the ${name} opening (${opened.ms.toFixed(0)} ms): ${file}`);
  }
}

const ms = (n: number) => `${Math.round(n).toLocaleString('en-US')} ms`;

export async function runWebBench(): Promise<{ rows: Row[]; missed: string[] }> {
  console.log(
    `\n## Web application: ${MARKERS.toLocaleString('en-US')} markers and ${COUNT.toLocaleString('en-US')} polygons\n`,
  );
  const data = await vectorData(COUNT);
  const server = await startMaproom('maproom-web', { BASEMAPS: 'none' });
  const browser = await chromium.launch({
    executablePath: env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: BROWSER_ARGS,
  });
  let bare: Awaited<ReturnType<typeof startBarePage>> | undefined;
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
    const elsewhere = {
      lat: bbox[1]! + (bbox[3]! - bbox[1]!) / 4,
      lng: bbox[0]! + (bbox[2]! - bbox[0]!) / 4,
      zoom: 13,
    };
    await publishDeck(
      server,
      { script: token, owner: session.token },
      { ...centre, zoom: 15 },
      [layer.layerId],
      elsewhere,
    );
    bare = await startBarePage({ ...centre, zoom: 12 });

    const times = {
      bare: [] as number[],
      room: [] as number[],
      deck: [] as number[],
      deckMap: [] as number[],
      idle: [] as number[],
      phoneBare: [] as number[],
      phoneRoom: [] as number[],
    };
    let pan = { fps: 0, slow: 0, frames: 0 };
    // In turn, so that the three meet about the same machine load.
    for (let run = 0; run < RUNS; run++) {
      const peer = await openToMark(browser, bare.url, 'bare:map-loaded');
      times.bare.push(peer.ms);
      await peer.close();
      const room = await openToMark(browser, `${server.url}/r/${ROOM_ID}`, 'maproom:markers-drawn', {
        session: JSON.stringify(session),
      });
      times.room.push(room.ms);
      if (!OPEN_ONLY) {
        times.idle.push(await markTime(room.page, 'maproom:map-idle'));
        if (run === RUNS - 1) pan = await panning(room.page);
      }
      await room.close();
      const deck = await openToMark(browser, `${server.url}/p/${ROOM_ID}`, 'maproom:slide-shown');
      times.deck.push(deck.ms);
      times.deckMap.push(await markTime(deck.page, 'maproom:slide-map-drawn'));
      await deck.close();
      const phonePeer = await openToMark(browser, bare.url, 'bare:map-loaded', { phone: true });
      times.phoneBare.push(phonePeer.ms);
      await phonePeer.close();
      const phoneRoom = await openToMark(browser, `${server.url}/r/${ROOM_ID}`, 'maproom:markers-drawn', {
        session: JSON.stringify(session),
        phone: true,
      });
      times.phoneRoom.push(phoneRoom.ms);
      await phoneRoom.close();
      console.log(
        `   run ${run + 1} on a phone: bare MapLibre ${phonePeer.ms.toFixed(0)} ms; room, markers drawn ${phoneRoom.ms.toFixed(0)} ms (${phoneRoom.phases})`,
      );
      console.log(
        `   run ${run + 1}: bare MapLibre ${peer.ms.toFixed(0)} ms (${peer.phases}); room, markers drawn ${room.ms.toFixed(0)} ms, map idle ${times.idle.at(-1)?.toFixed(0) ?? '-'} ms (${room.phases}); deck's first slide ${deck.ms.toFixed(0)} ms, by the map ${times.deckMap.at(-1)!.toFixed(0)} ms (${deck.phases})`,
      );
    }
    if (TRACE_DIR) await traceOpenings(browser, server.url, JSON.stringify(session));
    if (OPEN_ONLY) {
      const rows = openRows(times);
      return {
        rows,
        missed: rows.filter((row) => row[5] === 'NO').map((row) => `${row[0]}: ${row[1]} (target ${row[4]})`),
      };
    }
    console.log(
      `   panning: ${pan.frames} frames, ${pan.fps.toFixed(1)} fps, ${(pan.slow * 100).toFixed(0)}% of frames over 50 ms`,
    );
    const size = COUNT >= 1e6 ? `${COUNT / 1e6}M` : `${COUNT / 1000}k`;
    const gis = await measureGis(browser, {
      server,
      session,
      token,
      layerId: layer.layerId,
      view: { ...centre, zoom: 12 },
      size,
    });
    const presence = await measurePresenceLatency(browser, server.url, session);
    const small = await smallRoomTimes();
    const js = gzippedJs();
    console.log(`   JavaScript (gzip -9): ${js.files.join(', ')}`);

    const smallRow = (name: string, value: number): Row => [
      name,
      ms(value),
      'n/a',
      'n/a',
      `< ${SMALL_TARGET_MS} ms`,
      value < SMALL_TARGET_MS ? 'yes' : 'NO',
    ];
    const rows: Row[] = [
      ...openRows(times),
      smallRow(
        `web: small room (3 markers, 3 layers), tile servers hanging, to markers drawn, median of ${SMALL_RUNS}`,
        small.room,
      ),
      smallRow(
        `web: its public deck, tile servers hanging, to the first slide drawn, median of ${SMALL_RUNS}`,
        small.deck,
      ),
      [
        `web: navigation to map idle (markers and ${COUNT / 1e6 >= 1 ? `${COUNT / 1e6}M` : `${COUNT / 1000}k`}-polygon tiles), median (ms)`,
        ms(median(times.idle)),
        'n/a',
        'n/a',
        'none',
        'n/a',
      ],
      [
        'web: frames while panning (headless Chromium, software WebGL)',
        `${pan.fps.toFixed(1)} fps; ${(pan.slow * 100).toFixed(0)}% over 50 ms`,
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
      ...gis.rows,
      ...presence.rows,
    ];
    const missed = rows
      .filter((row) => row[5] === 'NO' && !presence.rows.includes(row) && !gis.rows.includes(row))
      .map((row) => `${row[0]}: ${row[1]} (target ${row[4]})`);
    return { rows, missed: [...missed, ...gis.missed, ...presence.missed] };
  } finally {
    await bare?.close();
    await browser.close();
    await stopServer(server);
  }
}
