import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import sharp from 'sharp';
import { TEST_DB } from '../helpers.js';
import { launchBrowser, startService, TEST_OUTPUT, type RunningService, until } from '../support/browser.js';

// The map as a tool, in Chromium against the real service: the offline base map
// when the tile server does not answer, a room opening at its content, marker titles on the
// map, and the measure of a drawing. Once, on SQLite, like test/web/browser.test.ts.
const skip = TEST_DB !== 'sqlite' && 'the browser tests run once, with the SQLite suite';

const BERN = { lng: 7.4474, lat: 46.948 };
/** The offline map's land colour (web/src/map/base-map.ts), light theme. */
const LAND = [0xf2, 0xef, 0xe6];

/** A loopback port nothing listens on: a tile server that does not answer. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** How many pixels of two screenshots of the same size differ. */
async function differingPixels(a: Buffer, b: Buffer) {
  const [one, two] = await Promise.all([sharp(a).raw().toBuffer(), sharp(b).raw().toBuffer()]);
  let differing = 0;
  for (let i = 0; i < one.length; i += 4) if (Math.abs(one[i]! - two[i]!) > 8) differing++;
  return differing;
}

describe('the map as a tool', { skip }, () => {
  let service: RunningService;
  let browser: Browser;
  let tilePort = 0;
  let token = '';
  let user: unknown;
  const contexts: BrowserContext[] = [];
  const errors: string[] = [];

  const api = async (method: string, url: string, body?: unknown) => {
    const response = await fetch(`${service.url}${url}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body !== undefined && { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = (await response.json()) as Record<string, unknown>;
    assert.ok(response.ok, `${method} ${url}: ${response.status} ${JSON.stringify(answer)}`);
    return answer;
  };
  /** A room of the signed-in user with `autoZoomEnabled` as given and no default view. */
  const newRoom = async (autoZoomEnabled: boolean) => {
    const roomId = `map${Math.random().toString(36).slice(2, 9)}`.padEnd(10, '0').slice(0, 10);
    await api('POST', `/api/rooms/${roomId}`, {});
    await api('PATCH', `/api/rooms/${roomId}/camera-settings`, { autoZoomEnabled, defaultView: null });
    return roomId;
  };
  /** A signed-in page, its failed requests to the dead tile server counted. */
  const open = async (roomId: string) => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    contexts.push(context);
    await context.addInitScript((session) => localStorage.setItem('maproom.session', JSON.stringify(session)), {
      token,
      user,
    });
    const page = await context.newPage();
    const failed: string[] = [];
    page.on('requestfailed', (request) => {
      if (new URL(request.url()).port === String(tilePort)) failed.push(request.url());
    });
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${service.url}/r/${roomId}`);
    await page.locator('[data-testid=map][data-ready=true]').waitFor({ timeout: 30_000 });
    return { page, failed };
  };
  const mapCentre = async (page: Page) =>
    page.evaluate(() => {
      const box = document.querySelector('[data-testid=map]')!.getBoundingClientRect();
      return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
    });

  before(async () => {
    tilePort = await closedPort();
    service = await startService({
      BASEMAP_TILES: `http://127.0.0.1:${tilePort}/{z}/{x}/{y}.png`,
      BASEMAP_ATTRIBUTION: '© Dead tiles',
    });
    browser = await launchBrowser();
    const signup = await fetch(`${service.url}/api/auth/signup`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: `map-${Date.now()}@example.com`, password: 'a-long-password', name: 'Mo' }),
    });
    ({ token, user } = (await signup.json()) as { token: string; user: unknown });
    assert.ok(token);
  });
  after(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await service?.stop();
  });

  test('a room with autoZoomEnabled and content in Bern opens at Bern, on the offline map when the tile server is dead, with marker titles', async () => {
    const roomId = await newRoom(true);
    const titles = ['Bundeshaus', 'Zytglogge', 'Bärengraben'];
    for (const [i, title] of titles.entries())
      await api('POST', `/api/rooms/${roomId}/markers`, {
        latitude: BERN.lat + (i - 1) * 0.004,
        longitude: BERN.lng + (i - 1) * 0.008,
        title,
      });
    const { page, failed } = await open(roomId);

    // Opens at the content, not at the world.
    await page.waitForFunction(() => document.querySelector<HTMLElement>('[data-testid=map]')?.dataset.baseMap);
    const menu = page.getByLabel('Base map');
    await page.locator('[data-testid=map][data-base-map=offline]').waitFor();
    // The notice says why, the menu offers every layer and shows the one drawn, the attribution matches it.
    await page.getByTestId('base-map-notice').getByText('Own tiles does not answer').waitFor();
    assert.deepEqual(await menu.locator('option').allTextContents(), ['Own tiles', 'Offline', 'Blank']);
    assert.equal(await menu.inputValue(), 'offline');
    const attribution = page.locator('.maplibregl-ctrl-attrib-inner');
    await attribution.getByText('Natural Earth').waitFor({ state: 'attached' });
    assert.doesNotMatch((await attribution.textContent()) ?? '', /Dead tiles|OpenStreetMap/);

    // Marker titles show next to the markers: all three fit, and they are drawn one by one, not as
    // one cluster, so the map is at Bern at a city's zoom, not at the world.
    for (const title of titles) await page.locator('.marker-label', { hasText: title }).waitFor();
    const box = (await page.getByTestId('map').boundingBox())!;
    for (const title of titles) {
      const label = (await page.locator('.marker-label', { hasText: title }).boundingBox())!;
      assert.ok(
        label.x > box.x && label.x < box.x + box.width && label.y > box.y && label.y < box.y + box.height,
        title,
      );
    }

    // The offline land is drawn at Bern (the map's middle is land, not sea or a blank background).
    const centre = await mapCentre(page);
    const isLand = (pixel: number[]) => pixel.every((value, i) => Math.abs(value - LAND[i]!) <= 6);
    const pixel = await until(async () => {
      const shot = await page.screenshot({ path: path.join(TEST_OUTPUT, 'web-map-offline.png') });
      const { data, info } = await sharp(shot).raw().toBuffer({ resolveWithObject: true });
      const offset = (Math.round(centre.y + 150) * info.width + Math.round(centre.x + 150)) * info.channels;
      return [data[offset]!, data[offset + 1]!, data[offset + 2]!];
    }, isLand);
    assert.ok(isLand(pixel), `land colour at the middle of the map, got ${pixel}`);

    // The dead server was asked once, not tile after tile; panning asks it no more (once the pan
    // has ended, its inertia too: the map's view, on its element, is the new one, and a frame
    // more is drawn there). The pan starts off the markers (a marker there would be dragged).
    const viewBefore = await page.getByTestId('map').getAttribute('data-view');
    await page.mouse.move(centre.x + 150, centre.y + 150);
    await page.mouse.down();
    await page.mouse.move(centre.x - 150, centre.y + 50, { steps: 5 });
    await page.mouse.up();
    await page.waitForFunction(
      (before) => document.querySelector<HTMLElement>('[data-testid=map]')!.dataset.view !== before,
      viewBefore,
    );
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve)));
    assert.ok(failed.length <= 2, `failed tile requests: ${failed.length}\n${failed.join('\n')}`);

    // Choosing Blank drops the Natural Earth attribution.
    await menu.selectOption('blank');
    await page.locator('[data-testid=map][data-base-map=blank]').waitFor();
    // MapLibre hides an empty attribution (its class) and leaves the old text inside.
    await page.waitForFunction(
      () =>
        document.querySelector('.maplibregl-ctrl-attrib')?.classList.contains('maplibregl-attrib-empty') ||
        !document.querySelector('.maplibregl-ctrl-attrib-inner')?.textContent?.includes('Natural Earth'),
      undefined,
      { timeout: 5000 },
    );
    assert.deepEqual(errors, []);
  });

  test("a room's first markers show as a preview of the map's own clusters, gone once the map draws them", async () => {
    const roomId = await newRoom(false);
    await api('PATCH', `/api/rooms/${roomId}/camera-settings`, { defaultView: { ...BERN, zoom: 12 } });
    // 120 markers on a 12 x 10 grid around Bern: at zoom 12 they make clusters of several sizes.
    const grid = Array.from({ length: 120 }, (_, i) => ({
      latitude: BERN.lat + (Math.floor(i / 12) - 5) * 0.004,
      longitude: BERN.lng + ((i % 12) - 6) * 0.006 + (i % 5) * 0.0005,
    }));
    for (let i = 0; i < grid.length; i += 20)
      await Promise.all(grid.slice(i, i + 20).map((m) => api('POST', `/api/rooms/${roomId}/markers`, m)));

    // Each preview circle as it is added: its text and its middle on the screen.
    const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    contexts.push(context);
    await context.addInitScript(
      (session) => {
        localStorage.setItem('maproom.session', JSON.stringify(session));
        const seen: { text: string; x: number; y: number }[] = [];
        (window as unknown as { previewSeen: typeof seen }).previewSeen = seen;
        // Each once: the map's element (the preview in it) may be moved in the page as it renders.
        const counted = new WeakSet<Element>();
        new MutationObserver((records) => {
          for (const record of records)
            for (const node of record.addedNodes) {
              if (!(node instanceof HTMLElement)) continue;
              for (const cluster of node.querySelectorAll('.preview-cluster')) {
                if (counted.has(cluster)) continue;
                counted.add(cluster);
                const box = cluster.getBoundingClientRect();
                seen.push({ text: cluster.textContent ?? '', x: box.x + box.width / 2, y: box.y + box.height / 2 });
              }
            }
        }).observe(document, { childList: true, subtree: true });
      },
      { token, user },
    );
    const page = await context.newPage();
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${service.url}/r/${roomId}`);
    await page.locator('[data-testid=map][data-ready=true]').waitFor({ timeout: 30_000 });
    await page.locator('.cluster-count').first().waitFor();
    // The map's own clusters are drawn: the preview is gone.
    await page.waitForFunction(() => document.querySelectorAll('.preview-cluster, .preview-marker').length === 0);
    const preview = await page.evaluate(() => (window as unknown as { previewSeen: unknown[] }).previewSeen);
    const drawn = await page.locator('.cluster-count').evaluateAll((elements) =>
      elements.map((element) => {
        const box = element.getBoundingClientRect();
        return { text: element.textContent ?? '', x: box.x + box.width / 2, y: box.y + box.height / 2 };
      }),
    );
    assert.ok(preview.length > 1, `preview clusters seen: ${JSON.stringify(preview)}`);
    // The same clusters, with the same counts, where the map draws them (within a few px).
    const unmatched = [...drawn];
    for (const shown of preview as typeof drawn) {
      const match = unmatched.findIndex(
        (c) => c.text === shown.text && Math.abs(c.x - shown.x) <= 3 && Math.abs(c.y - shown.y) <= 3,
      );
      assert.ok(match >= 0, `preview cluster ${JSON.stringify(shown)} not drawn by the map: ${JSON.stringify(drawn)}`);
      unmatched.splice(match, 1);
    }
    assert.deepEqual(unmatched, [], 'every cluster the map draws was in the preview');
    assert.ok(drawn.reduce((sum, c) => sum + Number(c.text), 0) <= grid.length, 'the clusters count the markers once');
    assert.deepEqual(errors, []);
  });

  test("a polygon's area and a line's length show in the drawing's panel, geodesic, metric and imperial", async () => {
    const roomId = await newRoom(true);
    // 0.01° by 0.01° at the equator: 1,105.7 m by 1,113.2 m on the WGS84 ellipsoid, 1.2309 km².
    const square = [
      [
        [10, 0],
        [10.01, 0],
        [10.01, 0.01],
        [10, 0.01],
        [10, 0],
      ],
    ];
    const polygon = (await api('POST', `/api/rooms/${roomId}/drawings`, {
      geometry: { type: 'Polygon', coordinates: square },
      label: 'Square',
    })) as { drawing?: { id: string }; id?: string };
    // 0.01° of latitude along a meridian at the equator: 1,105.7 m.
    await api('POST', `/api/rooms/${roomId}/drawings`, {
      geometry: {
        type: 'LineString',
        coordinates: [
          [10.02, 0],
          [10.02, 0.01],
        ],
      },
      label: 'Line',
    });
    assert.ok(polygon.drawing?.id ?? polygon.id);
    const { page } = await open(roomId);
    await page.getByRole('tab', { name: 'Draw' }).click();
    await page.getByRole('button', { name: 'Square' }).click();
    const measure = page.getByTestId('drawing-measure');
    const text = (await measure.textContent()) ?? '';
    const km2 = Number(/Area ([\d.]+) km²/.exec(text)?.[1]);
    assert.ok(Math.abs(km2 - 1.2309) / 1.2309 < 0.01, `area within 1% of 1.2309 km²: ${text}`);
    const miles2 = Number(/\(([\d.]+) mi²\)/.exec(text)?.[1]);
    assert.ok(Math.abs(miles2 - 0.4753) / 0.4753 < 0.01, `and in square miles: ${text}`);
    assert.match(text, /perimeter 4\.4\d km \(2\.7\d mi\)/);

    await page.getByRole('tab', { name: 'Draw' }).click();
    await page.getByRole('button', { name: 'Line' }).last().click();
    const line = (await page.getByTestId('drawing-measure').textContent()) ?? '';
    assert.match(line, /^Length 1\.1\d km \(0\.69 mi\)$/);
    await page.screenshot({ path: path.join(TEST_OUTPUT, 'web-map-measure.png') });

    // The measure tool: an area clicked on the map is measured while drawn and when finished;
    // the double-click that finishes it neither zooms nor selects what is under it, the shape
    // stays on the map until Close takes it away, and nothing is saved.
    await page.getByRole('region', { name: 'Selected drawing' }).getByRole('button', { name: 'Close' }).click();
    await page.getByRole('tab', { name: 'Draw' }).click();
    const before = await page.getByTestId('map').screenshot();
    const scale = await page.locator('.maplibregl-ctrl-scale').textContent();
    await page.getByRole('button', { name: 'Measure area' }).click();
    const { x, y } = await mapCentre(page);
    for (const [dx, dy] of [
      [-100, -100],
      [100, -100],
      [100, 100],
    ])
      await page.mouse.click(x + dx!, y + dy!);
    const result = page.getByTestId('measure-result');
    await page.screenshot({ path: path.join(TEST_OUTPUT, 'web-map-measuring.png') });
    await result.getByText(/^Area [\d.,]+ (m|km)² .* perimeter/).waitFor({ timeout: 5000 });
    await page.mouse.dblclick(x - 100, y + 100);
    await page.locator('[data-testid=measure-result][data-state=done]').waitFor();
    // Two frames: a zoom the double-click began would have moved the scale by now.
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
    assert.equal(await page.locator('.maplibregl-ctrl-scale').textContent(), scale, 'the double-click did not zoom');
    assert.equal(await page.locator('section.selection').count(), 0, 'nor select what is under it');
    await result.getByText(/^Area/).waitFor();
    const measured = await page.getByTestId('map').screenshot();
    assert.ok((await differingPixels(before, measured)) > 500, 'the measured area stays on the map');
    await result.getByRole('button', { name: 'Close' }).click();
    await result.waitFor({ state: 'detached' });
    const drawings = (await api('GET', `/api/rooms/${roomId}/drawings`)) as { drawings: unknown[] };
    assert.equal(drawings.drawings.length, 2, 'the measure saved no drawing');
    // The map drops the measured shape in a frame of its own: its screenshots until it is gone.
    const left = async () => {
      const afterwards = await page.getByTestId('map').screenshot();
      return before.equals(afterwards) ? 0 : await differingPixels(before, afterwards);
    };
    assert.ok((await until(left, (differing) => differing < 50)) < 50, 'nothing left on the map');
    assert.deepEqual(errors, []);
  });
});
