import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { TEST_DB } from '../helpers.js';
import { launchBrowser, startService, type RunningService, until } from '../support/browser.js';
import { makePhotos } from '../support/markers.js';
import { type Call, newUserInRoom, type RoomMarker } from '../support/web-accounts.js';

// Field work in Debian's Chromium against the real service, the browser's position emulated:
// "Locate me" shows the position with its accuracy, follows it as it changes, and adds a
// marker where the person stands; a photo whose EXIF holds a position puts its marker there.
// Once, with SQLite, like the other browser tests.
const skip = TEST_DB !== 'sqlite' && 'the browser tests run once, with the SQLite suite';

const HERE = { latitude: 46.9, longitude: 7.4, accuracy: 25 };
const THERE = { latitude: 46.905, longitude: 7.41, accuracy: 8 };

describe('field work: locate me and a photo where it was taken', { skip }, () => {
  const roomId = `fld${Date.now().toString(36).slice(-7)}`;
  let service: RunningService;
  let browser: Browser;
  let context: BrowserContext;
  let call: Call;
  let token = '';
  let page: Page;
  let errors: string[] = [];
  let markers: () => Promise<RoomMarker[]>;

  /** How far the position's dot is from the middle of the map, in pixels. */
  const dotFromCentre = () =>
    page.evaluate(() => {
      const map = document.querySelector('[data-testid=map]')!.getBoundingClientRect();
      const dot = document.querySelector('.maplibregl-user-location-dot')!.getBoundingClientRect();
      return Math.hypot(
        dot.x + dot.width / 2 - (map.x + map.width / 2),
        dot.y + dot.height / 2 - (map.y + map.height / 2),
      );
    });

  before(async () => {
    service = await startService();
    browser = await launchBrowser();
    const view = { lng: 7.45, lat: 46.95, zoom: 12 };
    ({ call, token, context, page, errors, markers } = await newUserInRoom(
      browser,
      service,
      { roomId, name: 'Fia', view },
      { geolocation: HERE, permissions: ['geolocation'] },
    ));
  });

  after(async () => {
    await browser?.close();
    await service?.stop();
  });

  test('locate me shows the position with its accuracy, and a marker goes where the person stands', async () => {
    assert.equal(await page.getByRole('button', { name: /Add a marker at my position/ }).count(), 0, 'not before');
    await page.getByRole('button', { name: 'Find my location' }).click();
    await page.locator('.maplibregl-user-location-dot').waitFor();
    await page.locator('.maplibregl-user-location-accuracy-circle').waitFor({ state: 'attached' });
    const add = page.getByRole('button', { name: 'Add a marker at my position (±25 m)' });
    await add.click();
    await page.getByTestId('marker-title').filter({ hasText: 'New marker' }).waitFor();
    const [marker] = await markers();
    assert.deepEqual([marker?.latitude, marker?.longitude], [HERE.latitude, HERE.longitude]);
  });

  test('the map follows the position as the person walks', async () => {
    await until(dotFromCentre, (px) => px < 3);
    await context.setGeolocation(THERE);
    await page.getByRole('button', { name: 'Add a marker at my position (±8 m)' }).waitFor();
    // Followed: the map moved with the dot, which stays in the middle.
    assert.ok((await until(dotFromCentre, (px) => px < 3)) < 3, 'the dot stays in the middle of the map');
    await page.getByRole('tab', { name: 'Markers' }).click();
    await page.getByRole('button', { name: 'Add a marker at my position (±8 m)' }).click();
    const found = await until(markers, (all) => all.length === 2);
    assert.ok(
      found.some((m) => m.latitude === THERE.latitude && m.longitude === THERE.longitude),
      'the second marker is where the person is now',
    );
  });

  test("a photo's EXIF position puts its marker there", async () => {
    const { photoA } = await makePhotos();
    const created = await call(
      'POST',
      `/api/rooms/${roomId}/markers`,
      { latitude: 46.95, longitude: 7.45, title: 'Snap' },
      token,
    );
    const markerId = (created.body.marker as RoomMarker).id;
    const form = new FormData();
    form.append('image', new Blob([new Uint8Array(photoA)], { type: 'image/jpeg' }), 'a.jpg');
    const uploaded = await fetch(`${service.url}/api/rooms/${roomId}/markers/upload-image`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}` },
      body: form,
    });
    const { imageKey, thumbnailKey } = (await uploaded.json()) as { imageKey: string; thumbnailKey: string };
    const patched = await call('PATCH', `/api/rooms/${roomId}/markers/${markerId}`, { imageKey, thumbnailKey }, token);
    assert.equal(patched.status, 200);
    await page.getByRole('tab', { name: 'Markers' }).click();
    await page.getByTestId('marker-list').getByRole('button', { name: 'Snap' }).click();
    const place = page.getByRole('button', { name: "Place at the photo's position (46.50000, 7.25000)" });
    await place.click();
    const moved = await until(markers, (all) => all.some((m) => m.id === markerId && m.latitude === 46.5));
    const snap = moved.find((m) => m.id === markerId)!;
    assert.deepEqual([snap.latitude, snap.longitude], [46.5, 7.25]);
    await place.waitFor({ state: 'detached' });
    assert.deepEqual(errors, []);
  });
});
