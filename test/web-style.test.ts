import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { TEST_DB } from './helpers.js';
import { launchBrowser, startService, TEST_OUTPUT, type RunningService } from './support/browser.js';

// Style by data, the legend and the layer order in a real browser (issue 20): one person in two
// browsers; what one sets, the other sees live. On SQLite only, like test/web-browser.test.ts.
const skip = TEST_DB !== 'sqlite' && 'the browser tests run once, with the SQLite suite';

const square = (x: number, y: number, kind: string) => ({
  type: 'Feature',
  properties: { kind },
  geometry: {
    type: 'Polygon',
    coordinates: [
      [
        [x, y],
        [x + 0.01, y],
        [x + 0.01, y + 0.01],
        [x, y + 0.01],
        [x, y],
      ],
    ],
  },
});

describe('style by data, legend and layer order in the web application', { skip }, () => {
  let service: RunningService;
  let browser: Browser;
  const roomId = `sty${Date.now().toString(36).slice(-7)}`;
  let token = '';
  let user: { id: string };
  let styler: Page;
  let watcher: Page;
  const errors: string[] = [];

  const api = async (method: string, url: string, body?: unknown) => {
    const response = await fetch(`${service.url}${url}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body !== undefined && { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };

  /** Signs up and confirms the address (the link is in the service's log: no SMTP). */
  const signUp = async () => {
    const email = `stylist-${Date.now()}@example.com`;
    const response = await fetch(`${service.url}/api/auth/signup`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email, password: 'a-long-password', name: 'Stylist' }),
    });
    token = ((await response.json()) as { token: string }).token;
    let link: RegExpExecArray | null = null;
    for (let i = 0; i < 200 && !link; i++) {
      link = new RegExp(`${email.replace(/[.+]/g, '\\$&')}[^\\n]*?verify-email\\?token=([A-Za-z0-9_-]+)`).exec(
        service.output(),
      );
      if (!link) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok(link, `a confirmation link for ${email}`);
    assert.equal((await api('POST', '/api/auth/verify-email', { token: link[1] })).status, 200);
    user = (await api('GET', '/api/auth/me')).body.user;
  };

  const open = async () => {
    const context = await browser.newContext({ viewport: { width: 1100, height: 700 } });
    await context.addInitScript(
      (session) => localStorage.setItem('maproom.session', session),
      JSON.stringify({ token, user }),
    );
    const page = await context.newPage();
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${service.url}/r/${roomId}`);
    await page.locator('[data-testid=map][data-ready=true]').waitFor({ timeout: 30_000 });
    await page.getByText('Live', { exact: true }).waitFor();
    await page.getByRole('tab', { name: 'Layers' }).click();
    return page;
  };

  /** How many pixels of the map are (near) each colour. */
  const colourCounts = async (page: Page, colours: string[]) => {
    const png = await page.getByTestId('map').screenshot();
    const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
    const wanted = colours.map((hex) => [0, 2, 4].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)));
    const counts = colours.map(() => 0);
    for (let i = 0; i < data.length; i += info.channels)
      wanted.forEach(([r, g, b], k) => {
        if (Math.abs(data[i]! - r!) + Math.abs(data[i + 1]! - g!) + Math.abs(data[i + 2]! - b!) < 20) counts[k]!++;
      });
    return counts;
  };
  const layerNames = (page: Page) =>
    page.getByTestId('layer').evaluateAll((items) => items.map((li) => li.querySelector('label')!.textContent!.trim()));

  before(async () => {
    service = await startService();
    browser = await launchBrowser();
    await signUp();
    const created = await api('POST', `/api/rooms/${roomId}`, {
      name: 'Styles',
      defaultView: { lng: 7.45, lat: 46.955, zoom: 13 },
    });
    assert.equal(created.status, 200);
    for (const [name, features] of [
      ['parcels', [square(7.43, 46.95, 'meadow'), square(7.45, 46.95, 'forest')]],
      ['roads', [square(7.43, 46.94, 'road')]],
    ] as const) {
      const layer = await api('POST', `/api/rooms/${roomId}/layers`, {
        name,
        geojson: { type: 'FeatureCollection', features },
        color: '333333',
      });
      assert.equal(layer.status, 200, JSON.stringify(layer.body));
      // Opaque fills, so the map's pixels are the style's colours.
      await api('PATCH', `/api/rooms/${roomId}/layers/${layer.body.layer.id}`, { style: { fillOpacity: 1 } });
    }
    styler = await open();
    watcher = await open();
  });
  after(async () => {
    await browser?.close();
    await service?.stop();
  });

  test('a layer styled by categories of a field in one browser is drawn so, with its legend, in the other', async () => {
    const parcels = styler.getByTestId('layer').filter({ hasText: 'parcels' });
    await parcels.getByText('Style').click();
    await parcels.locator('select[name=style-mode]').selectOption('categories');
    await parcels.locator('select[name=style-field]').selectOption('kind');
    const saved = styler.waitForResponse((r) => r.request().method() === 'PATCH' && r.url().includes('/layers/'));
    await parcels.getByRole('button', { name: 'Apply colours' }).click();
    assert.equal((await saved).status(), 200);
    await styler.screenshot({ path: path.join(TEST_OUTPUT, 'style-form.png') });

    const stored = (await api('GET', `/api/layers/${roomId}`)).body.layers.find(
      (l: { name: string }) => l.name === 'parcels',
    );
    const rule = stored.style.classify;
    assert.equal(rule.type, 'categories');
    assert.equal(rule.field, 'kind');
    assert.deepEqual(rule.categories.map((c: { value: string }) => c.value).sort(), ['forest', 'meadow']);
    const [forest, meadow] = ['forest', 'meadow'].map(
      (value) => rule.categories.find((c: { value: string }) => c.value === value).color as string,
    );
    assert.notEqual(forest, meadow, 'each category its own colour');

    // The other browser draws both categories in their colours (and no longer the single colour).
    let counts = [0, 0, 0];
    for (let i = 0; i < 100 && !(counts[0]! > 500 && counts[1]! > 500 && counts[2] === 0); i++) {
      await watcher.waitForTimeout(150);
      counts = await colourCounts(watcher, [forest!, meadow!, '333333']);
    }
    assert.ok(counts[0]! > 500 && counts[1]! > 500, `both categories drawn in their colours: ${counts}`);

    const legend = watcher.getByTestId('legend');
    const parcelsLegend = legend.getByTestId('legend-layer').filter({ hasText: 'parcels' });
    await parcelsLegend.getByText('by kind').waitFor();
    assert.deepEqual(await parcelsLegend.getByTestId('legend-entry').allTextContents(), [
      ' forest',
      ' meadow',
      ' other',
    ]);
    const swatches = await parcelsLegend
      .locator('.swatch')
      .evaluateAll((spans) => spans.map((s) => getComputedStyle(s).backgroundColor));
    const rgb = (hex: string) => `rgb(${[0, 2, 4].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;
    assert.deepEqual(swatches.slice(0, 2), [rgb(forest!), rgb(meadow!)]);
    await legend.getByTestId('legend-layer').filter({ hasText: 'roads' }).waitFor();
    await watcher.screenshot({ path: path.join(TEST_OUTPUT, 'style-categories-watcher.png') });
  });

  test('a layer dragged above another is listed first, in the panel and the legend, in the other browser', async () => {
    assert.deepEqual(await layerNames(watcher), ['parcels', 'roads']);
    const saved = styler.waitForResponse((r) => r.request().method() === 'PATCH' && r.url().includes('/layers/'));
    // A drag as a hand makes it: press on "roads", move a little (the drag starts), then onto "parcels".
    // The parcels' style form closed, so both items are in view.
    await styler.getByTestId('layer').filter({ hasText: 'parcels' }).getByText('Style', { exact: true }).click();
    const from = (await styler.getByText('1 Polygon features').boundingBox())!;
    const to = (await styler.getByText('2 Polygon features').boundingBox())!;
    await styler.mouse.move(from.x + 20, from.y + from.height / 2);
    await styler.mouse.down();
    await styler.mouse.move(from.x + 30, from.y, { steps: 3 });
    await styler.mouse.move(to.x + 20, to.y + to.height / 2, { steps: 5 });
    await styler.mouse.up();
    await saved;
    await watcher.waitForFunction(
      () => document.querySelector('[data-testid=layer] label')?.textContent?.trim() === 'roads',
      undefined,
      { timeout: 5000 },
    );
    assert.deepEqual(await layerNames(watcher), ['roads', 'parcels']);
    const legendOrder = await watcher
      .getByTestId('legend-layer')
      .evaluateAll((items) => items.map((li) => li.querySelector('strong')!.textContent));
    assert.deepEqual(legendOrder, ['roads', 'parcels']);
    const orders = (await api('GET', `/api/layers/${roomId}`)).body.layers
      .map((l: { name: string; style: { order?: number } }) => [l.name, l.style.order])
      .sort();
    assert.deepEqual(orders, [
      ['parcels', 1],
      ['roads', 0],
    ]);
    assert.deepEqual(errors, []);
  });
});
