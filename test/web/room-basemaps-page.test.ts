import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import sharp from 'sharp';
import { TEST_DB } from '../helpers.js';
import { launchBrowser, type RunningService, startService } from '../support/browser.js';
import { newUserInRoom, shoot } from '../support/web-accounts.js';

// A room's own base map in Debian's Chromium against the real service: the owner adds an XYZ
// address in the room's settings, the map's base-map menu offers it, and choosing it asks the
// tile server (on loopback, with CORS as tile servers answer) for its tiles and shows its
// attribution. Once, with SQLite, like the other browser tests.
const skip = TEST_DB !== 'sqlite' && 'the browser tests run once, with the SQLite suite';

describe("a room's own base map in the page", { skip }, () => {
  let service: RunningService;
  let browser: Browser;
  let tiles: Server;
  const asked: string[] = [];
  /** Called with each path the tile server is asked for. */
  let onAsked = (_url: string) => {};

  before(async () => {
    const tile = await sharp({
      create: { width: 256, height: 256, channels: 3, background: { r: 255, g: 0, b: 255 } },
    })
      .png()
      .toBuffer();
    tiles = createServer((request, response) => {
      asked.push(request.url ?? '');
      onAsked(request.url ?? '');
      response.writeHead(200, { 'Content-Type': 'image/png', 'Access-Control-Allow-Origin': '*' });
      response.end(tile);
    });
    await new Promise<void>((resolve) => tiles.listen(0, '127.0.0.1', resolve));
    service = await startService();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await service?.stop();
    await new Promise((resolve) => tiles?.close(resolve));
  });

  test('the owner adds an XYZ base map: the menu offers it, and chosen, its tiles are asked for and its attribution shown', async () => {
    const roomId = `bm${Date.now().toString(36).slice(-8)}`;
    const { page, errors } = await newUserInRoom(browser, service, {
      roomId,
      name: 'Surveyor',
      view: { lng: 7.45, lat: 46.95, zoom: 5 },
    });
    const { port } = tiles.address() as AddressInfo;
    await page.getByRole('tab', { name: 'Settings' }).click();
    const form = page.getByRole('form', { name: 'Add a base map' });
    await form.getByLabel('Name').fill('Test tiles');
    await form.getByLabel('Address').fill(`http://127.0.0.1:${port}/{z}/{x}/{y}.png`);
    await form.getByLabel('Attribution').fill('© Test tiles <b>');
    await form.getByRole('button', { name: 'Add base map' }).click();
    const listed = page.getByTestId('room-basemaps').getByText('Test tiles');
    await listed.waitFor();
    await shoot(page, 'room-basemaps-settings', page.getByRole('heading', { name: 'Base maps of this room' }));

    // The probe asks for 0/0/0; the map then for the 256 px tiles of its view (zoom 5 of 512 px tiles: 6).
    // Waited for as an event: the tile server runs in this process, and a polling loop would starve it.
    const ofView = (url: string) => /^\/6\/3[2-4]\/2[1-3]\.png$/.test(url);
    const tileOfView = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no tile of the view asked for: ${asked}`)), 30_000);
      onAsked = (url) => {
        if (!ofView(url)) return;
        clearTimeout(timer);
        resolve();
      };
    });
    const menu = page.getByRole('combobox', { name: 'Base map' });
    await menu.locator('optgroup[label="This room"] option', { hasText: 'Test tiles' }).waitFor({ state: 'attached' });
    await menu.selectOption({ label: 'Test tiles' });
    await page.locator('[data-testid=map][data-base-map="room:test-tiles"]').waitFor();
    await tileOfView;
    assert.ok(asked.includes('/0/0/0.png'), `the probe first: ${asked}`);
    // Attribution is text: the characters, not an element.
    const attribution = page.locator('.maplibregl-ctrl-attrib-inner');
    await attribution.getByText('© Test tiles <b>').waitFor({ state: 'attached' });
    assert.equal(await attribution.locator('b').count(), 0);
    await shoot(page, 'room-basemaps-map');
    assert.deepEqual(errors, []);
  });
});
