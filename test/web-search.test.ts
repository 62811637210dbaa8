import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { TEST_DB } from './helpers.js';
import { launchBrowser, startService, TEST_OUTPUT, type RunningService } from './support/browser.js';

// Find (issue 20), in Chromium against the real service: the search box goes to a marker
// (its panel open), to a layer feature (its attributes shown) and to a DMS position. Once, on
// SQLite, like test/web-browser.test.ts. HTTP behaviour: search.test.ts, geocode.test.ts.
const skip = TEST_DB !== 'sqlite' && 'the browser tests run once, with the SQLite suite';

const ZYTGLOGGE = { lat: 46.948, lng: 7.4476 };
/** 46°57'03"N 7°26'51"E */
const DMS = { lat: 46 + 57 / 60 + 3 / 3600, lng: 7 + 26 / 60 + 51 / 3600 };

describe('find in the room', { skip }, () => {
  let service: RunningService;
  let browser: Browser;
  const errors: string[] = [];

  before(async () => {
    service = await startService({ BASEMAPS: 'none' });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await service?.stop();
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

  test('a marker title, a feature text and a DMS position are found and gone to', async () => {
    const signup = await fetch(`${service.url}/api/auth/signup`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: `find-${Date.now()}@example.com`, password: 'a-long-password', name: 'Fi' }),
    });
    const { token, user } = (await signup.json()) as { token: string; user: unknown };
    const api = async (method: string, url: string, body: unknown) => {
      const response = await fetch(`${service.url}${url}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      assert.ok(response.ok, `${method} ${url}: ${response.status} ${await response.clone().text()}`);
      return (await response.json()) as Record<string, any>;
    };
    const roomId = `find${Date.now().toString(36)}`.padEnd(10, '0').slice(0, 10);
    await api('POST', `/api/rooms/${roomId}`, {});
    await api('PATCH', `/api/rooms/${roomId}/camera-settings`, { autoZoomEnabled: false, defaultView: null });
    await api('POST', `/api/rooms/${roomId}/markers`, {
      latitude: ZYTGLOGGE.lat,
      longitude: ZYTGLOGGE.lng,
      title: 'Zytglogge',
    });
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
    await api('POST', `/api/rooms/${roomId}/layers`, {
      name: 'Parcels',
      geojson: {
        type: 'FeatureCollection',
        features: [square(8.5, 47.3, 'Seefeld'), square(6.1, 46.2, 'Plainpalais')],
      },
    });

    const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    await context.addInitScript((session) => localStorage.setItem('maproom.session', JSON.stringify(session)), {
      token,
      user,
    });
    const page = await context.newPage();
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${service.url}/r/${roomId}`);
    await page.locator('[data-testid=map][data-ready=true]').waitFor({ timeout: 30_000 });
    const box = page.getByLabel('Find in the room');

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
});
