import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import sharp from 'sharp';
import { TEST_DB } from '../helpers.js';
import { makeRasterFixtures, probe } from '../raster-fixtures.js';
import { squareFeature } from '../support/layers.js';
import {
  launchBrowser,
  mapSettled,
  startService,
  TEST_OUTPUT,
  type RunningService,
  until,
} from '../support/browser.js';
import {
  apiCall,
  belowSideTop,
  countPreviewPixels,
  logInAt,
  mapCentre,
  mapPixels,
  mapReady,
  scrollSideToEnd,
  storyPage,
} from '../support/browser-story.js';

// The web application in a real browser (Debian's Chromium) against the real service: one
// story of a team's first use, step by step. It runs once, on SQLite: the pages do not depend
// on the database, which the HTTP tests cover twice.
const skip = TEST_DB !== 'sqlite' && 'the browser tests run once, with the SQLite suite';

const XSS = '<img src=x onerror=alert(1)>';
const BERN = { lng: 7.4474, lat: 46.948 };

describe('the web application', { skip }, () => {
  let service: RunningService;
  let browser: Browser;
  let ann: Page;
  let watcher: Page;
  const contexts: BrowserContext[] = [];
  let roomId = '';
  let token = '';
  const dialogs: string[] = [];
  const email = `ann-${Date.now()}@example.com`;
  const rasters = makeRasterFixtures();

  const api = (method: string, url: string, body?: unknown) => apiCall(`${service.url}${url}`, token, method, body);
  const page = (viewport?: { width: number; height: number }) => storyPage(browser, { contexts, dialogs }, viewport);
  const logIn = (p: Page, password = 'a-long-password') => logInAt(p, `${service.url}/r/${roomId}`, email, password);

  before(async () => {
    service = await startService();
    browser = await launchBrowser();
  });
  after(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await service?.stop();
    rasters.remove();
  });

  test('a new user signs up, creates a room and opens it', async () => {
    ann = await page();
    await ann.goto(service.url);
    await ann.getByRole('tab', { name: 'Sign up' }).click();
    await ann.getByLabel('Name').fill('Ann');
    await ann.getByLabel('E-mail').fill(email);
    await ann.getByLabel('Password').fill('a-long-password');
    await ann.getByRole('button', { name: 'Create account' }).click();
    await ann.getByRole('heading', { name: 'Your rooms' }).waitFor();
    token = await ann.evaluate(() => JSON.parse(localStorage.getItem('maproom.session')!).token as string);
    await ann.getByLabel('Name').fill('Field survey');
    roomId = await ann.getByLabel(/Room id/).inputValue();
    await ann.getByRole('button', { name: 'Create room' }).click();
    await mapReady(ann);
    assert.equal(new URL(ann.url()).pathname, `/r/${roomId}`);
    await ann.getByText('Live', { exact: true }).waitFor();
    const room = await api('GET', `/api/rooms/${roomId}`);
    assert.equal(room.body.name, 'Field survey');
    assert.equal(room.body.userRole, 'owner');
    // A second browser (Ann on another computer) watches the room live.
    watcher = await page();
    await logIn(watcher);
    await watcher.getByText('Live', { exact: true }).waitFor();
  });

  test('a marker added by clicking the map appears in the other browser, then is dragged, edited (its title shown as text) and deleted', async () => {
    await api('PATCH', `/api/rooms/${roomId}/camera-settings`, { defaultView: { ...BERN, zoom: 13 } });
    await ann.reload();
    await mapReady(ann);
    await ann.getByRole('button', { name: 'Add marker' }).click();
    const centre = await mapCentre(ann);
    await ann.mouse.click(centre.x, centre.y);
    await ann.getByTestId('marker-title').filter({ hasText: 'New marker' }).waitFor();
    await watcher.getByTestId('marker-list').getByText('New marker').waitFor({ timeout: 5000 });
    let [marker] = (await api('GET', `/api/rooms/${roomId}/markers`)).body.markers!;
    assert.ok(Math.abs(marker!.longitude - BERN.lng) < 0.001, 'placed where the map was clicked');

    // Drag it 120 px east, once MapLibre has drawn it (on a loaded machine the panel shows
    // first): its title is placed beside it from what the map drew, and the pointer over it says so.
    await ann.locator('.marker-label', { hasText: 'New marker' }).waitFor({ timeout: 30_000 });
    await ann.mouse.move(centre.x + 40, centre.y + 40);
    await ann.mouse.move(centre.x, centre.y);
    await ann.waitForFunction(
      () => document.querySelector<HTMLElement>('canvas.maplibregl-canvas')?.style.cursor === 'pointer',
    );
    const patched = ann.waitForResponse((r) => r.request().method() === 'PATCH' && r.url().includes('/markers/'));
    await ann.mouse.down();
    await ann.mouse.move(centre.x + 60, centre.y, { steps: 5 });
    await ann.mouse.move(centre.x + 120, centre.y, { steps: 5 });
    await ann.mouse.up();
    await patched;
    [marker] = (await api('GET', `/api/rooms/${roomId}/markers`)).body.markers!;
    assert.ok(marker!.longitude > BERN.lng + 0.001, `moved east: ${marker!.longitude}`);

    await ann.getByRole('button', { name: 'Edit marker' }).click();
    await ann.getByLabel('Title').fill(XSS);
    await ann.getByLabel('Description').fill('Meet at the fountain');
    await ann.getByLabel('Tags (comma separated)').fill('survey, day 1');
    await ann.getByRole('button', { name: 'Save', exact: true }).click();
    await ann.getByTestId('marker-title').filter({ hasText: XSS }).waitFor();
    const shown = watcher.getByTestId('marker-list').getByText(XSS, { exact: true });
    await shown.waitFor({ timeout: 5000 });
    assert.equal(await watcher.locator('[data-testid=marker-list] img').count(), 0, 'the title is text, not markup');
    assert.deepEqual(dialogs, [], 'no script ran');

    // Delete: done at once, no browser confirm, with "Deleted … Undo"; the other browser sees it go, and come
    // back (the same marker, restored from the history) when it is undone; then deleted for good.
    await ann.getByRole('button', { name: 'Edit marker' }).click();
    await ann.getByRole('button', { name: 'Delete marker' }).click();
    await watcher.getByRole('heading', { name: 'Markers (0)' }).waitFor({ timeout: 5000 });
    const deleted = ann.getByRole('status').filter({ hasText: 'Deleted the marker' });
    await deleted.waitFor();
    await ann.screenshot({ path: path.join(TEST_OUTPUT, 'deleted-undo.png') });
    await deleted.getByRole('button', { name: 'Undo' }).click();
    await watcher.getByRole('heading', { name: 'Markers (1)' }).waitFor({ timeout: 5000 });
    await watcher.getByTestId('marker-list').getByText(XSS, { exact: true }).waitFor();
    await ann.getByRole('status').filter({ hasText: 'Restored the marker' }).waitFor();
    await ann.getByTestId('marker-list').getByText(XSS, { exact: true }).click();
    await ann.getByRole('button', { name: 'Edit marker' }).click();
    await ann.getByRole('button', { name: 'Delete marker' }).click();
    await watcher.getByRole('heading', { name: 'Markers (0)' }).waitFor({ timeout: 5000 });
    assert.deepEqual(dialogs, [], 'no browser dialog');
    // Choosing the marker in the list zoomed Ann's map to it: back to the room's view, which the
    // next tests share with the other browser.
    await ann.reload();
    await mapReady(ann);
  });

  test('a photo is uploaded to a marker and its thumbnail, made by the service, is shown', async () => {
    await ann.getByRole('button', { name: 'Add marker' }).click();
    const centre = await mapCentre(ann);
    await ann.mouse.click(centre.x - 80, centre.y + 40);
    await ann.getByRole('button', { name: 'Edit marker' }).click();
    const photo = await sharp({
      create: { width: 800, height: 600, channels: 3, background: { r: 40, g: 120, b: 200 } },
    })
      .jpeg()
      .toBuffer();
    await ann
      .getByLabel('Photo (JPEG, PNG, WebP, HEIC)')
      .setInputFiles({ name: 'fountain.jpg', mimeType: 'image/jpeg', buffer: photo });
    const image = ann.getByTestId('marker-photo');
    await image.waitFor({ timeout: 15_000 });
    const width = await image.evaluate((img: HTMLImageElement) => img.decode().then(() => img.naturalWidth));
    assert.equal(width, 256, 'the thumbnail: longest side 256 px');
    await ann.getByRole('button', { name: 'Cancel' }).click();
  });

  test('a page opening the room draws its markers from the feed, then shows a marker whole when it is opened', async () => {
    const feed = watcher.waitForResponse((r) => new URL(r.url()).pathname === `/api/rooms/${roomId}/markers/feed`);
    const reads: string[] = [];
    const count = (request: { url: () => string }) => {
      const url = new URL(request.url());
      if (url.pathname.startsWith('/api/')) reads.push(url.pathname + url.search);
    };
    watcher.on('request', count);
    await watcher.reload();
    await mapReady(watcher);
    assert.equal((await feed).status(), 200);
    watcher.off('request', count);
    // The first reads leave from the page's entry script and the room page takes them: each is sent once.
    for (const read of ['info', 'history?limit=1', 'markers/feed'])
      assert.equal(reads.filter((r) => r === `/api/rooms/${roomId}/${read}`).length, 1, `${read} read once: ${reads}`);
    await watcher.getByRole('tab', { name: 'Markers' }).click();
    await watcher.getByTestId('marker-list').getByText('New marker').waitFor({ timeout: 10_000 });
    // The marker the photo test made, where Ann clicked: the same view and size in both browsers.
    const centre = await mapCentre(watcher);
    await watcher.mouse.click(centre.x - 80, centre.y + 40);
    await watcher.getByTestId('marker-title').filter({ hasText: 'New marker' }).waitFor();
    await watcher.getByTestId('marker-photo').waitFor({ timeout: 10_000 });
    await watcher.getByRole('button', { name: 'Close' }).click();
  });

  test('a polygon layer and a GeoTIFF are uploaded and drawn; the raster is restyled', async () => {
    const polygons = path.join(rasters.dir, 'districts.geojson');
    // Two districts of 0.015° from 7.43 and 7.45 east; a real field (2.5 makes it one) whose value 2
    // is whole: a number, not an integer.
    const districts = [0, 1].map((i) =>
      squareFeature(7.4375 + i * 0.02, 46.9475, 0.0075, { name: `district ${i}`, area: i === 0 ? 2.5 : 2 }),
    );
    writeFileSync(polygons, JSON.stringify({ type: 'FeatureCollection', features: districts }));
    await ann.getByRole('tab', { name: 'Layers' }).click();
    await ann.getByText('Upload a layer').click();
    const tile = ann.waitForResponse(
      (r) => /\/api\/layers\/[^/]+\/tiles\/\d+\/\d+\/\d+\.mvt/.test(r.url()) && r.status() === 200,
    );
    await ann.getByLabel('File').setInputFiles(polygons);
    await ann.getByTestId('layer').filter({ hasText: 'districts' }).waitFor({ timeout: 30_000 });
    await tile;
    await watcher.getByRole('tab', { name: 'Layers' }).click();
    await watcher.getByTestId('layer').filter({ hasText: 'districts' }).waitFor({ timeout: 5000 });

    // A KML file is taken like the others: its placemark becomes a line layer where the KML puts it.
    const kml = path.join(rasters.dir, 'trail.kml');
    writeFileSync(
      kml,
      `<?xml version="1.0" encoding="UTF-8"?><kml xmlns="http://www.opengis.net/kml/2.2"><Document>
<Placemark><name>Aare walk</name><LineString><coordinates>7.44,46.95,0 7.46,46.96,0</coordinates></LineString></Placemark>
</Document></kml>`,
    );
    await ann.getByLabel('File').setInputFiles(kml);
    await ann.getByTestId('layer').filter({ hasText: 'trail' }).waitFor({ timeout: 30_000 });
    const kmlLayer = (
      (await api('GET', `/api/layers/${roomId}`)).body.layers as { name: string; bbox: number[] }[]
    ).find((l) => l.name === 'trail')!;
    assert.deepEqual(
      kmlLayer.bbox.map((v) => Math.round(v * 100) / 100),
      [7.44, 46.95, 7.46, 46.96],
    );

    const png = ann.waitForResponse(
      (r) => /raster-layers\/[^/]+\/tiles\/\d+\/\d+\/\d+\.png/.test(r.url()) && r.status() === 200,
    );
    await ann.getByLabel('File').setInputFiles(rasters.file('grid-2056.tif'));
    const raster = ann.getByTestId('raster').filter({ hasText: 'grid-2056' });
    await raster.waitFor({ timeout: 60_000 });
    await png;

    // The polygons are drawn in their colour (#d03030 over the map's background).
    const redPixels = () => mapPixels(ann, (r, g, b) => r > 180 && g < 150 && b < 150 && r - g > 60);
    const red = await until(redPixels, (n) => n > 500);
    assert.ok(red > 500, `the layer's polygons are drawn (${red} red pixels)`);

    await raster.locator('summary', { hasText: 'Display' }).click();
    await raster.getByTitle('magma').click();
    const restyled = ann.waitForResponse((r) => /tiles\/\d+\/\d+\/\d+\.png\?v=/.test(r.url()) && r.status() === 200);
    await raster.getByRole('button', { name: 'Apply display' }).click();
    await restyled;
    const rasterAnswer = await api('GET', `/api/rooms/${roomId}/raster-layers`);
    assert.equal((rasterAnswer.body.rasterLayers as { display: { colormap: string } }[])[0]!.display.colormap, 'magma');
    // For the screenshot a person looks at: a few markers in their colours, the panel closed.
    for (const [i, color] of ['#e53e3e', '#38a169', '#d69e2e'].entries()) {
      await api('POST', `/api/rooms/${roomId}/markers`, {
        latitude: 46.955 - i * 0.004,
        longitude: 7.452 + i * 0.006,
        title: `Site ${i + 1}`,
        color,
      });
    }
    await raster.locator('summary', { hasText: 'Display' }).click();
    await ann.getByRole('tab', { name: 'Markers' }).click();
    await ann.getByTestId('marker-list').getByText('Site 3').waitFor();
    await ann.locator('.marker-label', { hasText: 'Site 3' }).waitFor();
    await ann.screenshot({ path: path.join(TEST_OUTPUT, 'room.png') });
  });

  test('a clicked raster shows its band values; a clicked layer feature shows its attributes, highlighted; the attribute table sorts, filters and shows a row; an LV95 file is placed after the page asks for its CRS', async () => {
    await api('PATCH', `/api/rooms/${roomId}/camera-settings`, { defaultView: { ...BERN, zoom: 13 } });
    await ann.reload();
    await mapSettled(ann);
    const { x, y } = await mapCentre(ann);
    // A click on the raster where no feature is: its band value from the point query, as GDAL reads it.
    const at: [number, number] = [7.47, 46.93];
    const pixels = 512 * 2 ** 13; // MapLibre: the world is 512 px wide at zoom 0
    const mercator = (lat: number) => Math.log(Math.tan(Math.PI / 4 + (lat * Math.PI) / 360));
    await ann.mouse.click(
      x + ((at[0] - BERN.lng) / 360) * pixels,
      y + ((mercator(BERN.lat) - mercator(at[1])) / (2 * Math.PI)) * pixels,
    );
    const identified = ann.getByLabel('Raster values');
    await identified.getByText('grid-2056').waitFor({ timeout: 10_000 });
    // The popup names the point clicked (latitude, longitude), where GDAL is asked too.
    const [lat, lon] = (await identified.locator('p').first().textContent())!.split(', ').map(Number);
    assert.ok(
      Math.abs(lon! - at[0]) < 0.001 && Math.abs(lat! - at[1]) < 0.001,
      `clicked near the point (${lat}, ${lon})`,
    );
    const [expected] = probe(rasters.file('grid-2056.tif'), [[lon!, lat!]]);
    assert.ok(expected!.inside && expected!.values[0] !== null, 'the point is inside the raster');
    assert.equal(await identified.locator('dt').first().textContent(), 'Band 1');
    assert.equal(
      await identified.locator('dd').first().textContent(),
      String(Number(expected!.values[0]!.toPrecision(6))),
    );
    await ann.locator('.maplibregl-popup-close-button').click();
    // District 1 spans longitudes 7.45 to 7.465: about 59 px east of the centre (7.4474) at zoom 13.
    // The side panel scrolled down first (a style form open): the attributes come into view.
    await ann.getByRole('tab', { name: 'Layers' }).click();
    const districtsStyle = ann
      .getByTestId('layer')
      .filter({ hasText: 'districts' })
      .getByText('Style', { exact: true });
    await districtsStyle.click();
    assert.ok((await scrollSideToEnd(ann)) > 0, 'the side panel scrolled down');
    await ann.mouse.click(x + 59, y);
    const attributes = ann.getByRole('region', { name: 'Feature attributes' });
    await attributes.getByRole('row', { name: /name\s+district 1\s+text/ }).waitFor({ timeout: 10_000 });
    const below = await belowSideTop(ann, attributes);
    assert.ok(below >= 0, `the attributes are in view (${below} px below the side panel's top)`);
    await districtsStyle.click();
    await attributes.getByRole('row', { name: /area\s+2\s+number/ }).waitFor();
    // The feature is outlined in the highlight's orange (#dd6b20).
    const orangePixels = () => mapPixels(ann, (r, g, b) => r > 190 && g > 80 && g < 140 && b < 80);
    const orange = await until(orangePixels, (n) => n > 200);
    assert.ok(orange > 200, `the clicked feature is highlighted (${orange} orange pixels)`);
    await ann.getByRole('button', { name: 'Close' }).first().click();

    // Three sheds in one thinning cell of zoom 14 (src/geo/thinning.ts), each too small there to
    // count as large: a zoom-14 tile keeps only one of them, so at zoom 16 the map must draw
    // zoom-16 tiles for a click on each to find it (it once drew zoom-14 tiles enlarged).
    const cells = 2 ** 19; // the thinning's cells per world side at zoom 14: 2^(14 + 5)
    const mercatorY = (lat: number) => (1 - mercator(lat) / Math.PI) / 2;
    const latOf = (y: number) => (Math.atan(Math.sinh(Math.PI * (1 - 2 * y))) * 180) / Math.PI;
    const column = Math.floor(((7.41 + 180) / 360) * cells);
    const row = Math.floor(mercatorY(46.96) * cells);
    const west = (column / cells) * 360 - 180;
    const cellWidth = 360 / cells;
    const middleLat = latOf((row + 0.5) / cells);
    const sheds = [0.1, 0.4, 0.7].map((at, i) => {
      const x = west + at * cellWidth;
      const [s, n] = [middleLat - 0.00005, middleLat + 0.00005];
      return {
        type: 'Feature',
        properties: { name: `shed ${i}` },
        geometry: {
          type: 'Polygon',
          coordinates: [
            [
              [x, s],
              [x + 0.00015, s],
              [x + 0.00015, n],
              [x, n],
              [x, s],
            ],
          ],
        },
      };
    });
    const shedLayer = await api('POST', `/api/rooms/${roomId}/layers`, {
      name: 'sheds',
      geojson: { type: 'FeatureCollection', features: sheds },
    });
    assert.equal(shedLayer.status, 200, JSON.stringify(shedLayer.body));
    const shedView = { lng: west + cellWidth / 2, lat: middleLat, zoom: 16 };
    await api('PATCH', `/api/rooms/${roomId}/camera-settings`, { defaultView: shedView });
    const shedLayerId = (shedLayer.body.layer as { id: string }).id;
    const shedTile = ann.waitForResponse(
      (r) => r.url().includes(`/layers/${shedLayerId}/tiles/16/`) && r.status() === 200,
    );
    await ann.reload();
    await mapSettled(ann);
    await shedTile;
    const centre = await mapCentre(ann);
    const perDegree = (512 * 2 ** 16) / 360;
    for (const [i, at] of [0.1, 0.4, 0.7].entries()) {
      const lng = west + at * cellWidth + 0.000075;
      await ann.mouse.click(centre.x + (lng - shedView.lng) * perDegree, centre.y);
      await attributes.getByRole('row', { name: new RegExp(`name\\s+shed ${i}\\s+text`) }).waitFor({ timeout: 10_000 });
    }
    await ann.getByRole('button', { name: 'Close' }).first().click();
    await api('PATCH', `/api/rooms/${roomId}/camera-settings`, { defaultView: { ...BERN, zoom: 13 } });
    await ann.reload();
    await mapReady(ann);

    // The attribute table: sorted by a column both ways, filtered, a row click shows its feature.
    await ann.getByRole('tab', { name: 'Layers' }).click();
    await ann.getByTestId('layer').filter({ hasText: 'districts' }).getByRole('button', { name: 'Table' }).click();
    const table = ann.getByRole('region', { name: 'Attribute table of districts' });
    const firstName = () => table.locator('tbody tr').first().locator('td').nth(1);
    // The header shows the new order before the new page arrives: wait for the page itself.
    const firstNameIs = async (name: string) => {
      await firstName()
        .filter({ hasText: new RegExp(`^${name}$`) })
        .waitFor({ timeout: 10_000 });
      assert.equal(await firstName().textContent(), name);
    };
    await table.getByRole('button', { name: 'name', exact: true }).click();
    await table.getByRole('columnheader', { name: /name ▲/ }).waitFor();
    await firstNameIs('district 0');
    await table.getByRole('button', { name: /^name( [▲▼])?$/ }).click();
    await table.getByRole('columnheader', { name: /name ▼/ }).waitFor();
    await firstNameIs('district 1');
    // The filter applies as it is typed, without Enter.
    await table.getByLabel('Filter features').pressSequentially('DISTRICT 0');
    await table.locator('tbody tr').nth(1).waitFor({ state: 'detached' });
    await firstNameIs('district 0');
    // The row's number shows it (its other cells are an editor's to edit).
    await table.locator('tbody tr').first().locator('td').first().click();
    await attributes.getByRole('row', { name: /name\s+district 0\s+text/ }).waitFor();
    await table.getByRole('button', { name: 'Close the table' }).click();
    await ann.getByRole('button', { name: 'Close' }).first().click();

    const lv95 = path.join(rasters.dir, 'parcels-lv95.geojson');
    writeFileSync(
      lv95,
      JSON.stringify({
        type: 'FeatureCollection',
        features: [
          {
            type: 'Feature',
            properties: { name: 'LV95 parcel' },
            geometry: {
              type: 'Polygon',
              coordinates: [
                [
                  [2600000, 1199700],
                  [2600300, 1199700],
                  [2600300, 1200000],
                  [2600000, 1200000],
                  [2600000, 1199700],
                ],
              ],
            },
          },
        ],
      }),
    );
    await ann.getByRole('tab', { name: 'Layers' }).click();
    await ann.getByText('Upload a layer').click();
    await ann.getByLabel('File').setInputFiles(lv95);
    const asked = ann.getByRole('form', { name: 'Coordinate reference system' });
    await asked
      .getByRole('alert')
      .filter({ hasText: /coordinate reference system of parcels-lv95\.geojson is unknown/ })
      .waitFor({ timeout: 15_000 });
    await asked.getByLabel(/EPSG code of parcels-lv95\.geojson/).fill('2056');
    await asked.getByRole('button', { name: 'Upload with this CRS' }).click();
    await ann.getByTestId('layer').filter({ hasText: 'parcels-lv95' }).waitFor({ timeout: 30_000 });
    const placed = (await api('GET', `/api/layers/${roomId}`)).body.layers as unknown as {
      name: string;
      sourceCrs: string;
      bbox: number[];
    }[];
    const layer = placed.find((l) => l.name === 'parcels-lv95')!;
    assert.equal(layer.sourceCrs, 'EPSG:2056');
    assert.ok(
      Math.abs(layer.bbox[0]! - 7.4386) < 0.001 && Math.abs(layer.bbox[1]! - 46.9511) < 0.003,
      `in Bern: ${layer.bbox}`,
    );
  });

  test('a polygon is drawn, and commented on with a reply', async () => {
    await ann.getByRole('tab', { name: 'Draw' }).click();
    await ann.getByRole('button', { name: 'Polygon' }).click();
    const { x, y } = await mapCentre(ann);
    for (const [dx, dy] of [
      [-150, -100],
      [-50, -100],
      [-50, -20],
      [-150, -20],
      [-150, -100],
    ]) {
      await ann.mouse.click(x + dx!, y + dy!);
    }
    await ann.getByRole('heading', { name: 'Drawings (1)' }).waitFor({ timeout: 5000 });
    const drawings = (await api('GET', `/api/rooms/${roomId}/drawings`)).body.drawings as {
      geometry: { type: string; coordinates: number[][][] };
    }[];
    assert.equal(drawings[0]!.geometry.type, 'Polygon');
    assert.equal(drawings[0]!.geometry.coordinates[0]!.length, 5, 'four corners, closed');

    await ann.getByRole('textbox', { name: 'Comment' }).fill('Is this the survey area?');
    await ann.getByRole('button', { name: 'Post comment' }).click();
    const comment = ann.getByTestId('comment').filter({ hasText: 'Is this the survey area?' });
    await comment.waitFor();
    await comment.getByPlaceholder('Reply…').fill('Yes, north of the river');
    await comment.getByRole('button', { name: 'Reply' }).click();
    await comment.getByTestId('reply').filter({ hasText: 'Yes, north of the river' }).waitFor();
    // Comments and replies name their author, not an id.
    assert.equal(await comment.locator(':scope > .muted .author').textContent(), 'Ann');
    assert.equal(await comment.getByTestId('reply').locator('.author').textContent(), 'Ann');
    await comment.getByRole('button', { name: 'Resolve' }).click();
    await comment.getByText('resolved', { exact: false }).waitFor();
  });

  test('a slide is made and presented, and the published deck opens for an anonymous visitor', async () => {
    await ann.getByRole('tab', { name: 'Slides' }).click();
    await ann.getByLabel('Title').fill('The old town');
    await ann.getByRole('button', { name: 'Add slide' }).click();
    await ann.getByTestId('slide-list').getByText('The old town').waitFor();
    await ann.getByRole('link', { name: 'Present' }).click();
    await ann.getByTestId('slide-title').filter({ hasText: 'The old town' }).waitFor();
    await ann.getByRole('button', { name: 'End' }).click();
    await ann.getByRole('tab', { name: 'Slides' }).click();
    await ann.getByLabel('Anyone with the link can view the presentation').check();
    await ann.getByText('Public link').waitFor();

    const visitor = await page({ width: 390, height: 844 });
    const deckReads: string[] = [];
    const tileReads = new Map<string, number>();
    let workers = 0;
    visitor.on('worker', () => workers++);
    visitor.on('request', (request) => {
      const { pathname } = new URL(request.url());
      if (pathname === `/api/rooms/${roomId}/presentation`) deckReads.push(request.url());
      if (/^\/api\/layers\/[^/]+\/tiles\//.test(pathname)) tileReads.set(pathname, (tileReads.get(pathname) ?? 0) + 1);
    });
    await countPreviewPixels(visitor);
    await visitor.goto(`${service.url}/p/${roomId}`);
    await visitor.getByTestId('slide-title').filter({ hasText: 'The old town' }).waitFor({ timeout: 30_000 });
    await visitor.locator('[data-testid="map"][data-ready="true"]').waitFor();
    const marks = await visitor.evaluate(() =>
      Object.fromEntries(performance.getEntriesByType('mark').map((m) => [m.name, m.startTime])),
    );
    const previewDrawn = await visitor.evaluate(() => (window as unknown as { previewDrawn?: number }).previewDrawn);
    assert.ok((previewDrawn ?? 0) > 100, `the preview drew the slide's content (${previewDrawn} pixels)`);
    assert.ok(
      marks['maproom:slide-shown']! < marks['maproom:slide-map-drawn']!,
      `the slide was shown by its preview (${marks['maproom:slide-shown']} ms) before the map drew it (${marks['maproom:slide-map-drawn']} ms)`,
    );
    assert.equal(await visitor.locator('.slide-preview > *').count(), 0, 'the preview went as the map drew the slide');
    assert.equal(deckReads.length, 1, 'the deck is read once (by the entry script, taken by the page)');
    // The first slide's layer tiles: each asked for by the entry script as the deck came, then by
    // MapLibre's worker (from the browser's cache): none that MapLibre did not want, none missed.
    assert.ok(tileReads.size > 0, 'the slide shows the uploaded layer');
    for (const [tile, reads] of tileReads) assert.equal(reads, 2, `${tile}: asked for early and by the map`);
    // MapLibre's worker is the one the entry script started: no second one is made (MapLibre
    // makes one worker outside Safari).
    assert.equal(workers, 1, "the early worker is MapLibre's own");
    // The room itself stays private to the same visitor, who is offered the deck.
    await visitor.goto(`${service.url}/r/${roomId}`);
    await visitor.getByRole('link', { name: 'view the presentation' }).waitFor();
  });

  test('the owner creates an API token (its secret shown once) and invites a member', async () => {
    await ann.getByRole('tab', { name: 'Settings' }).click();
    await ann.getByRole('form', { name: 'New token' }).getByLabel('Name').fill('nightly import');
    await ann.getByRole('form', { name: 'New token' }).getByLabel('write').check();
    await ann.getByRole('button', { name: 'Create token' }).click();
    const secret = (await ann.getByTestId('token-secret').textContent())!;
    assert.match(secret, /^mrt_/);
    const withToken = await fetch(`${service.url}/api/rooms/${roomId}`, {
      headers: { Authorization: `Bearer ${secret}` },
    });
    assert.equal(withToken.status, 200, 'the token works for scripts');
    await ann.getByTestId('tokens').getByText('nightly import').waitFor();

    await ann.getByLabel('E-mail to invite').fill('bob@example.com');
    await ann.getByLabel('Role').selectOption('viewer');
    await ann.getByRole('button', { name: 'Invite' }).click();
    await ann.getByTestId('invitations').getByText('bob@example.com').waitFor();
    assert.match(service.output(), /bob@example\.com/, 'the invitation was e-mailed (to the log, without SMTP)');
  });

  test('after a lost connection the page catches up from the version it saw', async () => {
    // The watcher's connection drops (the service restarts) and it cannot reconnect (offline)
    // while a marker is added; back online, it asks for the changes since its version.
    await watcher.context().setOffline(true);
    await service.restart();
    await watcher.getByText('Offline: reconnecting…').waitFor({ timeout: 10_000 });
    await api('POST', `/api/rooms/${roomId}/markers`, {
      latitude: BERN.lat,
      longitude: BERN.lng,
      title: 'Added while away',
    });
    await watcher.context().setOffline(false);
    await watcher.getByRole('tab', { name: 'Markers' }).click();
    await watcher.getByTestId('marker-list').getByText('Added while away').waitFor({ timeout: 20_000 });
    assert.deepEqual(dialogs, []);
    assert.ok(readFileSync(path.join(TEST_OUTPUT, 'room.png')).length > 0);
  });

  test('logging out ends the session at the service, not only in the page', async () => {
    const watcherToken = await watcher.evaluate(() => JSON.parse(localStorage.getItem('maproom.session')!).token);
    await watcher.goto(service.url);
    const loggedOut = watcher.waitForResponse((r) => r.url().endsWith('/api/auth/logout'));
    await watcher.getByRole('button', { name: 'Log out' }).click();
    assert.equal((await loggedOut).status(), 204);
    await watcher.getByRole('button', { name: 'Log in' }).last().waitFor();
    assert.equal(await watcher.evaluate(() => localStorage.getItem('maproom.session')), null);
    const me = (bearer: string) =>
      fetch(`${service.url}/api/auth/me`, { headers: { Authorization: `Bearer ${bearer}` } }).then((r) => r.status);
    assert.equal(await me(watcherToken), 401, "the watcher's token is refused");
    assert.equal(await me(token), 200, "Ann's other session stays");
    assert.deepEqual(dialogs, []);
  });
});
