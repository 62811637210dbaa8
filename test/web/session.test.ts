import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { TEST_DB } from '../helpers.js';
import { launchBrowser, startService, TEST_OUTPUT, type RunningService } from '../support/browser.js';

// Sessions that never lose a change, in Debian's Chromium against the real service with a
// session lifetime of a few seconds: a person using the page keeps being renewed; a page left
// idle lets its session expire, and the next change is kept, the person signs in again in place
// (the room stays open) and the change lands. Once, with SQLite, like the other browser tests.
const skip = TEST_DB !== 'sqlite' && 'the browser tests run once, with the SQLite suite';

const PASSWORD = 'a-long-password';
const NEW = 'a-changed-password';
// Long enough for the page to load and sign in on a slow machine (the first test needs the
// first token still valid once the room is ready).
const TTL_SECONDS = 15;

interface Stored {
  token: string;
  iat: number;
  exp: number;
}

describe('sessions in the web application', { skip }, () => {
  let service: RunningService;
  let browser: Browser;
  let ann: Page;
  const contexts: BrowserContext[] = [];
  const pageErrors: string[] = [];
  const email = `ann-${Date.now()}@example.com`;
  let token = '';
  /** A room token to read the markers with: it outlives the short sessions. */
  let reader = '';
  let roomId = '';

  const api = async (method: string, url: string, body?: unknown, bearer = token) => {
    const response = await fetch(`${service.url}${url}`, {
      method,
      headers: {
        ...(bearer && { Authorization: `Bearer ${bearer}` }),
        ...(body !== undefined && { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
  };
  const markers = async () =>
    (
      (await api('GET', `/api/rooms/${roomId}/markers`, undefined, reader)).body.markers as {
        id: string;
        title: string;
      }[]
    ).length;
  /** The session this page keeps (localStorage), with its JWT's times; null when it keeps none. */
  const stored = (p: Page) =>
    p.evaluate((): Stored | null => {
      const saved = JSON.parse(localStorage.getItem('maproom.session') ?? 'null') as { token: string } | null;
      if (!saved) return null;
      const claims = JSON.parse(atob(saved.token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/')));
      return { token: saved.token, iat: claims.iat, exp: claims.exp };
    });
  const mapCentre = async (p: Page) => {
    const box = (await p.getByTestId('map').boundingBox())!;
    return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  };
  const placeMarker = async (p: Page, dx = 0) => {
    await p.getByRole('button', { name: 'Add marker' }).click();
    const centre = await mapCentre(p);
    await p.mouse.click(centre.x + dx, centre.y);
  };
  const signInAgain = (p: Page) => p.getByRole('dialog', { name: 'Your session has ended' });

  before(async () => {
    service = await startService({ SESSION_TTL_SECONDS: String(TTL_SECONDS) });
    browser = await launchBrowser();
    const signup = await api('POST', '/api/auth/signup', { email, password: PASSWORD, name: 'Ann' }, '');
    assert.equal(signup.status, 201);
    token = signup.body.token as string;
    roomId = `sess${String(Date.now()).slice(-6)}`;
    assert.equal((await api('POST', `/api/rooms/${roomId}`, { name: 'Survey' })).status, 200);
    const issued = await api('POST', `/api/rooms/${roomId}/api-tokens`, { name: 'test', permissions: ['read'] });
    reader = issued.body.token as string;
  });
  after(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await service?.stop();
  });

  test('a person using the page stays signed in past the lifetime of their first session', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    contexts.push(context);
    ann = await context.newPage();
    ann.on('pageerror', (error) => pageErrors.push(error.message));
    await ann.goto(`${service.url}/r/${roomId}`);
    await ann.getByLabel('E-mail').fill(email);
    await ann.getByLabel('Password').fill(PASSWORD);
    await ann.getByRole('button', { name: 'Log in' }).last().click();
    await ann.locator('[data-testid=map][data-ready=true]').waitFor({ timeout: 30_000 });
    const first = (await stored(ann))!;
    const renewals = ann.waitForResponse((r) => new URL(r.url()).pathname === '/api/auth/session', {
      timeout: (TTL_SECONDS + 30) * 1000,
    });

    // Ann keeps using the page (clicks on the room's name, one after the other) until her
    // first session would have expired.
    const renewed = new Set<string>();
    while (Date.now() / 1000 < first.exp + 1) {
      await ann.getByRole('heading', { name: 'Survey' }).click();
      const now = (await stored(ann))!;
      if (now.token !== first.token) renewed.add(now.token);
    }
    assert.equal((await renewals).status(), 200, 'renewed through the renewal route');
    assert.ok(renewed.size >= 1, 'the token was renewed while she used the page');
    const current = (await stored(ann))!;
    assert.ok(current.exp > Date.now() / 1000, 'what the page holds now is still valid');
    assert.equal(await signInAgain(ann).count(), 0, 'never asked to sign in again');

    // A change now lands at once.
    const before = await markers();
    await placeMarker(ann);
    await ann.getByTestId('marker-title').filter({ hasText: 'New marker' }).waitFor();
    assert.equal(await markers(), before + 1);
    await ann.getByRole('button', { name: 'Close' }).click();
  });

  test('a page left idle lets its session expire; the next marker is kept, and lands once Ann signs in again in place', async () => {
    // Nobody uses the page: it renews nothing, and the token it holds expires.
    await ann.waitForFunction(
      () => {
        const saved = JSON.parse(localStorage.getItem('maproom.session') ?? 'null') as { token: string } | null;
        const claims = saved && JSON.parse(atob(saved.token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/')));
        return claims && claims.exp * 1000 < Date.now() - 500;
      },
      undefined,
      { polling: 250, timeout: TTL_SECONDS * 4000 },
    );
    const before = await markers();

    const refused = ann.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith('/markers'));
    await placeMarker(ann, 60);
    assert.equal((await refused).status(), 401, 'the service refused the expired session');
    const dialog = signInAgain(ann);
    await dialog.waitFor();
    // In place: the room is still open behind the dialog, and its header no longer says "Live".
    assert.equal(await ann.getByTestId('map').count(), 1, 'the room stays open');
    assert.equal(await ann.getByText('This room is private').count(), 0);
    assert.equal(await ann.getByTestId('live-status').textContent(), 'Signed out: sign in to save');
    assert.equal(await markers(), before, 'nothing saved yet');
    await ann.screenshot({ path: path.join(TEST_OUTPUT, 'session-sign-in-again.png') });

    // A wrong password is said in the dialog, which stays.
    await dialog.getByLabel('Password').fill('not-the-password');
    await dialog.getByRole('button', { name: 'Sign in' }).click();
    await dialog.getByRole('alert').waitFor();
    assert.equal(await dialog.isVisible(), true);

    const landed = ann.waitForResponse(
      (r) => r.request().method() === 'POST' && r.url().endsWith('/markers') && r.status() === 201,
    );
    await dialog.getByLabel('Password').fill(PASSWORD);
    await dialog.getByRole('button', { name: 'Sign in' }).click();
    await landed;
    await dialog.waitFor({ state: 'detached' });
    assert.equal(await markers(), before + 1, 'the marker placed while signed out exists');
    await ann.getByTestId('marker-title').filter({ hasText: 'New marker' }).waitFor();
    await ann
      .getByTestId('live-status')
      .filter({ hasText: /^Live$/ })
      .waitFor();
    assert.ok((await stored(ann))!.exp > Date.now() / 1000, 'a new session is kept');
    await ann.getByRole('button', { name: 'Close' }).click();
  });

  test('a session logged out elsewhere: the room asks at once (its live socket closes), then works again', async () => {
    const { token: current } = (await stored(ann))!;
    assert.equal((await api('POST', '/api/auth/logout', undefined, current)).status, 204);
    const before = await markers();
    const dialog = signInAgain(ann);
    await dialog.waitFor();
    await dialog.getByLabel('Password').fill(PASSWORD);
    await dialog.getByRole('button', { name: 'Sign in' }).click();
    await dialog.waitFor({ state: 'detached' });
    await placeMarker(ann, -60);
    await ann.getByTestId('marker-title').filter({ hasText: 'New marker' }).waitFor();
    assert.equal(await markers(), before + 1);
  });

  test('a password changed elsewhere: the room asks at once, and is live again after the sign-in', async () => {
    await ann
      .getByTestId('live-status')
      .filter({ hasText: /^Live$/ })
      .waitFor();
    const other = (await api('POST', '/api/auth/login', { email, password: PASSWORD }, '')).body.token as string;
    const changed = await api('POST', '/api/auth/password', { currentPassword: PASSWORD, newPassword: NEW }, other);
    assert.equal(changed.status, 204);
    // Ann does nothing: her page's live channel was closed, and the page found out why.
    const dialog = signInAgain(ann);
    await dialog.waitFor();
    await dialog.getByLabel('Password').fill(NEW);
    await dialog.getByRole('button', { name: 'Sign in' }).click();
    await dialog.waitFor({ state: 'detached' });
    await ann
      .getByTestId('live-status')
      .filter({ hasText: /^Live$/ })
      .waitFor();
    const made = await api(
      'POST',
      `/api/rooms/${roomId}/markers`,
      { latitude: 46.9, longitude: 7.4, title: 'Elsewhere' },
      other,
    );
    assert.equal(made.status, 201);
    await ann.getByTestId('marker-list').getByText('Elsewhere').waitFor({ timeout: 5000 });
    assert.deepEqual(pageErrors, []);
  });
  // Last: while this test runs on its own page, Ann's page idles past the session lifetime.
  test('on a phone, the dialog fits the screen', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    contexts.push(context);
    const phone = await context.newPage();
    phone.on('pageerror', (error) => pageErrors.push(error.message));
    await phone.goto(service.url);
    const signedIn = (await api('POST', '/api/auth/login', { email, password: NEW }, '')).body;
    await phone.evaluate((saved) => localStorage.setItem('maproom.session', JSON.stringify(saved)), signedIn);
    // The page's reads done (the markers' list comes after the map drew them), Ann logs out elsewhere.
    const read = phone.waitForResponse((r) => new URL(r.url()).pathname === `/api/rooms/${roomId}/markers`, {
      timeout: 60_000,
    });
    await phone.goto(`${service.url}/r/${roomId}`);
    await Promise.all([phone.locator('[data-testid=map][data-ready=true]').waitFor({ timeout: 60_000 }), read]);
    await phone.getByRole('tab', { name: 'Settings' }).click();
    await phone.getByRole('button', { name: 'Rename' }).focus();
    // 401: on a slow machine the session may have expired already; it is gone either way.
    const loggedOut = await api('POST', '/api/auth/logout', undefined, signedIn.token as string);
    assert.ok([204, 401].includes(loggedOut.status), `logged out: ${loggedOut.status}`);
    // Rename by the keyboard (a click would wait for a dialog any of the page's reads may bring
    // first; then Enter lands in the dialog's empty password field, which sends nothing).
    await phone.keyboard.press('Enter');
    const dialog = signInAgain(phone);
    await dialog.waitFor();
    const box = (await dialog.boundingBox())!;
    assert.ok(box.x >= 0 && box.x + box.width <= 390, `within the screen: ${JSON.stringify(box)}`);
    await phone.screenshot({ path: path.join(TEST_OUTPUT, 'session-sign-in-again-phone.png') });
    assert.deepEqual(pageErrors, []);
  });
});
