/**
 * The embed page (`BENCH_ONLY=embed`): a public room on a fresh Maproom (SQLite, no internet
 * base map) with 10,000 markers (bulk import) and its default view on them, opened in Debian's
 * Chromium as another site's iframe loads it, `/e/<room>` with no credential, to its first frame
 * with the markers drawn (`maproom:markers-drawn`); beside the bare MapLibre page of the web
 * benchmark (the peer, bench/web-pages.ts), in turn, BENCH_EMBED_RUNS (5) times each, and the
 * room's own page `/r/<room>` (anonymous) beside them for comparison. Target: the embed's median
 * at most 1.2x the bare page's. The first frame with markers is the page's preview of them, drawn
 * before the map is made; the map's own drawing of them (`maproom:map-markers-drawn`) is shown too.
 */
import { chromium } from 'playwright-core';
import { api, ROOM_ID, type Row, setUp, startMaproom, stopServer } from './harness.js';
import { markTime, median, openToMark, startBarePage } from './web-pages.js';
import { bulkImport, markersIn } from './web-rooms.js';

const RUNS = Number(process.env.BENCH_EMBED_RUNS ?? 5);
const MARKERS = 10_000;
const TARGET = 1.2;
const VIEW = { lat: 46.95, lng: 7.45, zoom: 11 };

export async function runEmbedBench(): Promise<{ rows: Row[]; missed: string[] }> {
  const server = await startMaproom('maproom-embed', { BASEMAPS: 'none' });
  const bare = await startBarePage(VIEW);
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
  });
  try {
    const token = await setUp(server.url, ['read', 'write', 'upload']);
    await bulkImport(server, token, await markersIn([7.3, 46.85, 7.6, 47.05], MARKERS));
    const { token: session } = await api(server.url, 'POST', '/api/auth/login', {
      body: { email: 'bench@example.com', password: 'bench-password-1' },
    });
    await api(server.url, 'PATCH', `/api/rooms/${ROOM_ID}/public`, { token: session, body: { isPublic: true } });
    await api(server.url, 'PATCH', `/api/rooms/${ROOM_ID}/camera-settings`, {
      token: session,
      body: { defaultView: VIEW },
    });
    const bareMs: number[] = [];
    const embedMs: number[] = [];
    // The same public room's own page, opened anonymously: where the embed's time differs from it.
    const roomMs: number[] = [];
    // The map's own drawing of the markers (the first frame with markers is the page's preview).
    const mapMs: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const peer = await openToMark(browser, bare.url, 'bare:map-loaded');
      bareMs.push(peer.ms);
      await peer.close();
      const embed = await openToMark(browser, `${server.url}/e/${ROOM_ID}`, 'maproom:markers-drawn');
      embedMs.push(embed.ms);
      mapMs.push(await markTime(embed.page, 'maproom:map-markers-drawn'));
      if (run === 0) console.log(`   embed: ${embed.phases}`);
      await embed.close();
      const room = await openToMark(browser, `${server.url}/r/${ROOM_ID}`, 'maproom:markers-drawn');
      roomMs.push(room.ms);
      if (run === 0) console.log(`   embed: the room's page: ${room.phases}`);
      await room.close();
    }
    const ratio = median(embedMs) / median(bareMs);
    console.log(
      `   embed: bare page ${bareMs.map(Math.round).join(', ')} ms; /e/ ${embedMs.map(Math.round).join(', ')} ms; ` +
        `/r/ ${roomMs.map(Math.round).join(', ')} ms; /e/, the map's own markers ${mapMs.map(Math.round).join(', ')} ms`,
    );
    const label = `web: embedded public room (${MARKERS.toLocaleString('en-US')} markers) to markers drawn, median of ${RUNS}`;
    const met = ratio <= TARGET;
    return {
      rows: [
        [
          label,
          `${Math.round(median(embedMs))} ms`,
          `${Math.round(median(bareMs))} ms`,
          `${ratio.toFixed(2)}x`,
          `<= ${TARGET}x`,
          met ? 'yes' : 'NO',
        ],
        [
          `web: embedded public room, the map's own markers drawn, median of ${RUNS}`,
          `${Math.round(median(mapMs))} ms`,
          `${Math.round(median(bareMs))} ms`,
          `${(median(mapMs) / median(bareMs)).toFixed(2)}x`,
          'none',
          '',
        ],
      ],
      missed: met ? [] : [label],
    };
  } finally {
    await browser.close();
    await bare.close();
    await stopServer(server);
  }
}
