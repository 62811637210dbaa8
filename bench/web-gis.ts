/**
 * The web benchmark's GIS rows (bench/README.md "Web application"): on the room of
 * bench/web.ts (10,000 markers over the buildings layer), the frames drawn while panning
 * against the same page on an empty room, in turn; a click on a building to its attributes
 * shown; and the attribute table's next page, clicked to rows drawn, with the route's own time.
 *
 * Environment:
 *   BENCH_WEB_SHOTS=<dir>   save a screenshot of the last inspected feature and of the paged table there
 */
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { api, ROOM_ID, type Row, type Server, sleep } from './harness.js';
import { median, openToMark, type View } from './web-pages.js';

/** Frames while panning the room: at least this share of the empty room's. */
const PAN_RATIO_TARGET = 0.7;
/** A click on a feature to its attributes shown. */
const INSPECT_TARGET_MS = 300;
/** The attribute table's next page, clicked to its rows drawn. */
const PAGE_TARGET_MS = 200;
const PAN_RUNS = 3;
const CLICKS = 10;
/** Exactly 10 characters, as room ids are. */
const EMPTY_ROOM_ID = 'empty-room';
/** Where the buildings are clicked: a few metres a pixel, footprints tens of pixels wide. */
const INSPECT_ZOOM = 16;
/** A building is aimed at only when its centre is this far from every other building's outline. */
const CLEARANCE_PX = 6;
const SHOTS = process.env.BENCH_WEB_SHOTS ? path.resolve(process.env.BENCH_WEB_SHOTS) : undefined;

export interface Pan {
  fps: number;
  slow: number;
  frames: number;
}

/** Frames drawn while the map is dragged 600 px and back, for about 3 seconds. */
export async function panning(page: Page): Promise<Pan> {
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
    await page.mouse.move(x + 300 * Math.sin((step / 60) * 2 * Math.PI), y + 100 * Math.sin((step / 30) * Math.PI), {
      steps: 1,
    });
    await sleep(50);
  }
  await page.mouse.up();
  const times = (await page.evaluate('window.frames_')) as number[];
  const gaps = times.slice(1).map((t, i) => t - times[i]!);
  return {
    fps: gaps.length / ((times.at(-1)! - times[0]!) / 1000),
    slow: gaps.filter((g) => g > 50).length / gaps.length,
    frames: gaps.length,
  };
}

export interface GisRoom {
  server: Server;
  /** The owner's saved session (`{ token, user }` as the page keeps it). */
  session: { token: string; user: unknown };
  /** A room token of the bench script with read access. */
  token: string;
  layerId: string;
  /** The room's default view. */
  view: View;
  /** "100k" or "1M": the layer's size, for the rows' names. */
  size: string;
}

const ms = (n: number) => `${Math.round(n).toLocaleString('en-US')} ms`;
const mapIdle = 'maproom:map-idle';

/**
 * The panning frames of the big room and of an empty room at the same view (the same page and
 * base style, nothing in it), opened in turn PAN_RUNS times each; medians compared.
 */
async function panAgainstEmpty(browser: Browser, room: GisRoom) {
  const { server, session, view } = room;
  await api(server.url, 'POST', `/api/rooms/${EMPTY_ROOM_ID}`, { token: session.token, body: { name: 'Empty room' } });
  await api(server.url, 'PATCH', `/api/rooms/${EMPTY_ROOM_ID}/camera-settings`, {
    token: session.token,
    body: { defaultView: view },
  });
  const fps = { empty: [] as number[], room: [] as number[] };
  for (let run = 0; run < PAN_RUNS; run++) {
    const pans: Record<string, Pan> = {};
    for (const [name, id] of [
      ['empty', EMPTY_ROOM_ID],
      ['room', ROOM_ID],
    ] as const) {
      const opened = await openToMark(browser, `${server.url}/r/${id}`, mapIdle, { session: JSON.stringify(session) });
      pans[name] = await panning(opened.page);
      fps[name].push(pans[name].fps);
      await opened.close();
    }
    const line = (p: Pan) => `${p.fps.toFixed(1)} fps (${p.frames} frames, ${(p.slow * 100).toFixed(0)}% over 50 ms)`;
    console.log(`   panning, run ${run + 1}: empty room ${line(pans.empty!)}; the room ${line(pans.room!)}`);
  }
  return { empty: median(fps.empty), room: median(fps.room) };
}

interface Feature {
  id: number;
  geometry: { type: string; coordinates: number[][][] };
}

