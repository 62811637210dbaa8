import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { TEST_DB } from '../helpers.js';
import { launchBrowser, startService, TEST_OUTPUT, type RunningService } from '../support/browser.js';

// Find, in Chromium against the real service: the search box goes to a marker
// (its panel open), to a layer feature (its attributes shown) and to a DMS position; a layer
// bigger than the search's window (ATTRIBUTES_SCAN_ROWS, small here) is offered as its
// attribute table filtered by the text, which finds a feature past the window; a place of the
// geocoder (a local server answering as Nominatim) is gone to. Once, on SQLite, like
// test/web/browser.test.ts. HTTP behaviour: search/search.test.ts, search/geocode.test.ts.
const skip = TEST_DB !== 'sqlite' && 'the browser tests run once, with the SQLite suite';

const ZYTGLOGGE = { lat: 46.948, lng: 7.4476 };
/** The search's window per layer (ATTRIBUTES_SCAN_ROWS) in this service. */
const SCAN_ROWS = 40;
/** The geocoder's one place: Aarberg, its position the middle of its bounding box. */
const AARBERG = { lat: 47.045, lng: 7.275 };
/** 46°57'03"N 7°26'51"E */
const DMS = { lat: 46 + 57 / 60 + 3 / 3600, lng: 7 + 26 / 60 + 51 / 3600 };

