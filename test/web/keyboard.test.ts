import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { TEST_DB } from '../helpers.js';
import { launchBrowser, startService, type RunningService, until } from '../support/browser.js';
import { type Call, newUserInRoom, type RoomMarker } from '../support/web-accounts.js';

// The room with the keyboard alone, in Debian's Chromium against the real service: the skip
// link to the map, a marker placed at the map's centre and moved with the arrow keys, Escape
// ending any mode, and the shortcuts under `?`. Once, with SQLite, like the other browser tests.
const skip = TEST_DB !== 'sqlite' && 'the browser tests run once, with the SQLite suite';

describe('the room with the keyboard alone', { skip }, () => {
  const roomId = `key${Date.now().toString(36).slice(-7)}`;
  const view = { lng: 7.45, lat: 46.95, zoom: 14 };
  let service: RunningService;
  let browser: Browser;
  let call: Call;
  let token = '';
  let page: Page;
  let errors: string[] = [];
  let markers: () => Promise<RoomMarker[]>;

  const focused = () =>
    page.evaluate(() => {
      const element = document.activeElement;
      return element?.classList.contains('maplibregl-canvas') ? 'map' : (element?.textContent ?? '').trim();
    });
  const placing = () => page.locator('[data-testid=map].placing');
  /** Tabs from the current focus until the button named `name` has it (the keyboard's way there). */
  const tabTo = async (name: string) => {
    for (let i = 0; i < 60 && (await focused()) !== name; i++) await page.keyboard.press('Tab');
    assert.equal(await focused(), name, `Tab reaches "${name}"`);
  };

  before(async () => {
    service = await startService();
    browser = await launchBrowser();
    ({ call, token, page, errors, markers } = await newUserInRoom(browser, service, { roomId, name: 'Kay', view }));
  });

  after(async () => {
    await browser?.close();
    await service?.stop();
  });

  test('the first Tab offers a link past the header to the map', async () => {
    await page.keyboard.press('Tab');
    assert.equal(await focused(), 'Skip to the map');
    assert.ok(await page.getByRole('button', { name: 'Skip to the map' }).isVisible(), 'shown when focused');
    await page.keyboard.press('Enter');
    assert.equal(await focused(), 'map');
  });

  test('a marker is placed at the cross with Enter, after moving the map with the arrow keys', async () => {
    await tabTo('Add marker');
    await page.keyboard.press('Enter');
    await placing().waitFor();
    assert.equal(await focused(), 'map', 'placing gives the map the focus');
    await page.getByTestId('placing-note').waitFor();
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Enter');
    await page.getByTestId('marker-title').filter({ hasText: 'New marker' }).waitFor();
    assert.equal(await placing().count(), 0, 'placing ends');
    const [marker] = await markers();
    assert.ok(marker, 'the marker is saved');
    assert.ok(marker.longitude > view.lng, `placed east of the first centre after ArrowRight (${marker.longitude})`);
    assert.ok(Math.abs(marker.latitude - view.lat) < 0.01, `at the same latitude (${marker.latitude})`);
  });

  test('the selected marker moves with the arrow keys and Enter', async () => {
    const [before] = await markers();
    await page.getByRole('button', { name: 'Move', exact: true }).focus();
    await page.keyboard.press('Enter');
    await placing().waitFor();
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Enter');
    const [after] = await until(markers, ([m]) => m !== undefined && m.latitude !== before!.latitude);
    assert.ok(after!.latitude > before!.latitude, `moved north (${before!.latitude} → ${after!.latitude})`);
    assert.equal(after!.id, before!.id, 'the same marker, not a new one');
    assert.equal((await markers()).length, 1);
  });

  test('Escape ends placing a marker and drawing, and nothing is saved', async () => {
    await page.getByRole('tab', { name: 'Markers' }).click();
    await page.getByRole('button', { name: 'Add marker' }).click();
    await placing().waitFor();
    await page.keyboard.press('Escape');
    await placing().waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Add marker' }).waitFor();
    await page.getByRole('tab', { name: 'Draw' }).click();
    const polygon = page.getByRole('button', { name: 'Polygon' });
    await polygon.click();
    assert.equal(await polygon.getAttribute('aria-pressed'), 'true');
    await page.keyboard.press('Escape');
    await until(
      () => polygon.getAttribute('aria-pressed'),
      (pressed) => pressed === 'false',
    );
    assert.equal(await polygon.getAttribute('aria-pressed'), 'false', 'drawing ends');
    assert.equal((await markers()).length, 1);
    const drawings = await call('GET', `/api/rooms/${roomId}/drawings`, undefined, token);
    assert.deepEqual(drawings.body.drawings, []);
  });

  test('? lists the shortcuts; Escape closes them and the focus goes back', async () => {
    await page.getByRole('tab', { name: 'Markers' }).focus();
    await page.keyboard.press('?');
    const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await dialog.waitFor();
    assert.match((await dialog.textContent()) ?? '', /EnterPlace the marker at the cross/);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    assert.equal(await focused(), 'Markers');
    // Typed into a field, `?` is a character, not a shortcut.
    await page.getByRole('tab', { name: 'Markers' }).click();
    await page.getByLabel('Find', { exact: true }).fill('');
    await page.getByLabel('Find', { exact: true }).press('?');
    assert.equal(await dialog.count(), 0);
    assert.deepEqual(errors, []);
  });
});