/** Web Mercator at `zoom` as MapLibre draws it (512 px tiles): pixels from the view's centre. */
function pixelOffset(view: View, lng: number, lat: number) {
  const world = 512 * 2 ** view.zoom;
  const y = (latitude: number) => Math.log(Math.tan(Math.PI / 4 + (latitude * Math.PI) / 360));
  return { dx: ((lng - view.lng) / 360) * world, dy: ((y(view.lat) - y(lat)) / (2 * Math.PI)) * world };
}

/**
 * A view on the densest spot of the layer (the cell of 0.01 degrees with most of its first 2,000
 * features, four pages of the attribute table), and up to CLICKS of the features there whose centres lie inside no other feature,
 * each with its offset in pixels from the view's centre.
 */
async function clickTargets(room: GisRoom) {
  const { server, token, layerId } = room;
  const cells = new Map<string, number>();
  let after: string | null = null;
  for (let page = 0; page < 4; page++) {
    const read: { rows: { bbox: number[] }[]; next: string | null } = await api(
      server.url,
      'GET',
      `/api/layers/${layerId}/attributes?limit=500${after ? `&after=${after}` : ''}`,
      { token },
    );
    for (const { bbox } of read.rows) {
      const key = `${Math.floor(bbox[0]! * 100)},${Math.floor(bbox[1]! * 100)}`;
      cells.set(key, (cells.get(key) ?? 0) + 1);
    }
    after = read.next;
  }
  const [densest] = [...cells.entries()].sort((a, b) => b[1] - a[1]);
  const [cx, cy] = densest![0].split(',').map(Number);
  const view = { lng: (cx! + 0.5) / 100, lat: (cy! + 0.5) / 100, zoom: INSPECT_ZOOM };
  // The features within about 300 by 200 px of the centre.
  const reach = pixelOffset(view, view.lng + 0.01, view.lat - 0.01);
  const half = { lng: (0.01 * 300) / reach.dx, lat: (0.01 * 200) / reach.dy };
  const bbox = [view.lng - half.lng, view.lat - half.lat, view.lng + half.lng, view.lat + half.lat].join(',');
  const items: { features: Feature[] } = await api(
    server.url,
    'GET',
    `/api/rooms/${ROOM_ID}/ogc/collections/${layerId}/items?bbox=${bbox}&limit=500`,
    { token },
  );
  const ring = (f: Feature) => f.geometry.coordinates[0]!;
  const centre = (f: Feature) => {
    const points = ring(f).slice(0, -1);
    return [
      points.reduce((s, p) => s + p[0]!, 0) / points.length,
      points.reduce((s, p) => s + p[1]!, 0) / points.length,
    ] as const;
  };
  const inside = (point: readonly [number, number], f: Feature) => {
    let hit = false;
    const r = ring(f);
    for (let i = 0, j = r.length - 1; i < r.length; j = i++) {
      const [xi, yi] = r[i]!;
      const [xj, yj] = r[j]!;
      if (yi! > point[1] !== yj! > point[1] && point[0] < ((xj! - xi!) * (point[1] - yi!)) / (yj! - yi!) + xi!)
        hit = !hit;
    }
    return hit;
  };
  // Pixels from the view's centre: a click within CLEARANCE_PX of another building's outline can
  // find that building's outline first (drawn above the fills, 2 px wide): such centres are not aimed at.
  const pixels = (point: readonly [number, number]) => {
    const { dx, dy } = pixelOffset(view, point[0], point[1]);
    return [dx, dy] as const;
  };
  const distanceToRing = (p: readonly [number, number], f: Feature) => {
    const r = ring(f).map((q) => pixels(q as unknown as [number, number]));
    let least = Infinity;
    for (let i = 1; i < r.length; i++) {
      const [ax, ay] = r[i - 1]!;
      const [bx, by] = r[i]!;
      const length = (bx - ax) ** 2 + (by - ay) ** 2;
      const t =
        length === 0 ? 0 : Math.max(0, Math.min(1, ((p[0] - ax) * (bx - ax) + (p[1] - ay) * (by - ay)) / length));
      least = Math.min(least, Math.hypot(p[0] - (ax + t * (bx - ax)), p[1] - (ay + t * (by - ay))));
    }
    return least;
  };
  const polygons = items.features.filter((f) => f.geometry.type === 'Polygon');
  const clear = (f: Feature) =>
    polygons.every(
      (other) => other === f || (!inside(centre(f), other) && distanceToRing(pixels(centre(f)), other) > CLEARANCE_PX),
    );
  const targets = polygons
    .filter(clear)
    .slice(0, CLICKS)
    .map((f) => ({ id: f.id, ...pixelOffset(view, ...centre(f)) }));
  return { view, targets };
}

