import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { TEST_DB } from '../helpers.js';
import {
  launchBrowser,
  mapSettled,
  startService,
  TEST_OUTPUT,
  type RunningService,
  until,
} from '../support/browser.js';

// Style by data, the legend and the layer order in a real browser: one person in two
// browsers; what one sets, the other sees live. On SQLite only, like test/web/browser.test.ts.
const skip = TEST_DB !== 'sqlite' && 'the browser tests run once, with the SQLite suite';

const square = (x: number, y: number, kind: string, size = 0.01) => ({
  type: 'Feature',
  properties: { kind },
  geometry: {
    type: 'Polygon',
    coordinates: [
      [
        [x, y],
        [x + size, y],
        [x + size, y + size],
        [x, y + size],
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
    const counts = await until(
      () => colourCounts(watcher, [forest!, meadow!, '333333']),
      (c) => c[0]! > 500 && c[1]! > 500 && c[2] === 0,
    );
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
    // A new layer goes on top: roads, added after parcels.
    assert.deepEqual(await layerNames(watcher), ['roads', 'parcels']);
    const saved = styler.waitForResponse((r) => r.request().method() === 'PATCH' && r.url().includes('/layers/'));
    // A drag as a hand makes it: press on "parcels", move a little (the drag starts), then onto "roads".
    // The parcels' style form closed, so both items are in view.
    await styler.getByTestId('layer').filter({ hasText: 'parcels' }).getByText('Style', { exact: true }).click();
    const from = (await styler.getByText('2 Polygon features').boundingBox())!;
    const to = (await styler.getByText('1 Polygon feature').boundingBox())!;
    await styler.mouse.move(from.x + 20, from.y + from.height / 2);
    await styler.mouse.down();
    await styler.mouse.move(from.x + 30, from.y, { steps: 3 });
    await styler.mouse.move(to.x + 20, to.y + to.height / 2, { steps: 5 });
    await styler.mouse.up();
    await saved;
    await watcher.waitForFunction(
      () => document.querySelector('[data-testid=layer] label')?.textContent?.trim() === 'parcels',
      undefined,
      { timeout: 5000 },
    );
    assert.deepEqual(await layerNames(watcher), ['parcels', 'roads']);
    const legendOrder = await watcher
      .getByTestId('legend-layer')
      .evaluateAll((items) => items.map((li) => li.querySelector('strong')!.textContent));
    assert.deepEqual(legendOrder, ['parcels', 'roads']);
    // One save per layer whose place changed: the second may still be on its way.
    const orderOf = async () =>
      (await api('GET', `/api/layers/${roomId}`)).body.layers
        .map((l: { name: string; style: { order?: number } }) => [l.name, l.style.order])
        .sort();
    const orders = await until(orderOf, (all) => all.every(([, order]: [string, number?]) => order !== undefined));
    assert.deepEqual(orders, [
      ['parcels', 0],
      ['roads', 1],
    ]);
    assert.deepEqual(errors, []);
  });

  test("a layer's label field set through the API labels its features on the map, live", async () => {
    const parcels = (await api('GET', `/api/layers/${roomId}`)).body.layers.find(
      (l: { name: string }) => l.name === 'parcels',
    );
    const texts = (page: Page) => page.locator('.feature-label').allTextContents();
    // The styler saves the parcels' line width, and its answer is held until the label field was
    // set through the API and reached both pages live (as the layer order's second save of the
    // test before could arrive late): the older answer must not undo the label field there.
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const holdAnswer = (url: URL) => url.pathname.endsWith(`/layers/${parcels.id}`);
    await styler.route(holdAnswer, async (route) => {
      if (route.request().method() !== 'PATCH') return route.fallback();
      const response = await route.fetch();
      await released;
      await route.fulfill({ response });
    });
    const styleOf = styler.getByTestId('layer').filter({ hasText: 'parcels' });
    await styleOf.getByText('Style', { exact: true }).click();
    const answered = styler.waitForResponse((r) => r.request().method() === 'PATCH' && holdAnswer(new URL(r.url())));
    const lineWidth = async () =>
      (await api('GET', `/api/layers/${roomId}`)).body.layers.find((l: { id: string }) => l.id === parcels.id).style
        .strokeWeight;
    // Typed and changed again while not saved: a render of the panel between the two (the style
    // form's ramps arriving) puts the layer's stored width back in the field, and sends nothing.
    const width = styleOf.getByLabel('Line width');
    const saved = await until(
      async () => {
        await width.fill('3');
        await width.dispatchEvent('change');
        return lineWidth();
      },
      (w) => w === 3,
    );
    assert.equal(saved, 3, 'the line width saved (its answer held)');
    const patched = await api('PATCH', `/api/rooms/${roomId}/layers/${parcels.id}`, { style: { labelField: 'kind' } });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    // Both browsers: the one whose page did not make the change hears of it through the live channel.
    for (const page of [styler, watcher]) {
      await page.waitForFunction(() => document.querySelectorAll('.feature-label').length === 2, undefined, {
        timeout: 10_000,
      });
      assert.deepEqual((await texts(page)).sort(), ['forest', 'meadow']);
    }
    release();
    // The page has read the answer once its body is in and the page has run a task and drawn a
    // frame after it: its labels and its form keep the label field.
    await (await answered).finished();
    const aFrame = () =>
      styler.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve))));
    await aFrame();
    await styler.unroute(holdAnswer);
    // Read until the form shows it (a page slowed by a busy machine renders late), then once more
    // after another frame: an older answer applied late would take it away.
    const labelField = styleOf.locator('select[name=label-field]');
    const shown = await until(
      () => labelField.inputValue(),
      (value) => value === 'kind',
      10_000,
    );
    assert.equal(shown, 'kind', `label field after the held answer (label set at ${patched.body.layer.updatedAt})`);
    await aFrame();
    assert.equal(await labelField.inputValue(), 'kind');
    assert.deepEqual((await texts(styler)).sort(), ['forest', 'meadow']);
    await styleOf.getByText('Style', { exact: true }).click();
    // Each label inside its square (the polygons' interior point), set as text.
    const box = await watcher.getByTestId('map').boundingBox();
    for (const [kind, [lng]] of [
      ['meadow', [7.435, 46.955]],
      ['forest', [7.455, 46.955]],
    ] as const) {
      // Read in one step: the labels are made again whenever the map rests (a tile loaded late).
      const label = await watcher.evaluate((text) => {
        const found = [...document.querySelectorAll('.feature-label')].find((e) => e.textContent === text);
        const r = found!.getBoundingClientRect();
        return { x: r.x, y: r.y, width: r.width, height: r.height };
      }, kind);
      const centre = [label.x + label.width / 2 - box!.x, label.y + label.height / 2 - box!.y];
      // The map's centre is 7.45, 46.955 at zoom 13: 512 * 2^13 / 360 px per degree of longitude.
      const expectedX = box!.width / 2 + (lng - 7.45) * ((512 * 2 ** 13) / 360);
      assert.ok(Math.abs(centre[0]! - expectedX) < 30, `${kind} at x ${centre[0]}, its square's centre ${expectedX}`);
      assert.ok(Math.abs(centre[1]! - box!.height / 2) < 30, `${kind} at y ${centre[1]}`);
    }
    await watcher.screenshot({ path: path.join(TEST_OUTPUT, 'style-labels.png') });
    // Hidden in this page: its labels go with it.
    const item = watcher.getByTestId('layer').filter({ hasText: 'parcels' });
    await item.getByRole('checkbox').first().uncheck();
    await watcher.waitForFunction(() => document.querySelectorAll('.feature-label').length === 0);
    await item.getByRole('checkbox').first().check();
    await watcher.waitForFunction(() => document.querySelectorAll('.feature-label').length === 2);
    // Cleared: no labels.
    await api('PATCH', `/api/rooms/${roomId}/layers/${parcels.id}`, { style: { labelField: null } });
    await watcher.waitForFunction(() => document.querySelectorAll('.feature-label').length === 0);
    assert.deepEqual(errors, []);
  });

  test('graduated classes of a number (equal intervals, quantiles) set in the form: legend breaks and colours on the map', async () => {
    // Five squares with the values 1, 2, 3, 4, 10; the last crosses a tile edge (z13 x 4265 | 4266 at 7.4707°):
    // each feature counts once in the quantiles, however many tiles hold it.
    const values = [1, 2, 3, 4, 10];
    const xs = [7.421, 7.433, 7.445, 7.457, 7.467];
    const features = values.map((n, i) => ({ ...square(xs[i]!, 46.9615, 'h', 0.008), properties: { n } }));
    const created = await api('POST', `/api/rooms/${roomId}/layers`, {
      name: 'heights',
      geojson: { type: 'FeatureCollection', features },
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const layerId = created.body.layer.id as string;
    await api('PATCH', `/api/rooms/${roomId}/layers/${layerId}`, { style: { fillOpacity: 1 } });
    const heights = styler.getByTestId('layer').filter({ hasText: 'heights' });
    await heights.waitFor();
    await heights.getByText('Style', { exact: true }).click();
    const form = heights.getByRole('form', { name: 'Style by data' });
    await form.locator('select[name=style-mode]').selectOption('graduated');
    // The field is offered once the map has loaded the layer's tiles.
    await form
      .locator('select[name=style-field] option', { hasText: /^n$/ })
      .waitFor({ state: 'attached', timeout: 10_000 });
    await form.locator('select[name=style-field]').selectOption('n');
    await form.locator('input[name=style-classes]').fill('3');

    const applied = async (method: 'equal' | 'quantile', legend: string[], perClass: number[]) => {
      await form.locator('select[name=style-method]').selectOption(method);
      const saved = styler.waitForResponse((r) => r.request().method() === 'PATCH' && r.url().includes(layerId));
      await form.getByRole('button', { name: 'Apply colours' }).click();
      assert.equal((await saved).status(), 200);
      const layer = (await api('GET', `/api/layers/${roomId}`)).body.layers.find(
        (l: { id: string }) => l.id === layerId,
      );
      const rule = layer.style.classify;
      assert.equal(rule.type, 'graduated');
      assert.equal(rule.method, method);
      assert.equal(rule.colors.length, 3);
      const entry = watcher.getByTestId('legend-layer').filter({ hasText: 'heights' }).getByTestId('legend-entry');
      await watcher.waitForFunction(
        ([expected]) =>
          [...document.querySelectorAll('[data-testid=legend-layer]')]
            .find((li) => li.querySelector('strong')?.textContent === 'heights')
            ?.querySelector('[data-testid=legend-entry]')
            ?.textContent?.trim() === expected,
        [legend[0]],
        { timeout: 10_000 },
      );
      assert.deepEqual(
        (await entry.allTextContents()).map((t) => t.trim()),
        legend,
      );
      // Each class's colour covers its squares on the other browser's map (about 93 x 137 px each).
      const near = (c: number[]) =>
        c.length === perClass.length && c.every((n, k) => n > perClass[k]! * 9000 && n < perClass[k]! * 16000 + 500);
      const counts = await until(() => colourCounts(watcher, rule.colors), near);
      assert.ok(near(counts), `${method}: pixels per class colour ${counts}, squares per class ${perClass}`);
      return rule;
    };
    // Equal intervals of 1..10 in 3: limits 4 and 7 (1, 2, 3 | 4 | 10).
    const equal = await applied('equal', ['< 4', '4 – 7', '≥ 7'], [3, 1, 1]);
    assert.deepEqual(equal.breaks, [4, 7]);
    // Quantiles of 5 values in 3: limits 2 and 4 (1 | 2, 3 | 4, 10), the twice-loaded 10 counted once.
    const quantile = await applied('quantile', ['< 2', '2 – 4', '≥ 4'], [1, 2, 2]);
    assert.deepEqual(quantile.breaks, [2, 4]);
    await watcher.screenshot({ path: path.join(TEST_OUTPUT, 'style-graduated-watcher.png') });

    // Deleting a layer (not restorable) asks in the page's own dialog, not the browser's: Cancel keeps it.
    const dialogs: string[] = [];
    styler.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await heights.getByRole('button', { name: 'Delete layer' }).click();
    const confirm = styler.getByRole('dialog');
    await confirm.getByText('Delete the layer "heights"? This cannot be undone.').waitFor();
    await styler.screenshot({ path: path.join(TEST_OUTPUT, 'confirm-delete-layer.png') });
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'detached' });
    assert.equal((await api('GET', `/api/layers/${roomId}`)).body.layers.length, 3, 'kept');
    await heights.getByRole('button', { name: 'Delete layer' }).click();
    await styler.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await watcher.getByTestId('legend-layer').filter({ hasText: 'heights' }).waitFor({ state: 'detached' });
    assert.equal((await api('GET', `/api/layers/${roomId}`)).body.layers.length, 2, 'deleted');
    assert.deepEqual(dialogs, [], 'no browser dialog');
    assert.deepEqual(errors, []);
  });

  test("a past view's legend is that moment's: the layer as it was before it was restyled", async () => {
    // Last: "Map then" moves the map, whose view the tests above measure.
    await watcher.getByRole('tab', { name: 'Timeline' }).click();
    const added = watcher.getByTestId('history-entry').filter({ hasText: "added layer 'parcels'" });
    await added.getByRole('button', { name: 'Map then' }).click();
    await watcher.getByTestId('past-view').waitFor();
    const parcelsLegend = watcher.getByTestId('legend-layer').filter({ hasText: 'parcels' });
    await parcelsLegend.waitFor();
    const byKind = () => parcelsLegend.getByText('by kind').count();
    assert.equal(await until(byKind, (n) => n === 0), 0, 'one colour then, not the categories of now');
    await watcher.getByRole('button', { name: 'Back to now' }).click();
    await parcelsLegend.getByText('by kind').waitFor();
  });

  test('a layer too dense for its zoom draws its coverage filled, without outlines of its cells or tiles', async () => {
    // 60 x 60 touching squares of 0.0001 degrees: under a pixel each at zoom 11, so the service
    // sends them merged into coverage polygons, which the map fills (blue) and never outlines (red).
    const cells = Array.from({ length: 3600 }, (_, i) =>
      square(7.6 + (i % 60) * 0.0001, 46.9 + Math.floor(i / 60) * 0.0001, 'plot', 0.0001),
    );
    const dense = `cov${Date.now().toString(36).slice(-7)}`;
    const view = { lng: 7.603, lat: 46.903, zoom: 11 };
    assert.equal((await api('POST', `/api/rooms/${dense}`, { name: 'Dense', defaultView: view })).status, 200);
    const layer = await api('POST', `/api/rooms/${dense}/layers`, {
      name: 'plots',
      geojson: { type: 'FeatureCollection', features: cells },
    });
    assert.equal(layer.status, 200, JSON.stringify(layer.body));
    const style = { color: 'ff0000', fillColor: '0000ff', fillOpacity: 1, strokeWeight: 3 };
    assert.equal((await api('PATCH', `/api/rooms/${dense}/layers/${layer.body.layer.id}`, { style })).status, 200);
    const page = await styler.context().newPage();
    await page.goto(`${service.url}/r/${dense}`);
    await mapSettled(page);
    const [blue, red] = await until(
      () => colourCounts(page, ['0000ff', 'ff0000']),
      ([b]) => b! > 200,
    );
    assert.ok(blue! > 200, `the coverage is filled: ${blue} px`);
    assert.equal(red, 0, 'no outline drawn around the coverage or its cells');
    await page.close();
  });
});
