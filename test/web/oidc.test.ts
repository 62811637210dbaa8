import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { TEST_DB, uniqueRoomId } from '../helpers.js';
import { launchBrowser, type RunningService, startService, TEST_OUTPUT } from '../support/browser.js';
import {
  CLIENT_ID,
  CLIENT_SECRET,
  makeTestCa,
  startOidcProvider,
  type TestCa,
  type TestProvider,
} from '../support/oidc-provider.js';
import { servicePort } from '../support/oidc-service.js';

// Signing in with the organisation's identity provider, in Debian's Chromium: the login page
// offers only the provider's button (LOCAL_ACCOUNTS=off), the provider's own login page takes
// the person, and the web app is signed in and back where the person started. The provider is a
// real oidc-provider over HTTPS (a throw-away CA the service trusts). Once, with SQLite.
const skip = TEST_DB !== 'sqlite' && 'the browser tests run once, with the SQLite suite';

describe('sign-in with an identity provider in the browser', { skip }, () => {
  let ca: TestCa;
  let provider: TestProvider;
  let service: RunningService;
  let browser: Browser;
  const pageErrors: string[] = [];

  before(async () => {
    ca = makeTestCa();
    const at = await servicePort(['oidc']);
    provider = await startOidcProvider(ca, at.callbacks);
    service = await startService({
      PORT: String(at.port),
      PUBLIC_URL: at.url,
      NODE_EXTRA_CA_CERTS: ca.caFile,
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: CLIENT_ID,
      OIDC_CLIENT_SECRET: CLIENT_SECRET,
      OIDC_NAME: 'Sign in with Example Corp',
      LOCAL_ACCOUNTS: 'off',
    });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await service?.stop();
    await provider?.close();
    ca?.remove();
    assert.deepEqual(pageErrors, [], 'no page errors');
  });

  // The browser does not know the test CA: only the provider's pages need it, the service is plain HTTP.
  const newPage = async (viewport = { width: 1280, height: 800 }) => {
    const page = await (await browser.newContext({ viewport, ignoreHTTPSErrors: true })).newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    return page;
  };
  const shot = (page: Page, name: string) => page.screenshot({ path: path.join(TEST_OUTPUT, `oidc-${name}.png`) });
  const storedSession = (page: Page) =>
    page.evaluate(() => JSON.parse(localStorage.getItem('maproom.session') ?? 'null') as { token: string } | null);

  /** The provider's own login and consent pages, as the person fills them in. */
  const signInAtProvider = async (page: Page, login: string) => {
    await page.locator('input[name=login]').fill(login);
    await page.locator('input[name=password]').fill('whatever the provider accepts');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
  };
  const call = async (method: string, url: string, token: string, body?: unknown) => {
    const answer = await fetch(`${service.url}${url}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { status: answer.status, body: answer.status === 204 ? null : await answer.json() };
  };

  test("the provider's button, its own login page, and back signed in where the person started", async () => {
    provider.accounts.set('zoe', { email: 'zoe@example.org', email_verified: true, name: 'Zoe Quinn' });
    const page = await newPage();
    await page.goto(service.url);
    const button = page.getByRole('link', { name: 'Sign in with Example Corp' });
    await button.waitFor();
    assert.equal(await page.getByLabel('Password').count(), 0, 'LOCAL_ACCOUNTS=off: no password form');
    await shot(page, 'login-providers-only');
    await page.setViewportSize({ width: 390, height: 844 });
    await shot(page, 'login-providers-only-phone');
    await page.setViewportSize({ width: 1280, height: 800 });

    await button.click();
    // The provider's own page, on its own origin.
    await page.locator('input[name=login]').waitFor();
    assert.equal(new URL(page.url()).origin, provider.issuer);
    await page.locator('input[name=login]').fill('zoe');
    await page.locator('input[name=password]').fill('whatever the provider accepts');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();

    await page.getByRole('heading', { name: 'Your rooms' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/');
    assert.ok(!page.url().includes('token'), 'the session is not left in the address');
    const session = await storedSession(page);
    const me = await fetch(`${service.url}/api/auth/me`, { headers: { authorization: `Bearer ${session!.token}` } });
    const { user } = (await me.json()) as { user: Record<string, unknown> };
    assert.deepEqual(
      { email: user.email, name: user.name, emailVerified: user.emailVerified },
      { email: 'zoe@example.org', name: 'Zoe Quinn', emailVerified: true },
    );
    assert.equal(await page.evaluate(() => location.hash), '', 'no fragment left');
    await shot(page, 'signed-in');

    // Login CSRF: a link to the landing page with someone's session in its fragment (the old
    // form) or only a returnTo signs another browser in as nobody: it holds no hand-over cookie.
    const victim = await newPage();
    await victim.goto(`${service.url}/signed-in#token=${session!.token}&returnTo=%2F`);
    await victim.getByRole('alert').getByText('No sign-in was finished in this browser').waitFor();
    assert.equal(await storedSession(victim), null, 'the victim is not signed in as someone else');
    await victim.goto('about:blank');
    await victim.goto(`${service.url}/signed-in#returnTo=%2F`);
    await victim.getByRole('alert').getByText('No sign-in was finished in this browser').waitFor();
    assert.equal(await storedSession(victim), null);
    await shot(victim, 'forged-landing');
    await victim.setViewportSize({ width: 390, height: 844 });
    await shot(victim, 'forged-landing-phone');
    await victim.context().close();

    // A private room asks to sign in; the button brings the person back to that room.
    const roomId = uniqueRoomId();
    const created = await fetch(`${service.url}/api/rooms/${roomId}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session!.token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(created.status, 200);
    const other = await newPage();
    await other.goto(`${service.url}/r/${roomId}`);
    await other.getByText('This room is private').waitFor();
    await other.getByRole('link', { name: 'Sign in with Example Corp' }).click();
    await other.locator('input[name=login]').fill('zoe');
    await other.locator('input[name=password]').fill('again');
    await other.getByRole('button', { name: 'Sign-in' }).click();
    await other.getByRole('button', { name: 'Continue' }).click();
    await other.locator('[data-testid=map]').waitFor({ timeout: 30_000 });
    assert.equal(new URL(other.url()).pathname, `/r/${roomId}`);
  });

  test('a session that ended while the room was open: the provider signs the person in again in a window of its own, and the room stays', async () => {
    provider.accounts.set('yan', { email: 'yan@example.org', email_verified: true, name: 'Yan' });
    const page = await newPage();
    await page.goto(service.url);
    await page.getByRole('link', { name: 'Sign in with Example Corp' }).click();
    await signInAtProvider(page, 'yan');
    await page.getByRole('heading', { name: 'Your rooms' }).waitFor();
    const first = (await storedSession(page))!.token;
    const roomId = uniqueRoomId();
    const created = await call('POST', `/api/rooms/${roomId}`, first, {});
    assert.equal(created.status, 200);
    await page.goto(`${service.url}/r/${roomId}`);
    await page.getByRole('button', { name: 'Add marker' }).waitFor();
    // A marker tried as the session ended may have left the page adding one ("Cancel adding"):
    // the map click then places it.
    const markerMode = page.getByRole('button', { name: /^(Add marker|Cancel adding)$/ });
    const placeMarker = async () => {
      await markerMode.waitFor({ timeout: 10_000 });
      if ((await markerMode.textContent())?.includes('Add marker')) await markerMode.click({ timeout: 10_000 });
      const box = (await page.getByTestId('map').boundingBox())!;
      await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    };
    let saved = 0;
    page.on('response', (r) => {
      if (r.request().method() === 'POST' && r.url().endsWith('/markers') && r.status() === 201) saved += 1;
    });

    // The session ends elsewhere: the page asks to sign in again in place, at once when its live
    // channel is closed for the ended session, or when the next change is refused (a marker
    // placed meanwhile is held, and lands after the sign-in).
    assert.equal((await call('POST', '/api/auth/logout', first)).status, 204);
    const tried = placeMarker().catch(() => undefined);
    const dialog = page.getByRole('dialog', { name: 'Your session has ended' });
    await dialog.waitFor();
    assert.equal(await dialog.getByLabel('Password').count(), 0, 'LOCAL_ACCOUNTS=off: no password to ask for');
    await shot(page, 'sign-in-again');

    const popup = page.waitForEvent('popup');
    await dialog.getByRole('button', { name: 'Sign in with Example Corp' }).click();
    const signInWindow = await popup;
    // The provider may still know Yan (its own session and grant) and skip its pages: each step
    // is taken when the provider shows it, until the window closes itself.
    const closed = signInWindow.waitForEvent('close').then(() => 'closed' as const);
    const shown = <T extends string>(what: Locator, step: T) =>
      what.waitFor().then(
        () => step,
        () => 'closed' as const,
      );
    const login = signInWindow.locator('input[name=login]');
    const consent = signInWindow.getByRole('button', { name: 'Continue' });
    for (;;) {
      const step = await Promise.race([closed, shown(login, 'login'), shown(consent, 'consent')]);
      if (step === 'closed') break;
      const at = signInWindow.url();
      if (step === 'login') {
        await login.fill('yan');
        await signInWindow.locator('input[name=password]').fill('whatever the provider accepts');
        await signInWindow.getByRole('button', { name: 'Sign-in' }).click();
      } else await consent.click();
      await Promise.race([closed, signInWindow.waitForURL((url) => url.href !== at).catch(() => 'closed')]);
    }
    await dialog.waitFor({ state: 'detached' });
    const renewed = (await storedSession(page))!.token;
    assert.notEqual(renewed, first, 'the page took the session the window made');
    assert.equal(await page.getByRole('heading', { name: 'Your rooms' }).count(), 0, 'the room stayed open');

    // Signed in again, the same page saves the next marker; every marker it was told to save is
    // in the room, once (one or two: the first only if it was placed before the dialog came).
    await tried;
    await placeMarker();
    await page.getByTestId('marker-title').first().waitFor();
    let stored = 0;
    for (let polls = 0; polls < 50 && (stored === 0 || stored !== saved); polls += 1) {
      if (polls > 0) await new Promise((resolve) => setTimeout(resolve, 200));
      stored = ((await call('GET', `/api/rooms/${roomId}/markers`, renewed)).body as { markers: unknown[] }).markers
        .length;
    }
    assert.ok(stored === 1 || stored === 2, `one or two markers placed, ${stored} stored`);
    assert.equal(stored, saved, 'each marker saved once');
  });

  test('a refused sign-in is explained on the landing page, with the ways in again', async () => {
    for (const viewport of [
      { width: 1280, height: 800, name: 'desktop' },
      { width: 390, height: 844, name: 'phone' },
    ]) {
      const page = await newPage(viewport);
      // As if local accounts were on too: both ways in, the provider's first.
      await page.route('**/api/auth/providers', async (route) => {
        const answer = await route.fetch();
        await route.fulfill({ response: answer, json: { ...(await answer.json()), localAccounts: true } });
      });
      await page.goto(`${service.url}/signed-in#error=email_unverified&returnTo=%2Fr%2Fabcdefghij`);
      await page.getByRole('alert').getByText('does not vouch for it').waitFor();
      await page.getByRole('link', { name: 'Sign in with Example Corp' }).waitFor();
      await page.getByLabel('Password').waitFor();
      assert.equal(new URL(page.url()).hash, '', 'the fragment is taken off the address');
      const href = await page.getByRole('link', { name: 'Sign in with Example Corp' }).getAttribute('href');
      assert.equal(href, '/api/auth/oidc/oidc/start?returnTo=%2Fr%2Fabcdefghij', 'retrying returns to the room');
      await shot(page, `refused-${viewport.name}`);
      await page.goto('about:blank'); // a new load: the same path with another fragment would not reload
      await page.goto(`${service.url}/signed-in#error=whatever&returnTo=//evil.example`);
      await page.getByRole('alert').getByText('Signing in did not work').waitFor();
      assert.equal(
        await page.getByRole('link', { name: 'Sign in with Example Corp' }).getAttribute('href'),
        '/api/auth/oidc/oidc/start?returnTo=%2F',
      );
      await page.context().close();
    }
  });
});