/**
 * Installs, in the page, the stopwatch of the next click on `selector`: from the click's input
 * event to the frame after `done()` (page code, as text) is first true; `window.stopwatch_`
 * resolves to the milliseconds and what `what()` reads then.
 */
async function armStopwatch(page: Page, selector: string, done: string, what: string) {
  await page.evaluate(`(() => {
    window.stopwatch_ = new Promise((resolve) => {
      let clicked = null;
      const target = document.querySelector(${JSON.stringify(selector)});
      target.addEventListener('click', (event) => { clicked = event.timeStamp; check(); }, { capture: true, once: true });
      const check = () => {
        if (clicked === null || !(${done})()) return;
        observer.disconnect();
        requestAnimationFrame(() => resolve({ clicked, ms: performance.now() - clicked, what: (${what})() }));
      };
      const observer = new MutationObserver(check);
      observer.observe(document.body, { childList: true, subtree: true, characterData: true });
    });
  })()`);
}

interface Stopwatch {
  /** The click's time stamp (the page's clock). */
  clicked: number;
  /** From the click to the frame after the change. */
  ms: number;
  /** What the page showed then. */
  what: string | number;
  /** The request the click made (the last whose address has the part asked for), from the click: sent, answered. */
  request: { sent: number; answered: number };
}

/** Waits for the armed stopwatch; with the timing of the last request whose address contains `part`. */
async function readStopwatch(page: Page, part: string): Promise<Stopwatch> {
  return (await page.evaluate(`window.stopwatch_.then((read) => {
    const found = performance.getEntriesByType('resource').filter((e) => e.name.includes(${JSON.stringify(part)}));
    const last = found.at(-1);
    const request = last ? { sent: last.startTime - read.clicked, answered: last.responseEnd - read.clicked } : { sent: NaN, answered: NaN };
    return { ...read, request };
  })`)) as Stopwatch;
}

const phases = (s: Stopwatch) =>
  `${s.ms.toFixed(0)} (sent ${s.request.sent.toFixed(0)}, answered ${s.request.answered.toFixed(0)})`;

/** CLICKS clicks on buildings of the densest spot, each to its attributes shown in the selection panel. */
async function inspectFeatures(browser: Browser, room: GisRoom) {
  const { server, session } = room;
  const { view, targets } = await clickTargets(room);
  await api(server.url, 'PATCH', `/api/rooms/${ROOM_ID}/camera-settings`, {
    token: session.token,
    body: { defaultView: view },
  });
  const opened = await openToMark(browser, `${server.url}/r/${ROOM_ID}`, mapIdle, { session: JSON.stringify(session) });
  const clicks: Stopwatch[] = [];
  let matched = 0;
  try {
    const box = (await opened.page.getByTestId('map').boundingBox())!;
    const centre = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
    const heading = 'section[aria-label="Feature attributes"] h3';
    let previous = '';
    for (const target of targets) {
      await armStopwatch(
        opened.page,
        '[data-testid="map"] canvas',
        `() => {
          const shown = document.querySelector('${heading}');
          return shown && shown.textContent !== ${JSON.stringify(previous)} && shown.closest('section').querySelector('table, p');
        }`,
        `() => document.querySelector('${heading}').textContent`,
      );
      await opened.page.mouse.click(centre.x + target.dx, centre.y + target.dy);
      const shown = await Promise.race([readStopwatch(opened.page, '/items/'), sleep(10_000).then(() => null)]);
      if (!shown) {
        // What the page shows instead: another selection, an error, or nothing selected (no feature drawn there).
        const instead = (await opened.page.evaluate(`(() => {
          const panel = document.querySelector('section.selection');
          const alerts = [...document.querySelectorAll('[role=alert]')].map((a) => a.textContent).join(' ');
          return (panel ? 'the panel: ' + panel.textContent.slice(0, 100) : 'nothing selected') + (alerts ? '; alert: ' + alerts : '');
        })()`)) as string;
        console.log(`   inspect: feature ${target.id} clicked, nothing shown within 10 s (${instead})`);
        continue;
      }
      previous = String(shown.what);
      if (previous === `Feature ${target.id}`) matched++;
      else console.log(`   inspect: feature ${target.id} clicked, ${previous} shown`);
      clicks.push(shown);
    }
    if (SHOTS) await opened.page.screenshot({ path: path.join(SHOTS, 'web-gis-inspect.png') });
  } finally {
    await opened.close();
    await api(server.url, 'PATCH', `/api/rooms/${ROOM_ID}/camera-settings`, {
      token: session.token,
      body: { defaultView: room.view },
    });
  }
  console.log(
    `   inspect: ${clicks.length} clicks (${matched} on the feature aimed at), click to attributes shown (its request sent, answered) in ms: ${clicks.map(phases).join('; ')}`,
  );
  return {
    ms: median(clicks.map((c) => c.ms)),
    request: median(clicks.map((c) => c.request.answered - c.request.sent)),
    clicks: clicks.length,
  };
}

