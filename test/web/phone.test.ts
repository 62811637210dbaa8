import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, CDPSession, Page } from 'playwright-core';
import sharp from 'sharp';
import { TEST_DB } from '../helpers.js';
import { launchBrowser, startService, type RunningService, TEST_OUTPUT, until } from '../support/browser.js';
import { type Call, newUserInRoom, type RoomMarker } from '../support/web-accounts.js';

// The room and the deck on a 390x844 phone with touch, in Debian's Chromium against the real
// service: the side panel is a bottom sheet over a full map, markers are placed and moved and
// polygons drawn by tapping, Locate me works, and a deck framed on a desktop fits the phone.
// Once, with SQLite, like the other browser tests.
const skip = TEST_DB !== 'sqlite' && 'the browser tests run once, with the SQLite suite';

const PHONE = { width: 390, height: 844 };
const HERE = { latitude: 46.95, longitude: 7.45, accuracy: 30 };
/** At zoom 13, degrees of longitude per pixel (512 px wide world at zoom 0). */
const DEG_PER_PX = 360 / (512 * 2 ** 13);

describe('on a phone', { skip }, () => {
  const roomId = `phn${Date.now().toString(36).slice(-7)}`;
  let service: RunningService;
  let browser: Browser;
  let call: Call;
  let token = '';
  let page: Page;
  let touch: CDPSession;
  let errors: string[] = [];
  let markers: () => Promise<RoomMarker[]>;

  const sheet = () => page.locator('aside.side').getAttribute('data-sheet');
  const box = async (selector: string) => (await page.locator(selector).first().boundingBox())!;
  /** A finger swiping up (negative `by`) or down on a point: the browser's own touch events. */
  const swipe = async (x: number, y: number, by: number) => {
    await touch.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x, y }] });
    for (let step = 1; step <= 5; step++)
      await touch.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [{ x, y: y + (by * step) / 5 }] });
    await touch.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  };
  /** The longitude under a point `x` px from the map's left edge, as the map reads it. */
  const placeAt = async (x: number) => {
    const map = await box('[data-testid=map]');
    const view = JSON.parse((await page.getByTestId('map').getAttribute('data-view'))!) as {
      lng: number;
      lat: number;
      zoom: number;
    };
    const perPx = 360 / (512 * 2 ** view.zoom);
    return { lng: view.lng + (x - map.width / 2) * perPx, map };
  };

  before(async () => {
    service = await startService();
    browser = await launchBrowser();
    ({ call, token, page, errors, markers } = await newUserInRoom(
      browser,
      service,
      { roomId, name: 'Pia', view: { lng: 7.45, lat: 46.95, zoom: 13 } },
      { viewport: PHONE, isMobile: true, hasTouch: true, geolocation: HERE, permissions: ['geolocation'] },
    ));
    touch = await page.context().newCDPSession(page);
    const layer = await call(
      'POST',
      `/api/rooms/${roomId}/layers`,
      {
        name: 'paths',
        geojson: {
          type: 'FeatureCollection',
          features: [
            {
              type: 'Feature',
              properties: {},
              geometry: {
                type: 'LineString',
                coordinates: [
                  [7.44, 46.94],
                  [7.46, 46.96],
                ],
              },
            },
          ],
        },
      },
      token,
    );
    assert.ok(layer.status < 300, JSON.stringify(layer.body));
  });

  after(async () => {
    await browser?.close();
    await service?.stop();
  });

  test('the panels are a bottom sheet over a full map: tabs always there, tap or swipe for more, legend closed', async () => {
    await page.getByTestId('legend').waitFor();
    assert.equal(await sheet(), 'peek');
    const map = await box('[data-testid=map]');
    const side = await box('aside.side');
    const header = await box('.room-header');
    // The map runs from the header to the sheet's tabs; the sheet shows only its handle and tabs.
    assert.ok(Math.abs(map.y - (header.y + header.height)) < 2 && map.width === PHONE.width, JSON.stringify(map));
    assert.ok(Math.abs(map.y + map.height - side.y) < 2, `map ends at ${map.y + map.height}, sheet at ${side.y}`);
    assert.ok(side.height <= 110, `the sheet peeks ${side.height} px`);
    assert.ok(map.height > PHONE.height * 0.6, `the map is ${map.height} px high`);
    // The legend starts closed, on the map above the sheet.
    assert.equal(await page.getByTestId('legend').evaluate((d) => (d as HTMLDetailsElement).open), false);
    const legend = await box('[data-testid=legend]');
    assert.ok(
      legend.y + legend.height <= side.y,
      `the legend (${JSON.stringify(legend)}) sits on the map, above ${side.y}`,
    );
    await page.getByTestId('legend').locator('summary').tap();
    await page.getByTestId('legend-layer').filter({ hasText: 'paths' }).waitFor();
    // Every tab can be tapped and opens the sheet to half; each control is at least 44 px high.
    for (const name of ['Settings', 'Timeline', 'Slides', 'Draw', 'Layers']) {
      await page.getByRole('tab', { name }).tap();
      assert.equal(await page.getByRole('tab', { name }).getAttribute('aria-selected'), 'true', name);
    }
    await until(sheet, (s) => s === 'half');
    await page.screenshot({ path: path.join(TEST_OUTPUT, 'phone-sheet-half.png') });
    for (const target of [
      page.getByRole('tab', { name: 'Layers' }),
      page.getByTestId('sheet-handle'),
      page.getByRole('button', { name: 'Zoom in' }),
      page.getByRole('button', { name: 'Find my location' }),
      page.getByRole('button', { name: 'Keyboard shortcuts' }),
      page.getByTestId('legend').locator('summary'),
    ]) {
      const { height, width } = (await target.boundingBox())!;
      assert.ok(height >= 44 && width >= 44, `${target} is ${width}x${height}`);
    }
    const handle = await box('[data-testid=sheet-handle]');
    await swipe(handle.x + handle.width / 2, handle.y + handle.height / 2, -200);
    await until(sheet, (s) => s === 'full');
    await page.getByRole('heading', { name: 'Layers' }).waitFor();
    await page.screenshot({ path: path.join(TEST_OUTPUT, 'phone-sheet-full.png') });
    const full = await box('[data-testid=sheet-handle]');
    await swipe(full.x + full.width / 2, full.y + full.height / 2, 200);
    await until(sheet, (s) => s === 'half');
    await page.getByTestId('sheet-handle').tap();
    await until(sheet, (s) => s === 'full');
    await page.getByTestId('sheet-handle').tap();
    await until(sheet, (s) => s === 'peek');
    // And with a keyboard: Enter on the handle.
    await page.getByTestId('sheet-handle').focus();
    await page.keyboard.press('Enter');
    await until(sheet, (s) => s === 'half');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter');
    await until(sheet, (s) => s === 'peek');
    assert.deepEqual(errors, []);
  });

  test('a marker is placed by a tap on the map, and moved by another', async () => {
    await page.getByRole('tab', { name: 'Markers' }).tap();
    await page.getByRole('button', { name: 'Add marker' }).tap();
    // The sheet steps down to its tabs, saying what to do, while the map is tapped.
    await until(sheet, (s) => s === 'peek');
    await page.getByTestId('sheet-working').getByText('Tap the map where the marker goes.').waitFor();
    const at = await placeAt(100);
    await page.touchscreen.tap(at.map.x + 100, at.map.y + 200);
    const [placed] = await until(markers, (list) => list.length === 1);
    assert.ok(
      Math.abs(placed!.longitude - at.lng) < 3 * DEG_PER_PX,
      `placed at ${placed!.longitude}, tapped ${at.lng}`,
    );
    // Back to at least half, the new marker's details in view.
    await until(sheet, (s) => s === 'half');
    await page.getByRole('button', { name: 'Move', exact: true }).tap();
    await until(sheet, (s) => s === 'peek');
    // Move centres the map on the marker first.
    await until(
      async () => JSON.parse((await page.getByTestId('map').getAttribute('data-view'))!).lng as number,
      (lng) => Math.abs(lng - placed!.longitude) < 1e-6,
    );
    const to = await placeAt(300);
    await page.touchscreen.tap(to.map.x + 300, to.map.y + 150);
    const [moved] = await until(markers, (list) => list[0]?.longitude !== placed!.longitude);
    assert.ok(Math.abs(moved!.longitude - to.lng) < 3 * DEG_PER_PX, `moved to ${moved!.longitude}, tapped ${to.lng}`);
    assert.ok(moved!.latitude > placed!.latitude, 'and north, where the second tap was');
    await until(sheet, (s) => s === 'half');
    assert.deepEqual(errors, []);
  });

  test('a polygon is drawn and a distance measured by tapping; Cancel on the sheet ends a drawing', async () => {
    await page.getByRole('tab', { name: 'Draw' }).tap();
    await page.getByRole('button', { name: 'Line', exact: true }).tap();
    await until(sheet, (s) => s === 'peek');
    await page.getByTestId('sheet-working').getByRole('button', { name: 'Cancel' }).tap();
    await until(sheet, (s) => s !== 'peek');
    await page.getByRole('button', { name: 'Polygon', exact: true }).tap();
    await until(sheet, (s) => s === 'peek');
    const map = await box('[data-testid=map]');
    const corners = [
      [120, 150],
      [260, 160],
      [220, 320],
    ] as const;
    for (const [x, y] of [...corners, corners[0]]) await page.touchscreen.tap(map.x + x, map.y + y);
    const drawings = await until(
      async () =>
        (await call('GET', `/api/rooms/${roomId}/drawings`, undefined, token)).body.drawings as {
          geometry: GeoJSON.Polygon;
        }[],
      (list) => list.length === 1,
    );
    // Three corners and the closing one.
    assert.equal(drawings[0]!.geometry.type, 'Polygon');
    assert.equal(drawings[0]!.geometry.coordinates[0]!.length, 4);
    await until(sheet, (s) => s === 'half');
    // Measuring by touch: tap the points, tap the last again; the sheet comes back with the length.
    await page.getByRole('tab', { name: 'Draw' }).tap();
    await page.getByRole('button', { name: 'Measure distance' }).tap();
    await until(sheet, (s) => s === 'peek');
    // Above where the half sheet was: it may still be sliding down as the first tap comes.
    for (const [x, y] of [
      [60, 250],
      [330, 250],
      [330, 250],
    ] as const)
      await page.touchscreen.tap(map.x + x, map.y + y);
    const result = page.getByTestId('measure-result');
    await result.and(page.locator('[data-state=done]')).waitFor();
    await until(sheet, (s) => s === 'half');
    // 270 px at zoom 13 and 46.95° north: 270 * 9.55 m * cos(46.95°) = 1.76 km.
    assert.match((await result.textContent())!, /Length 1\.7\d km/);
    await result.getByRole('button', { name: 'Close' }).tap();
    assert.deepEqual(errors, []);
  });

  test('locate me on the phone: the position, and a marker there', async () => {
    await page.getByRole('tab', { name: 'Markers' }).tap();
    await until(sheet, (s) => s === 'half');
    await page.getByRole('button', { name: 'Find my location' }).tap();
    await page.locator('.maplibregl-user-location-dot').waitFor();
    const before = (await markers()).length;
    await page.getByRole('button', { name: /Add a marker at my position/ }).tap();
    const list = await until(markers, (l) => l.length === before + 1);
    const here = list.find((m) => Math.abs(m.latitude - HERE.latitude) < 1e-6);
    assert.ok(here && Math.abs(here.longitude - HERE.longitude) < 1e-6, JSON.stringify(list));
    assert.deepEqual(errors, []);
  });

  test('Present from the room: the deck fits the phone, each slide showing only what it lists', async () => {
    // A magenta marker 550 px east of the centre of a 1200x800 map at zoom 13: off a phone's
    // screen at that zoom, on it once the slide is fitted (zoom 13 + log2(390 / 1200)). A green
    // one at the centre is not on the slide: the deck does not show it.
    const east = 7.45 + 550 * DEG_PER_PX;
    const add = async (longitude: number, title: string, color: string) =>
      (
        (await call('POST', `/api/rooms/${roomId}/markers`, { latitude: 46.95, longitude, title, color }, token)).body
          .marker as { id: string }
      ).id;
    const edge = await add(east, 'Edge', '#ff00ff');
    await add(7.45, 'Not on the slide', '#00ff00');
    const view = { lat: 46.95, lng: 7.45, zoom: 13, width: 1200, height: 800 };
    const slide = await call(
      'POST',
      `/api/rooms/${roomId}/presentation/slides`,
      { title: 'Whole', view, markerIds: [edge] },
      token,
    );
    assert.equal(slide.status, 201, JSON.stringify(slide.body));
    await page.getByRole('tab', { name: 'Slides' }).tap();
    await page.getByRole('link', { name: 'Present' }).tap();
    await page.waitForURL(`**/p/${roomId}?from=room`);
    await page.locator('[data-testid=map][data-ready=true]').waitFor({ timeout: 30_000 });
    await page.getByTestId('slide-title').filter({ hasText: 'Whole' }).waitFor();
    await page.screenshot({ path: path.join(TEST_OUTPUT, 'phone-deck.png') });
    const { data, info } = await sharp(await page.getByTestId('map').screenshot())
      .raw()
      .toBuffer({ resolveWithObject: true });
    const xs: number[] = [];
    let green = 0;
    for (let i = 0; i < data.length; i += info.channels) {
      const [r, g, b] = [data[i]!, data[i + 1]!, data[i + 2]!];
      if (r > 200 && g < 80 && b > 200) xs.push((i / info.channels) % info.width);
      if (r < 80 && g > 200 && b < 80) green++;
    }
    assert.ok(xs.length > 20, "the marker at the frame's edge is on the phone's screen");
    // Where the fitted zoom puts it: 550 px scaled by 390 / 1200 east of the centre.
    const x = xs.reduce((a, b) => a + b, 0) / xs.length;
    assert.ok(Math.abs(x - (info.width / 2 + 550 * (390 / 1200))) < 12, `the marker is drawn at x ${x}`);
    assert.equal(green, 0, 'a marker the slide does not list is not shown');
    // End: back in the room.
    await page.getByRole('button', { name: 'End' }).tap();
    await page.waitForURL(`**/r/${roomId}`);
    await page.locator('[data-testid=map][data-ready=true]').waitFor({ timeout: 30_000 });
    assert.deepEqual(errors, []);
  });
});
