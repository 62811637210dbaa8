import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { TEST_DB } from '../helpers.js';
import { launchBrowser, startService, TEST_OUTPUT, type RunningService } from '../support/browser.js';
import { mailedToken, mailedTokens } from '../support/web-accounts.js';

// No dead ends in the web application's forms, in Debian's Chromium against the real
// service: an unverified invitee is told what to do and gets a new link; forms take what the
// service takes; a file over its cap is refused before it is sent; the service's errors are
// worded with their field and stay until dismissed; a marker's video is shown in a sandboxed
// frame; a file of points is uploaded as a layer, or added as markers. Once, with SQLite, like test/web/browser.test.ts.
const skip = TEST_DB !== 'sqlite' && 'the browser tests run once, with the SQLite suite';

const PASSWORD = 'a-long-password';
const VIDEO = 'https://www.youtube.com/watch?v=dQw4w9WgXcQ';

describe('the forms of the web application', { skip }, () => {
  let service: RunningService;
  let browser: Browser;
  let ann: Page;
  let bob: Page;
  const contexts: BrowserContext[] = [];
  const pageErrors: string[] = [];
  const stamp = Date.now();
  const annEmail = `ann-${stamp}@example.com`;
  const bobEmail = `bob-${stamp}@example.com`;
  let annToken = '';
  let roomId = '';
  let markerId = '';

  const api = async (method: string, url: string, body?: unknown, token = annToken) => {
    const response = await fetch(`${service.url}${url}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body !== undefined && { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const page = async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    contexts.push(context);
    const p = await context.newPage();
    p.on('pageerror', (error) => pageErrors.push(error.message));
    return p;
  };
  /** The confirmation links e-mailed to an address (to the service's log, without SMTP), oldest first. */
  const confirmationLinks = (address: string) =>
    mailedTokens(service, address, 'Confirm your e-mail address', '/verify-email');

  before(async () => {
    // A new link may be asked for at once (60 s by default), so the test needs no wait.
    service = await startService({ VERIFICATION_RESEND_SECONDS: '0' });
    browser = await launchBrowser();
  });
  after(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await service?.stop();
  });

  test('a room name at the limit is accepted; a longer one pasted in is kept whole, and the field says so', async () => {
    ann = await page();
    await ann.goto(service.url);
    await ann.getByRole('tab', { name: 'Sign up' }).click();
    await ann.getByLabel('E-mail').fill(annEmail);
    await ann.getByLabel('Password').fill(PASSWORD);
    await ann.getByRole('button', { name: 'Create account' }).click();
    await ann.getByRole('heading', { name: 'Your rooms' }).waitFor();
    annToken = await ann.evaluate(() => JSON.parse(localStorage.getItem('maproom.session')!).token as string);

    const name = ann.getByRole('textbox', { name: 'Name' });
    // The service takes at most 100 characters (read from its OpenAPI document, not copied).
    // Pasted, 200 are kept (the browser's own limit would cut them without a word) and refused.
    await name.focus();
    await ann.keyboard.insertText('n'.repeat(200));
    assert.equal((await name.inputValue()).length, 200, 'nothing is cut silently');
    await ann.getByText('At most 100 characters: this is 200.').waitFor();
    assert.equal(await name.getAttribute('aria-invalid'), 'true');
    await ann.getByRole('button', { name: 'Create room' }).click();
    assert.equal(await name.evaluate((input: HTMLInputElement) => input.validity.valid), false, 'the form is held');
    assert.equal(await ann.getByRole('heading', { name: 'Your rooms' }).count(), 1, 'still on the home page');
    await name.fill(`${'n'.repeat(99)}x`);
    assert.equal(await ann.getByText(/At most 100 characters/).count(), 0);
    roomId = await ann.getByLabel(/Room id/).inputValue();
    await ann.getByRole('button', { name: 'Create room' }).click();
    await ann.locator('[data-testid=map][data-ready=true]').waitFor({ timeout: 30_000 });
    const room = await api('GET', `/api/rooms/${roomId}`);
    assert.equal(room.body.name, `${'n'.repeat(99)}x`, 'the room has the name at the limit');
  });

  test('an unverified invitee is told to confirm the address, not offered a refused Accept, and a new link arrives', async () => {
    const signup = await fetch(`${service.url}/api/auth/signup`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: bobEmail, password: PASSWORD, name: 'Bob' }),
    });
    assert.equal(signup.status, 201);
    const invited = await api('POST', `/api/rooms/${roomId}/invite`, { email: bobEmail, role: 'editor' });
    assert.equal(invited.body.status, 'pending', 'an unconfirmed address is not added at once');
    await mailedToken(service, bobEmail, 'Confirm your e-mail address', '/verify-email');
    assert.equal(confirmationLinks(bobEmail).length, 1, 'the sign-up sent one link');

    bob = await page();
    await bob.goto(`${service.url}/r/${roomId}`);
    await bob.getByLabel('E-mail').fill(bobEmail);
    await bob.getByLabel('Password').fill(PASSWORD);
    await bob.getByRole('button', { name: 'Log in' }).last().click();
    const notice = bob.getByTestId('confirm-address');
    await notice.waitFor();
    const text = await notice.textContent();
    assert.match(text!, /You are invited to .* as editor/);
    assert.match(text!, new RegExp(`Confirm your e-mail address first; we sent a link to ${bobEmail}`));
    assert.equal(await bob.getByText('Ask its owner for an invitation').count(), 0, 'not told to ask for what he has');
    assert.equal(
      await bob.getByRole('button', { name: /Accept/ }).count(),
      0,
      'no Accept button that would be refused',
    );
    await bob.screenshot({ path: path.join(TEST_OUTPUT, 'forms-unverified-invitee.png') });

    await bob.getByRole('button', { name: 'Resend the confirmation e-mail' }).click();
    await bob.getByText(`A new link is on its way to ${bobEmail}.`).waitFor();
    // The mail is written to the service's log as it leaves, which the test reads through a pipe
    // a moment after the page has its answer.
    await mailedToken(service, bobEmail, 'Confirm your e-mail address', '/verify-email', 2);
    const links = confirmationLinks(bobEmail);
    assert.equal(links.length, 2, 'a second mail went out');

    // His rooms page says the same, with the invitation waiting and no Accept.
    await bob.goto(service.url);
    await bob.getByTestId('confirm-address').waitFor();
    await bob.getByText('Opens once your address is confirmed').waitFor();
    assert.equal(await bob.getByRole('button', { name: 'Accept' }).count(), 0);

    // Following the new link confirms the address; the invitation becomes his membership.
    await bob.goto(`${service.url}/verify-email?token=${links[1]}`);
    await bob.getByText('Your address is confirmed.', { exact: false }).waitFor();
    await bob.goto(`${service.url}/r/${roomId}`);
    await bob.locator('[data-testid=map][data-ready=true]').waitFor({ timeout: 30_000 });
  });

  test('a photo over the cap is refused before any request, with both sizes in words', async () => {
    const created = await api('POST', `/api/rooms/${roomId}/markers`, {
      latitude: 46.95,
      longitude: 7.45,
      title: 'Fountain',
    });
    markerId = (created.body.marker as { id: string }).id;
    await bob.getByRole('tab', { name: 'Markers' }).click();
    await bob.getByTestId('marker-list').getByText('Fountain').click();
    await bob.getByRole('button', { name: 'Edit marker' }).click();
    const uploads: string[] = [];
    bob.on('request', (request) => request.url().includes('/upload-image') && uploads.push(request.url()));
    await bob.getByLabel('Photo (JPEG, PNG, WebP, HEIC)').setInputFiles({
      name: 'huge.jpg',
      mimeType: 'image/jpeg',
      buffer: Buffer.alloc(21 * 1024 * 1024, 0xff),
    });
    await bob.getByRole('alert').filter({ hasText: 'The photo is 21 MB; photos may be at most 20 MB.' }).waitFor();
    assert.deepEqual(uploads, [], 'nothing was sent');
    await bob.getByRole('button', { name: 'Dismiss' }).click();
  });

  test('a service error is worded with its field, and stays until dismissed', async () => {
    // The page's timers run on a clock the test moves on (a notice's timer is set as it shows).
    await bob.clock.install();
    // A tag's length is the service's to check (the tags are one comma-separated text in the form).
    await bob.getByLabel('Tags (comma separated)').fill(`${'t'.repeat(65)}, short`);
    await bob.getByRole('button', { name: 'Save', exact: true }).click();
    const alert = bob.getByRole('alert').filter({ hasText: 'Tag 1 may be at most 64 characters.' });
    await alert.waitFor();
    assert.doesNotMatch((await alert.textContent())!, /body\.|must NOT/, "not the validator's words");
    // Past the 5 s a success notice stays (its timer run), the error is still there to read.
    await bob.clock.fastForward(5500);
    assert.equal(await alert.count(), 1, 'the error stays');
    await bob.screenshot({ path: path.join(TEST_OUTPUT, 'forms-error-notice.png') });
    await alert.getByRole('button', { name: 'Dismiss' }).click();
    assert.equal(await alert.count(), 0, 'dismissed');
  });

  test('an embedded YouTube address is shown as a sandboxed frame of its player, at its size', async () => {
    await bob.getByLabel('Tags (comma separated)').fill('short');
    await bob.getByLabel('Video or page link').fill(VIDEO);
    await bob.getByLabel('Media size').selectOption('lg');
    await bob.getByRole('button', { name: 'Save', exact: true }).click();
    const frame = bob.getByTestId('marker-media');
    await frame.waitFor();
    assert.equal(await frame.getAttribute('src'), 'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ');
    const sandbox = (await frame.getAttribute('sandbox'))!.split(' ');
    assert.ok(sandbox.includes('allow-scripts'), 'the player runs');
    assert.ok(!sandbox.includes('allow-top-navigation'), 'the frame cannot navigate this page');
    assert.match((await frame.getAttribute('class'))!, /\blg\b/, 'at its mediaSize');
    const marker = (await api('GET', `/api/rooms/${roomId}/markers/${markerId}`)).body.marker as Record<
      string,
      unknown
    >;
    assert.equal(marker.embeddedMediaUrl, VIDEO);
    assert.equal(marker.mediaSize, 'lg');
    // Ann sees it live, in the same frame.
    await ann.getByRole('tab', { name: 'Markers' }).click();
    await ann.getByTestId('marker-list').getByText('Fountain').click();
    await ann.getByTestId('marker-media').waitFor({ timeout: 5000 });
    await bob.screenshot({ path: path.join(TEST_OUTPUT, 'forms-marker-media.png') });
    assert.deepEqual(pageErrors, []);
  });

  test('Upload a layer makes a layer of a file of points; Add points as markers makes markers, and refuses lines in words', async () => {
    const geojson = (name: string, geometries: object[]) => ({
      name,
      mimeType: 'application/geo+json',
      buffer: Buffer.from(
        JSON.stringify({
          type: 'FeatureCollection',
          features: geometries.map((geometry, i) => ({ type: 'Feature', geometry, properties: { name: `S${i}` } })),
        }),
      ),
    });
    const springs = geojson('springs.geojson', [
      { type: 'Point', coordinates: [7.46, 46.95] },
      { type: 'Point', coordinates: [7.47, 46.95] },
    ]);
    const markers = async () => ((await api('GET', `/api/rooms/${roomId}/markers`)).body.markers as unknown[]).length;
    const before = await markers();
    await ann.getByRole('tab', { name: 'Layers' }).click();
    await ann.getByText('Upload a layer').click();
    await ann.getByLabel('File').setInputFiles(springs);
    await ann.getByTestId('layer').filter({ hasText: 'springs' }).waitFor({ timeout: 30_000 });
    const layers = (await api('GET', `/api/layers/${roomId}`)).body.layers as Record<string, unknown>[];
    assert.equal(layers.find((l) => l.name === 'springs')?.geometryType, 'Point');
    assert.equal(await markers(), before, 'no marker was made');

    await ann.getByLabel('Add points as markers').setInputFiles(springs);
    await ann.getByText('The points of springs.geojson are markers now').waitFor({ timeout: 30_000 });
    assert.equal(await markers(), before + 2);

    const line = {
      type: 'LineString',
      coordinates: [
        [7.44, 46.95],
        [7.46, 46.96],
      ],
    };
    await ann.getByLabel('Add points as markers').setInputFiles(geojson('roads.geojson', [line]));
    const refused = ann.getByRole('alert').filter({ hasText: 'Only a file of points can be added as markers' });
    await refused.waitFor({ timeout: 30_000 });
    await refused.getByRole('button', { name: 'Dismiss' }).click();
    assert.equal(await markers(), before + 2);
    assert.deepEqual(pageErrors, []);
  });
});