/** The attribute table of the layer, opened in the room; CLICKS times "More", each to its 50 rows drawn. */
async function tablePages(browser: Browser, room: GisRoom) {
  const { server, session, token, layerId } = room;
  const opened = await openToMark(browser, `${server.url}/r/${ROOM_ID}`, mapIdle, { session: JSON.stringify(session) });
  const clicks: Stopwatch[] = [];
  try {
    const { page } = opened;
    await page.getByRole('tab', { name: 'Layers' }).click();
    await page.getByTestId('layer').first().getByRole('button', { name: 'Table' }).click();
    const table = page.locator('section.attribute-table');
    await table.locator('tbody tr').nth(49).waitFor({ timeout: 60_000 });
    for (let click = 1; click <= CLICKS; click++) {
      const rows = 50 * (click + 1);
      await armStopwatch(
        page,
        'section.attribute-table .scroll > button',
        `() => document.querySelectorAll('section.attribute-table tbody tr').length >= ${rows}`,
        `() => document.querySelectorAll('section.attribute-table tbody tr').length`,
      );
      await table.getByRole('button', { name: 'More' }).click();
      clicks.push(await readStopwatch(page, '/attributes'));
    }
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'web-gis-table.png') });
  } finally {
    await opened.close();
  }
  // The route alone, from here: the same pages (50 rows, by id), each after the one before.
  const route: number[] = [];
  let after: string | null = null;
  for (let page = 0; page <= CLICKS; page++) {
    const started = performance.now();
    const read: { next: string | null } = await api(
      server.url,
      'GET',
      `/api/layers/${layerId}/attributes?limit=50&sort=id&order=asc${after ? `&after=${after}` : ''}`,
      { token },
    );
    if (page > 0) route.push(performance.now() - started);
    after = read.next;
  }
  console.log(
    `   attribute table, "More" to 50 rows drawn (its request sent, answered) in ms: ${clicks.map(phases).join('; ')}; the route alone from the bench: ${route.map((t) => t.toFixed(1)).join(', ')} ms`,
  );
  return {
    ms: median(clicks.map((c) => c.ms)),
    request: median(clicks.map((c) => c.request.answered - c.request.sent)),
    route: median(route),
  };
}

/** The GIS rows: panning against an empty room, a click to a feature's attributes, the attribute table's next page. */
export async function measureGis(browser: Browser, room: GisRoom): Promise<{ rows: Row[]; missed: string[] }> {
  const pan = await panAgainstEmpty(browser, room);
  const inspect = await inspectFeatures(browser, room);
  const table = await tablePages(browser, room);
  const ratio = pan.room / pan.empty;
  const rows: Row[] = [
    [
      `web: frames while panning, 10k markers and ${room.size} polygons in view vs an empty room, median of ${PAN_RUNS} in turn`,
      `${pan.room.toFixed(1)} fps`,
      `${pan.empty.toFixed(1)} fps (empty room)`,
      `${ratio.toFixed(2)}x`,
      `>= ${PAN_RATIO_TARGET}x`,
      ratio >= PAN_RATIO_TARGET ? 'yes' : 'NO',
    ],
    [
      `web: click on a ${room.size}-layer feature to its attributes shown, median of ${inspect.clicks} (its request)`,
      `${ms(inspect.ms)} (${ms(inspect.request)})`,
      'n/a',
      'n/a',
      `< ${INSPECT_TARGET_MS} ms`,
      inspect.ms < INSPECT_TARGET_MS ? 'yes' : 'NO',
    ],
    [
      `web: attribute table of the ${room.size} layer, "More" to the next 50 rows drawn, median of ${CLICKS} (its request)`,
      `${ms(table.ms)} (${ms(table.request)})`,
      'n/a',
      'n/a',
      `< ${PAGE_TARGET_MS} ms`,
      table.ms < PAGE_TARGET_MS ? 'yes' : 'NO',
    ],
    [
      `web: GET /api/layers/:id/attributes, the same pages, from the bench (ms, median of ${CLICKS})`,
      `${table.route.toFixed(1)} ms`,
      'n/a',
      'n/a',
      'none',
      'n/a',
    ],
  ];
  const missed = rows.filter((row) => row[5] === 'NO').map((row) => `${row[0]}: ${row[1]} (target ${row[4]})`);
  return { rows, missed };
}