describe('find in the room', { skip }, () => {
  let service: RunningService;
  let browser: Browser;
  let geocoder: Server;
  /** The texts the geocoder was asked for. */
  const asked: string[] = [];
  const errors: string[] = [];

  before(async () => {
    // A Nominatim on 127.0.0.1 (as in search/geocode.test.ts): Aarberg for a text starting with "aarb".
    geocoder = createServer((req, res) => {
      const q = new URL(req.url ?? '/', 'http://x').searchParams.get('q') ?? '';
      asked.push(q);
      const places = q.toLowerCase().startsWith('aarb')
        ? [
            {
              lat: String(AARBERG.lat),
              lon: String(AARBERG.lng),
              display_name: 'Aarberg, Bern, Switzerland',
              boundingbox: ['47.035', '47.055', '7.265', '7.285'],
            },
          ]
        : [];
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(places));
    });
    await new Promise<void>((resolve) => geocoder.listen(0, '127.0.0.1', resolve));
    service = await startService({
      BASEMAPS: 'none',
      ATTRIBUTES_SCAN_ROWS: String(SCAN_ROWS),
      GEOCODER_URL: `http://127.0.0.1:${(geocoder.address() as AddressInfo).port}/search?format=jsonv2`,
    });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await service?.stop();
    geocoder?.closeAllConnections();
    await new Promise((resolve) => geocoder?.close(resolve));
  });

  /** The centre the map shows once it has stopped moving (its element's `data-view`). */
  const centreOf = async (page: Page) => {
    await page.waitForFunction(() => !document.querySelector('.maplibregl-map')?.classList.contains('moving'));
    return JSON.parse((await page.getByTestId('map').getAttribute('data-view')) ?? 'null') as {
      lat: number;
      lng: number;
      zoom: number;
    };
  };
  /** Waits until the map's centre is within ~100 m of `at` (else fails saying where it is). */
  const waitForCentre = async (page: Page, at: { lat: number; lng: number }) => {
    const near = ({ lat, lng }: { lat: number; lng: number }) => {
      const view = JSON.parse(document.querySelector<HTMLElement>('[data-testid=map]')!.dataset.view ?? 'null');
      return view && Math.abs(view.lat - lat) < 0.001 && Math.abs(view.lng - lng) < 0.001;
    };
    await page.waitForFunction(near, at, { timeout: 10_000 }).catch(async () => {
      assert.fail(
        `the map is at ${await page.getByTestId('map').getAttribute('data-view')}, not ${JSON.stringify(at)}`,
      );
    });
  };

  /** A new person's session and a room of theirs (no automatic zoom), with `api` to fill it. */
  const newRoom = async () => {
    const signup = await fetch(`${service.url}/api/auth/signup`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: `find-${Date.now()}@example.com`, password: 'a-long-password', name: 'Fi' }),
    });
    const session = (await signup.json()) as { token: string; user: unknown };
    const api = async (method: string, url: string, body: unknown) => {
      const response = await fetch(`${service.url}${url}`, {
        method,
        headers: { Authorization: `Bearer ${session.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      assert.ok(response.ok, `${method} ${url}: ${response.status} ${await response.clone().text()}`);
      return (await response.json()) as Record<string, any>;
    };
    const roomId = `find${Date.now().toString(36)}`.padEnd(10, '0').slice(0, 10);
    await api('POST', `/api/rooms/${roomId}`, {});
    await api('PATCH', `/api/rooms/${roomId}/camera-settings`, { autoZoomEnabled: false, defaultView: null });
    return { session, api, roomId };
  };
  /** The room in a new browser context, signed in, its map ready. */
  const openRoom = async ({ session, roomId }: Awaited<ReturnType<typeof newRoom>>) => {
    const context: BrowserContext = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    await context.addInitScript((s) => localStorage.setItem('maproom.session', JSON.stringify(s)), session);
    const page = await context.newPage();
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${service.url}/r/${roomId}`);
    await page.locator('[data-testid=map][data-ready=true]').waitFor({ timeout: 30_000 });
    return { context, page, box: page.getByLabel('Find in the room') };
  };
  const square = (lng: number, lat: number, name: string) => ({
    type: 'Feature',
    properties: { name },
    geometry: {
      type: 'Polygon',
      coordinates: [
        [
          [lng, lat],
          [lng + 0.01, lat],
          [lng + 0.01, lat + 0.01],
          [lng, lat + 0.01],
          [lng, lat],
        ],
      ],
    },
  });

  test('a marker title, a feature text and a DMS position are found and gone to', async () => {
    const room = await newRoom();
    const { api, roomId } = room;
    await api('POST', `/api/rooms/${roomId}/markers`, {
      latitude: ZYTGLOGGE.lat,
      longitude: ZYTGLOGGE.lng,
      title: 'Zytglogge',
    });
    await api('POST', `/api/rooms/${roomId}/layers`, {
      name: 'Parcels',
      geojson: {
        type: 'FeatureCollection',
        features: [square(8.5, 47.3, 'Seefeld'), square(6.1, 46.2, 'Plainpalais')],
      },
    });
    const { context, page, box } = await openRoom(room);

    // A marker's title, in another case: Enter goes to the first result, its panel opens.
    await box.fill('zytgl');
    await page.getByRole('group', { name: 'Markers' }).getByRole('option', { name: 'Zytglogge' }).waitFor();
    await box.press('Enter');
    await page.getByLabel('Selected marker').getByTestId('marker-title').filter({ hasText: 'Zytglogge' }).waitFor();
    await waitForCentre(page, ZYTGLOGGE);
    assert.equal(await page.getByRole('listbox').count(), 0, 'the list closed');
    await page.screenshot({ path: `${TEST_OUTPUT}/search-marker.png` });

    // A feature's text: chosen with the arrows, the map goes there and shows its attributes.
    await box.fill('plainpal');
    const option = page.getByRole('group', { name: 'Features' }).getByRole('option', { name: /Plainpalais/ });
    await option.waitFor();
    await page.screenshot({ path: `${TEST_OUTPUT}/search-feature-choices.png` });
    await box.press('ArrowDown');
    await box.press('ArrowUp');
    assert.equal(await option.getAttribute('aria-selected'), 'true');
    await box.press('Enter');
    await page.getByLabel('Feature attributes').getByRole('cell', { name: 'Plainpalais' }).waitFor();
    await waitForCentre(page, { lat: 46.205, lng: 6.105 });

    // A position in degrees, minutes and seconds: offered at once under Coordinates, a pin there.
    await box.fill(`46°57'03"N 7°26'51"E`);
    await page.getByRole('group', { name: 'Coordinates' }).getByRole('option').waitFor();
    await box.press('Enter');
    await waitForCentre(page, DMS);
    await page.getByTestId('search-pin').waitFor();
    assert.ok((await centreOf(page)).zoom >= 14, 'close enough to see the place');
    await page.screenshot({ path: `${TEST_OUTPUT}/search-dms.png` });

    // Esc closes the list.
    await box.fill('zyt');
    await page.getByRole('listbox').waitFor();
    await box.press('Escape');
    assert.equal(await page.getByRole('listbox').count(), 0);
    assert.deepEqual(errors, []);
    await context.close();
  });
  test('a layer bigger than the search reads is offered as its table, filtered by the text: it finds a feature past the window', async () => {
    const room = await newRoom();
    const count = SCAN_ROWS * 3;
    // Features in id order: "plot i"; the one text "Wankdorf" is the last, two windows past the search's.
    const features = Array.from({ length: count }, (_, i) =>
      square(7.4 + (i % 10) * 0.02, 46.9 + Math.floor(i / 10) * 0.02, i === count - 1 ? 'Wankdorf' : `plot ${i}`),
    );
    await room.api('POST', `/api/rooms/${room.roomId}/layers`, {
      name: 'Plots',
      geojson: { type: 'FeatureCollection', features },
    });
    const { context, page, box } = await openRoom(room);

    await box.fill('wankdorf');
    const featureGroup = page.getByRole('group', { name: 'Features' });
    const offer = featureGroup.getByRole('option', { name: `Search all ${count} features of Plots` });
    await offer.waitFor();
    assert.equal(await featureGroup.getByRole('option').count(), 1, 'nothing found in the window, the table offered');
    assert.match((await offer.textContent()) ?? '', new RegExp(`first ${SCAN_ROWS} searched`));
    await page.screenshot({ path: `${TEST_OUTPUT}/search-partial-layer.png` });
    await offer.click();

    // The Layers tab, the layer's table, filtered by the text; its pages go on through the layer.
    const table = page.getByRole('region', { name: 'Attribute table of Plots' });
    await table.waitFor();
    assert.equal(await page.getByRole('tab', { name: 'Layers' }).getAttribute('aria-selected'), 'true');
    assert.equal(await table.getByLabel('Filter features').inputValue(), 'wankdorf');
    // Each page reads one window (More waits, disabled, while one is read): the feature is two Mores away.
    const row = table.locator('tbody tr').filter({ hasText: 'Wankdorf' });
    const more = table.getByRole('button', { name: 'More', disabled: false });
    let mores = 0;
    for (;;) {
      await more.or(row).first().waitFor();
      if ((await row.count()) > 0) break;
      assert.ok(++mores <= 2, 'the table reached the end of the layer');
      await table.getByText('None in the features read so far').waitFor();
      if (mores === 1) await page.screenshot({ path: `${TEST_OUTPUT}/search-partial-more.png` });
      await more.click();
    }
    assert.equal(mores, 2, 'two windows read past the first');
    await page.screenshot({ path: `${TEST_OUTPUT}/search-partial-table.png` });
    assert.equal(await table.locator('tbody tr').count(), 1, 'only the feature holding the text');
    // Its number shows it (its other cells are an editor's to edit).
    await row.locator('td').first().click();
    await page.getByLabel('Feature attributes').getByRole('cell', { name: 'Wankdorf' }).waitFor();

    // Leaving the Layers tab closes the table, as before.
    await page.getByRole('tab', { name: 'Markers' }).click();
    assert.equal(await table.count(), 0);
    assert.deepEqual(errors, []);
    await context.close();
  });

  test("a place of the service's geocoder is offered under Places; chosen, the map goes there with a pin", async () => {
    const room = await newRoom();
    const { context, page, box } = await openRoom(room);
    await box.fill('Aarberg');
    const place = page
      .getByRole('group', { name: 'Places' })
      .getByRole('option', { name: 'Aarberg, Bern, Switzerland' });
    await place.waitFor();
    assert.ok(asked.includes('Aarberg'), `the geocoder was asked for the text (${asked.join(', ')})`);
    await page.screenshot({ path: `${TEST_OUTPUT}/search-place-choices.png` });
    await place.click();
    await waitForCentre(page, AARBERG);
    await page.getByTestId('search-pin').waitFor();
    assert.ok((await centreOf(page)).zoom >= 11, 'the place fills the map');
    assert.equal(await page.getByRole('listbox').count(), 0, 'the list closed');
    await page.screenshot({ path: `${TEST_OUTPUT}/search-place.png` });
    assert.deepEqual(errors, []);
    await context.close();
  });
});
