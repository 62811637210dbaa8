/**
 * Embedding in Debian's Chromium: a page on another loopback origin embeds a public room and a
 * private room (with an embed key) through the embed script, drives them, and sees a live
 * change; a site not on the room's list cannot frame it; a revoked key stops the embed; a
 * published deck shows its first slide on any site. The owner's Share dialog shows the code and
 * a live preview. Once, with the SQLite suite.
 * Contract: docs/decisions.md ("Embedding", "The embed page and the Share dialog").
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Frame, Page } from 'playwright-core';
import { TEST_DB, uniqueRoomId } from '../helpers.js';
import { launchBrowser, type RunningService, startService, TEST_OUTPUT } from '../support/browser.js';

const skip = TEST_DB !== 'sqlite' && 'the browser tests run once, with the SQLite suite';

/** Another site: a page that embeds the room its address names through the service's embed script. */
async function hostSite(service: string): Promise<{ server: Server; origin: string }> {
  const server = createServer((request, response) => {
    const query = new URL(request.url!, 'http://host').searchParams;
    const options = JSON.parse(query.get('options') ?? '{}');
    response.setHeader('Content-Type', 'text/html; charset=utf-8');
    response.end(`<!doctype html><html><head><title>Host</title></head><body>
<h1>A site that embeds a map</h1>
<div id="map" style="width: 640px; height: 400px"></div>
<script src="${service}/embed.js"></script>
<script>
  window.events = [];
  window.map = Maproom.embed(document.getElementById('map'), ${JSON.stringify(options)});
  for (const type of ['ready', 'click', 'view']) window.map.on(type, (event) => window.events.push(event));
</script></body></html>`);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('embedding in another site', { skip }, () => {
  let service: RunningService;
  let browser: Browser;
  let site: { server: Server; origin: string };
  let otherSite: { server: Server; origin: string };
  let owner: string;
  const pageErrors: string[] = [];

  const call = async (method: string, url: string, body?: unknown) => {
    const answer = await fetch(`${service.url}${url}`, {
      method,
      headers: { authorization: `Bearer ${owner}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    assert.ok(answer.ok, `${method} ${url}: ${answer.status} ${await answer.clone().text()}`);
    return answer.status === 204 ? null : answer.json();
  };
  const newRoom = async (isPublic: boolean) => {
    const roomId = uniqueRoomId();
    await call('POST', `/api/rooms/${roomId}`, { name: isPublic ? 'Public trails' : 'Private sites', isPublic });
    await call('POST', `/api/rooms/${roomId}/markers`, { latitude: 46.95, longitude: 7.45, title: 'Bridge' });
    return roomId;
  };
  const newPage = async () => {
    const page = await (await browser.newContext({ viewport: { width: 900, height: 700 } })).newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    return page;
  };
  const hostPage = async (on: { origin: string }, options: object) => {
    const page = await newPage();
    await page.goto(`${on.origin}/?options=${encodeURIComponent(JSON.stringify(options))}`);
    return page;
  };
  const events = (page: Page) => page.evaluate(() => (window as unknown as { events: { type: string }[] }).events);
  const waitForEvent = (page: Page, type: string, count = 1) =>
    page.waitForFunction(
      ([type, count]) =>
        (window as unknown as { events: { type: string }[] }).events.filter((e) => e.type === type).length >= count,
      [type, count] as const,
      { timeout: 30_000 },
    );
  const embedFrame = async (page: Page): Promise<Frame> => {
    const handle = await page.waitForSelector('iframe');
    return (await handle.contentFrame())!;
  };

  before(async () => {
    service = await startService();
    browser = await launchBrowser();
    const email = `embed-${Date.now()}@example.com`;
    const signup = await fetch(`${service.url}/api/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: 'correct horse battery', name: 'Owner' }),
    });
    owner = ((await signup.json()) as { token: string }).token;
    site = await hostSite(service.url);
    otherSite = await hostSite(service.url);
  });
  after(async () => {
    await browser?.close();
    await service?.stop();
    site?.server.close();
    otherSite?.server.close();
    assert.deepEqual(pageErrors, [], 'no page errors');
  });

  test('a public room: the script drives it, clicks and moves come back, a change arrives live', async () => {
    const room = await newRoom(true);
    const page = await hostPage(site, { room, controls: ['zoom', 'legend'] });
    await waitForEvent(page, 'ready');
    const frame = await embedFrame(page);
    await frame.locator('[data-testid=map][data-ready=true]').waitFor({ timeout: 30_000 });
    await page.screenshot({ path: path.join(TEST_OUTPUT, 'embed-public.png') });

    await page.evaluate(() =>
      (window as unknown as { map: { setView(v: object): void } }).map.setView({ lat: 47.37, lng: 8.54, zoom: 11 }),
    );
    await page.waitForFunction(() =>
      (window as unknown as { events: { type: string; view?: { lat: number } }[] }).events.some(
        (e) => e.type === 'view' && Math.abs(e.view!.lat - 47.37) < 0.01,
      ),
    );

    // A marker made by the owner meanwhile reaches the embed live; the script opens it.
    const made = (await call('POST', `/api/rooms/${room}/markers`, {
      latitude: 47.37,
      longitude: 8.54,
      title: 'Lake pier',
    })) as {
      marker: { id: string };
    };
    const card = frame.getByTestId('embed-card');
    await page.waitForFunction(() => true);
    for (let tries = 0; tries < 50 && !(await card.isVisible()); tries++) {
      await page.evaluate(
        (id) => (window as unknown as { map: { openMarker(id: string): void } }).map.openMarker(id),
        made.marker.id,
      );
      await card.waitFor({ timeout: 500 }).catch(() => undefined);
    }
    await assert.doesNotReject(card.getByRole('heading', { name: 'Lake pier' }).waitFor({ timeout: 10_000 }));

    // A click on the map is told to the page.
    await frame.locator('[data-testid=map] canvas').click({ position: { x: 100, y: 100 } });
    await waitForEvent(page, 'click');
    const click = (await events(page)).find((e) => e.type === 'click') as unknown as { lngLat: { lat: number } };
    assert.equal(typeof click.lngLat.lat, 'number');
    // The link back to the full room opens it in a new tab.
    assert.equal(
      await frame.getByRole('link', { name: /Open Public trails in Maproom/ }).getAttribute('href'),
      `/r/${room}`,
    );
  });

  test('a published deck: any site shows its first slide; an unpublished one says so', async () => {
    const room = await newRoom(false);
    const view = { lat: 46.95, lng: 7.45, zoom: 13 };
    await call('POST', `/api/rooms/${room}/presentation/slides`, { title: 'The bridge', view });
    // Not published yet: the embed page says so, and shows no slide.
    const early = await newPage();
    await early.goto(`${service.url}/e/${room}/deck`);
    await early.getByRole('alert').waitFor({ timeout: 30_000 });
    assert.equal(await early.getByTestId('slide-title').count(), 0);

    await call('PATCH', `/api/rooms/${room}/presentation/public`, { isPublic: true });
    const page = await hostPage(otherSite, { room, deck: true });
    await waitForEvent(page, 'ready');
    const frame = await embedFrame(page);
    await frame.locator('[data-testid=map][data-opening=drawn]').waitFor({ timeout: 30_000 });
    assert.equal(await frame.getByTestId('slide-title').textContent(), 'The bridge');
    await page.screenshot({ path: path.join(TEST_OUTPUT, 'embed-deck.png') });
  });

  test('a private room: shown with a key to a listed site only; a revoked key stops it', async () => {
    const room = await newRoom(false);
    await call('PATCH', `/api/rooms/${room}/embedding`, { origins: [site.origin] });
    const { key, id } = (await call('POST', `/api/rooms/${room}/embed-keys`, {
      name: 'intranet',
      expiresInDays: 7,
    })) as {
      key: string;
      id: string;
    };
    const page = await hostPage(site, { room, key });
    await waitForEvent(page, 'ready');
    const frame = await embedFrame(page);
    await frame.locator('[data-testid=map][data-ready=true]').waitFor({ timeout: 30_000 });
    assert.equal(await frame.locator('[data-testid=embed]').getAttribute('data-live'), 'live');

    // Without a key, the same page is told the map is private.
    const keyless = await hostPage(site, { room });
    await (await embedFrame(keyless)).getByText('This map is private').waitFor({ timeout: 30_000 });

    // A site that is not on the list cannot frame it at all.
    const refused = await hostPage(otherSite, { room, key });
    const blocked = await embedFrame(refused);
    await refused.waitForTimeout(0);
    await refused.waitForFunction(() => document.querySelector('iframe') !== null);
    const reached = await blocked
      .locator('[data-testid=embed]')
      .waitFor({ timeout: 3_000 })
      .then(
        () => true,
        () => false,
      );
    assert.equal(reached, false, 'the browser refused to frame it');
    assert.deepEqual(await events(refused), []);

    // Revoked: the open embed loses its live channel, and a reload is refused.
    await call('DELETE', `/api/rooms/${room}/embed-keys/${id}`);
    await frame.locator('[data-testid=embed][data-live=refused]').waitFor({ timeout: 30_000 });
    await page.reload();
    await (await embedFrame(page)).getByText('This embed key is not valid any more').waitFor({ timeout: 30_000 });
    await page.screenshot({ path: path.join(TEST_OUTPUT, 'embed-revoked.png') });
  });

  test("the owner's Share dialog: the code, and a preview of exactly what it shows", async () => {
    const room = await newRoom(false);
    const page = await newPage();
    await page.goto(`${service.url}/`);
    await page.evaluate(
      ([token]) =>
        localStorage.setItem(
          'maproom.session',
          JSON.stringify({ token, user: { id: 'x', email: 'o@example.com', name: 'Owner' } }),
        ),
      [owner],
    );
    await page.goto(`${service.url}/r/${room}`);
    await page.getByRole('button', { name: 'Share' }).click();
    const dialog = page.getByTestId('share-dialog');
    await dialog.getByText('This room is private').waitFor();
    await dialog.getByLabel('What it is for').fill('Project site');
    await dialog.getByRole('button', { name: 'Create key and put it in the code' }).click();
    const code = dialog.getByLabel('Embed code (iframe)');
    await page.waitForFunction(() =>
      /key=mre_/.test((document.querySelector('.copy-field textarea') as HTMLTextAreaElement)?.value ?? ''),
    );
    assert.match(
      await code.inputValue(),
      new RegExp(`src="${service.url}/e/${room}\\?controls=zoom,fullscreen&amp;key=mre_`),
    );
    const preview = (await (await dialog.getByTestId('share-preview').elementHandle())!.contentFrame())!;
    await preview.locator('[data-testid=map][data-ready=true]').waitFor({ timeout: 30_000 });
    await page.screenshot({ path: path.join(TEST_OUTPUT, 'embed-share-dialog.png') });
    await dialog.getByTestId('embed-keys').getByText('Project site').waitFor();
    await page.screenshot({ path: path.join(TEST_OUTPUT, 'embed-share-dialog.png') });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: path.join(TEST_OUTPUT, 'embed-share-dialog-phone.png') });
  });
});
