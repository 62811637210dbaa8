import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { TEST_DB } from '../helpers.js';
import { launchBrowser, mapSettled, startService, TEST_OUTPUT, type RunningService } from '../support/browser.js';

// "Print / export" in a real browser: a room with a marker and a coloured layer exported as a
// PNG (its pixels read back) and as a PDF (its page size, title and pages read back), the
// published deck as a PDF of one page per slide, and the dialog on a desktop and a phone.
// On SQLite only, like test/web/browser.test.ts.
const skip = TEST_DB !== 'sqlite' && 'the browser tests run once, with the SQLite suite';

const LAYER = '00aa00';
/** A slide's title in Arabic too: Helvetica has no Arabic letters, so the PDF has it as a picture of its words. */
const HUT = 'Hut كوخ';
const MARKER = '#ff00ff';
/** A4 in points (297 x 210 mm at 72 / 25.4 pt a mm), landscape, as jsPDF writes it rounded to 2 decimals. */
const A4_LANDSCAPE = '0 0 841.89 595.28';

const square = (x: number, y: number, size: number) => ({
  type: 'Feature',
  properties: {},
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

/** The pixels of a picture near a colour: how many, and their centre. */
async function near(png: Buffer, hex: string) {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const [r, g, b] = [1, 3, 5].map((i) =>
    Number.parseInt(
      hex
        .replace('#', '')
        .padStart(7, '#')
        .slice(i, i + 2),
      16,
    ),
  );
  let count = 0;
  let sx = 0;
  let sy = 0;
  for (let i = 0; i < data.length; i += 3) {
    if (Math.abs(data[i]! - r!) + Math.abs(data[i + 1]! - g!) + Math.abs(data[i + 2]! - b!) < 30) {
      const p = i / 3;
      count++;
      sx += p % info.width;
      sy += Math.floor(p / info.width);
    }
  }
  return { count, x: sx / Math.max(1, count), y: sy / Math.max(1, count), width: info.width, height: info.height };
}

/** A PDF's pages, page sizes and shown texts (jsPDF writes them uncompressed: `compress: false`). */
function readPdf(bytes: Buffer) {
  const text = bytes.toString('latin1');
  return {
    header: text.slice(0, 5),
    pages: [...text.matchAll(/\/Type \/Page\b(?!s)/g)].length,
    mediaBoxes: [...text.matchAll(/\/MediaBox \[([^\]]+)\]/g)].map((m) =>
      m[1]!
        .trim()
        .split(/\s+/)
        .map((n) => Number(n).toFixed(2).replace(/\.00$/, ''))
        .join(' '),
    ),
    texts: [...text.matchAll(/\(((?:[^()\\]|\\.)*)\) Tj/g)].map((m) => m[1]!),
    jpegs: [...text.matchAll(/\/Filter \/DCTDecode/g)].length,
    /** Pictures drawn on the pages (a PNG's transparency is an image of its own, not drawn). */
    images: [...text.matchAll(/\/I\d+ Do\b/g)].length,
  };
}

describe('print / export a picture of the map', { skip }, () => {
  let service: RunningService;
  let browser: Browser;
  const roomId = `prt${Date.now().toString(36).slice(-7)}`;
  let token = '';
  let user: { id: string };
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
    const email = `printer-${Date.now()}@example.com`;
    const response = await fetch(`${service.url}/api/auth/signup`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email, password: 'a-long-password', name: 'Printer' }),
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

  const open = async (url: string, viewport = { width: 1100, height: 700 }) => {
    const context = await browser.newContext({ viewport, acceptDownloads: true });
    await context.addInitScript(
      (session) => localStorage.setItem('maproom.session', session),
      JSON.stringify({ token, user }),
    );
    const page = await context.newPage();
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${service.url}${url}`);
    return page;
  };

  const openRoom = async (viewport?: { width: number; height: number }) => {
    const page = await open(`/r/${roomId}`, viewport);
    await mapSettled(page);
    return page;
  };

  /** Clicks Export and answers the downloaded file's name and bytes; an error the dialog shows fails the test with its words. */
  const exportFile = async (page: Page) => {
    const dialog = page.getByTestId('print-dialog');
    const downloaded = page.waitForEvent('download', { timeout: 120_000 });
    const failed = dialog.getByTestId('print-error').waitFor({ timeout: 120_000 });
    downloaded.catch(() => undefined);
    failed.catch(() => undefined);
    await dialog.getByRole('button', { name: 'Export' }).click();
    const download = await Promise.race([downloaded, failed.then(() => null)]).catch(async (error: Error) => {
      const progress = await dialog
        .getByTestId('print-progress')
        .textContent({ timeout: 1000 })
        .catch(() => null);
      throw new Error(`${error.message} (the dialog says: ${progress})`);
    });
    if (!download) assert.fail(`the export failed: ${await dialog.getByTestId('print-error').textContent()}`);
    const file = await download.path();
    await dialog.getByTestId('print-saved').waitFor({ timeout: 120_000 });
    return { name: download.suggestedFilename(), bytes: await readFile(file) };
  };

  let markerId = '';
  let layerId = '';

  before(async () => {
    service = await startService();
    browser = await launchBrowser();
    await signUp();
    const created = await api('POST', `/api/rooms/${roomId}`, {
      name: 'Print Alps',
      defaultView: { lng: 7.45, lat: 46.955, zoom: 13 },
    });
    assert.equal(created.status, 200);
    // A layer filling the west half of the view, opaque, and a marker in the east.
    const layer = await api('POST', `/api/rooms/${roomId}/layers`, {
      name: 'meadows',
      geojson: { type: 'FeatureCollection', features: [square(7.38, 46.9, 0.065)] },
      color: LAYER,
    });
    assert.equal(layer.status, 200, JSON.stringify(layer.body));
    layerId = layer.body.layer.id;
    await api('PATCH', `/api/rooms/${roomId}/layers/${layerId}`, { style: { fillOpacity: 1 } });
    const marker = await api('POST', `/api/rooms/${roomId}/markers`, {
      latitude: 46.955,
      longitude: 7.465,
      title: 'Hut',
      color: MARKER,
    });
    assert.equal(marker.status, 201, JSON.stringify(marker.body));
    markerId = marker.body.marker.id;
    const view = { lat: 46.955, lng: 7.45, zoom: 13, width: 1100, height: 700 };
    for (const [title, body] of [
      ['Meadows', { layerIds: [layerId] }],
      [HUT, { markerIds: [markerId] }],
    ] as const) {
      const slide = await api('POST', `/api/rooms/${roomId}/presentation/slides`, { title, view, ...body });
      assert.equal(slide.status, 201, JSON.stringify(slide.body));
    }
    assert.equal((await api('PATCH', `/api/rooms/${roomId}/presentation/public`, { isPublic: true })).status, 200);
  });
  after(async () => {
    await browser?.close();
    await service?.stop();
  });

  test("a PNG at the screen's size has the layer's colour and the marker where the map shows them", async () => {
    const page = await openRoom();
    const onScreen = await near(await page.getByTestId('map').screenshot(), MARKER);
    assert.ok(onScreen.count > 20, `the marker is on the map (${onScreen.count} px)`);
    await page.getByRole('button', { name: 'Print / export' }).click();
    const dialog = page.getByTestId('print-dialog');
    await dialog.waitFor();
    assert.equal(await dialog.getByLabel('Title').inputValue(), 'Print Alps', "the room's name is the title");
    await page.screenshot({ path: path.join(TEST_OUTPUT, 'print-dialog-desktop.png') });
    const { name, bytes } = await exportFile(page);
    await sharp(bytes).toFile(path.join(TEST_OUTPUT, 'print-room.png'));
    assert.match(name, /^Print Alps \d{4}-\d{2}-\d{2}\.png$/);
    const map = await page.getByTestId('map').boundingBox();
    const layer = await near(bytes, LAYER);
    const marker = await near(bytes, MARKER);
    // The page is the map's size, with a margin (8 mm at 96 dpi: 30 px) each side.
    assert.ok(Math.abs(layer.width - (map!.width + 2 * 30.24)) < 2, `width ${layer.width} for a map ${map!.width}`);
    assert.ok(layer.count > (map!.width * map!.height) / 5, `the layer's colour fills its half (${layer.count} px)`);
    assert.ok(layer.x < layer.width / 2, 'the layer is west');
    assert.ok(marker.count > 20, `the marker is drawn (${marker.count} px)`);
    // Where the map shows it: the map's top-left is at the margin, under the title (8 + 10 mm).
    const [dx, dy] = [marker.x - 30.24 - onScreen.x, marker.y - 68.03 - onScreen.y];
    assert.ok(Math.hypot(dx, dy) < 4, `the marker is where the screen shows it (off by ${dx}, ${dy})`);

    // Twice the size: the same picture at 2x.
    await dialog.getByLabel('Size', { exact: true }).selectOption('2x');
    const double = await near((await exportFile(page)).bytes, LAYER);
    assert.ok(Math.abs(double.width - 2 * layer.width) < 4, `2x is ${double.width} px wide`);
    assert.ok(double.count > 3.5 * layer.count);
    // A3 at 300 dpi is more than the browser draws at once: the dialog says so.
    await dialog.getByLabel('Size', { exact: true }).selectOption('paper');
    await dialog.getByLabel('Paper', { exact: true }).selectOption('a3');
    await dialog.getByTestId('print-clamped').waitFor();
    await page.close();
  });

  test('a PDF of the room is one A4 landscape page with the title, a JPEG map and the legend', async () => {
    const page = await openRoom();
    // The keyboard's way in: `p`, as the shortcuts list says.
    await page.keyboard.press('p');
    const dialog = page.getByTestId('print-dialog');
    await dialog.getByLabel('PDF document').check();
    await dialog.getByLabel('Paper', { exact: true }).selectOption('a4');
    await dialog.getByLabel('Orientation', { exact: true }).selectOption('landscape');
    await dialog.getByLabel('Title').fill('Alps on paper');
    const { name, bytes } = await exportFile(page);
    await writeFile(path.join(TEST_OUTPUT, 'print-room.pdf'), bytes);
    assert.match(name, /^Alps on paper \d{4}-\d{2}-\d{2}\.pdf$/);
    const pdf = readPdf(bytes);
    assert.equal(pdf.header, '%PDF-');
    assert.equal(pdf.pages, 1);
    assert.ok(pdf.mediaBoxes.includes(A4_LANDSCAPE), `page size ${pdf.mediaBoxes}`);
    assert.ok(pdf.texts.includes('Alps on paper'), `the title among ${pdf.texts}`);
    assert.ok(pdf.texts.includes('meadows'), 'the legend names the layer');
    assert.ok(
      pdf.texts.some((text) => /^\d+ k?m$/.test(text)),
      'a scale bar',
    );
    assert.equal(pdf.jpegs, 1, 'the map is one JPEG');
    assert.equal(pdf.images, 1, 'no other picture: every word is Latin-1, written as text');
    // The room's slides, one page each, as the deck shows them.
    await dialog.getByLabel('One page per slide: 2 pages.').check();
    const slides = readPdf((await exportFile(page)).bytes);
    assert.equal(slides.pages, 2);
    assert.ok(slides.texts.includes('Meadows'), `the first slide's title in ${slides.texts}`);
    assert.equal(slides.images, 3, "two maps and the second slide's title as a picture");
    await page.close();
  });

  test('the published deck prints one PDF page per slide, each with its title', async () => {
    const page = await open(`/p/${roomId}`);
    await page.locator('[data-testid="map"][data-ready="true"]').waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Print / export' }).click();
    const dialog = page.getByTestId('print-dialog');
    await dialog.getByLabel('PDF document').check();
    assert.ok(await dialog.getByLabel('One page per slide: 2 pages.').isChecked(), 'the deck prints each slide');
    const { bytes } = await exportFile(page);
    await writeFile(path.join(TEST_OUTPUT, 'print-deck.pdf'), bytes);
    const pdf = readPdf(bytes);
    assert.equal(pdf.pages, 2);
    assert.ok(pdf.texts.includes('Meadows'), `the first slide's title among ${pdf.texts}`);
    assert.ok(!pdf.texts.some((text) => text.includes('Hut')), 'the Arabic title is not written in Helvetica');
    assert.equal(pdf.jpegs, 2);
    assert.equal(pdf.images, 3, "two maps and the second slide's title as a picture");
    await page.close();
  });

  test('the dialog fits a phone', async () => {
    const page = await openRoom({ width: 390, height: 844 });
    const button = (await page.getByRole('button', { name: 'Print / export' }).boundingBox())!;
    assert.ok(button.width >= 44 && button.height >= 44, `the button is ${button.width}x${button.height}`);
    await page.getByRole('button', { name: 'Print / export' }).click();
    const dialog = page.getByTestId('print-dialog');
    await dialog.getByLabel('PDF document').check();
    const box = (await dialog.boundingBox())!;
    assert.ok(box.x >= 0 && box.y >= 0 && box.x + box.width <= 390 && box.y + box.height <= 844, JSON.stringify(box));
    await page.screenshot({ path: path.join(TEST_OUTPUT, 'print-dialog-phone.png') });
    await page.close();
    assert.deepEqual(errors, []);
  });
});
