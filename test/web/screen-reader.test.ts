import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { TEST_DB } from '../helpers.js';
import { launchBrowser, startService, type RunningService, TEST_OUTPUT, until } from '../support/browser.js';
import { type Call, newUserInRoom } from '../support/web-accounts.js';

// What a screen reader hears in a room, in Debian's Chromium against the real service: others'
// changes told politely as they arrive (the page's own are not), and the markers and features in
// view offered as lists to go through and choose from. Once, with SQLite.
const skip = TEST_DB !== 'sqlite' && 'the browser tests run once, with the SQLite suite';

describe('a room for a screen reader', { skip }, () => {
  const roomId = `srd${Date.now().toString(36).slice(-7)}`;
  let service: RunningService;
  let browser: Browser;
  let call: Call;
  let token = '';
  let script = '';
  let page: Page;
  let errors: string[] = [];
  let wellId = '';

  before(async () => {
    service = await startService();
    browser = await launchBrowser();
    ({ call, token, page, errors } = await newUserInRoom(browser, service, {
      roomId,
      name: 'Sam',
      view: { lng: 7.45, lat: 46.95, zoom: 13 },
    }));
    const issued = await call(
      'POST',
      `/api/rooms/${roomId}/api-tokens`,
      { name: 'survey', permissions: ['read', 'write'] },
      token,
    );
    script = issued.body.token as string;
    const paths = await call(
      'POST',
      `/api/rooms/${roomId}/layers`,
      {
        name: 'paths',
        geojson: {
          type: 'FeatureCollection',
          features: [
            {
              type: 'Feature',
              properties: { name: 'Aare walk', km: 3 },
              geometry: {
                type: 'LineString',
                coordinates: [
                  [7.44, 46.95],
                  [7.46, 46.951],
                ],
              },
            },
          ],
        },
      },
      token,
    );
    assert.ok(paths.status < 300, JSON.stringify(paths.body));
  });

  after(async () => {
    await browser?.close();
    await service?.stop();
  });

  test("others' changes are told politely, one by one or counted; the page's own are not", async () => {
    const region = page.getByTestId('announcements');
    assert.equal(await region.getAttribute('role'), 'status', 'a polite live region');
    await page.getByRole('tab', { name: 'Markers' }).click();
    const marker = (title: string, longitude: number) =>
      call('POST', `/api/rooms/${roomId}/markers`, { latitude: 46.95, longitude, title }, script);
    wellId = ((await marker('Well', 7.451)).body.marker as { id: string }).id;
    await page.waitForFunction(
      () => document.querySelector('[data-testid=announcements]')?.textContent === "An API token added marker 'Well'.",
    );
    await Promise.all([marker('Gate', 7.452), marker('Bench', 7.453)]);
    await page.waitForFunction(
      () => document.querySelector('[data-testid=announcements]')?.textContent === 'An API token made 2 changes.',
    );
    // Sam's own marker, through the page: it arrives on the live channel too, and is not told:
    // the script's next change, right after, is told alone.
    await page.getByRole('button', { name: 'Add marker' }).click();
    const map = (await page.getByTestId('map').boundingBox())!;
    await page.mouse.click(map.x + 100, map.y + 100);
    await until(
      async () => (await call('GET', `/api/rooms/${roomId}/markers`, undefined, token)).body.markers as unknown[],
      (markers) => markers.length === 4,
    );
    await marker('Stile', 7.454);
    await page.waitForFunction(
      () => document.querySelector('[data-testid=announcements]')?.textContent === "An API token added marker 'Stile'.",
    );
    assert.deepEqual(errors, []);
  });

  test('the markers and features in view are lists to go through; choosing one selects it', async () => {
    const inView = page.getByRole('region', { name: 'What is in view' });
    await inView.locator('summary').focus();
    assert.ok(await inView.locator('summary').isVisible(), 'shown once it has the focus');
    await page.keyboard.press('Enter');
    const list = page.getByTestId('in-view');
    await list.getByRole('button', { name: 'Well' }).waitFor();
    await list.getByRole('heading', { name: '5 markers' }).waitFor();
    await page.screenshot({ path: path.join(TEST_OUTPUT, 'in-view.png') });
    await list.getByRole('button', { name: 'paths: Aare walk' }).click();
    // The feature's attributes show, as a click on it on the map shows them.
    const attributes = page.getByRole('region', { name: 'Feature attributes' });
    await attributes.getByRole('row', { name: /km/ }).waitFor();
    assert.equal(await attributes.getByRole('row', { name: /name/ }).locator('td').first().textContent(), 'Aare walk');
    // A marker moved out of view leaves the list when the map rests.
    await call('PATCH', `/api/rooms/${roomId}/markers/${wellId}`, { latitude: 10, longitude: 10 }, script);
    await list.getByRole('heading', { name: '4 markers' }).waitFor();
    assert.equal(await list.getByRole('button', { name: 'Well' }).count(), 0);
    assert.deepEqual(errors, []);
  });
});
