import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import axe from 'axe-core';
import type { Browser, Page } from 'playwright-core';
import { TEST_DB } from '../helpers.js';
import { launchBrowser, startService, type RunningService } from '../support/browser.js';
import { apiOf, mailedToken, type Call } from '../support/web-accounts.js';

// axe-core, the real library, run in Debian's Chromium on every kind of page a person meets:
// the sign-in page, the home page, the account page, a room with each of its panels open, the
// published deck and each section of the admin page, on a desktop and on a phone. No page may
// have a serious or critical violation. Once, with SQLite, like the other browser tests.
const skip = TEST_DB !== 'sqlite' && 'the browser tests run once, with the SQLite suite';

const PASSWORD = 'a-long-password';
const ROOM_TABS = ['Markers', 'Layers', 'Draw', 'Slides', 'Timeline', 'Settings'];
const ADMIN_TABS = ['Users', 'Rooms', 'Jobs', 'Limits', 'Audit'];
const VIEWPORTS = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } };

type Violation = { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] };

/** axe's serious and critical violations on the page as it is now, one line each. */
async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated through the browser's debugging protocol: the page's Content-Security-Policy,
  // which refuses inline scripts, does not apply to it.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axe.source);
  const violations = await page.evaluate(async () => {
    const { violations } = await (window as unknown as { axe: typeof axe }).axe.run(document, {
      resultTypes: ['violations'],
    });
    return violations as unknown as Violation[];
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

describe('accessibility of every page (axe-core)', { skip }, () => {
  const stamp = Date.now();
  const adminEmail = `a11y-admin-${stamp}@example.com`;
  const roomId = `acc${stamp.toString(36).slice(-7)}`;
  let service: RunningService;
  let browser: Browser;
  let call: Call;
  let session = { token: '', user: {} as Record<string, unknown> };
  const found: Record<string, string[]> = {};

  /** A page at `url` in a new browser context of this size, signed in or not. */
  const open = async (url: string, viewport: keyof typeof VIEWPORTS, signedIn: boolean) => {
    const context = await browser.newContext({ viewport: VIEWPORTS[viewport], hasTouch: viewport === 'phone' });
    if (signedIn)
      await context.addInitScript((s) => localStorage.setItem('maproom.session', s), JSON.stringify(session));
    const page = await context.newPage();
    await page.goto(`${service.url}${url}`);
    return page;
  };
  const check = async (page: Page, name: string) => {
    found[name] = await seriousViolations(page);
  };

  before(async () => {
    service = await startService({ ADMIN_EMAILS: adminEmail });
    browser = await launchBrowser();
    call = apiOf(service);
    const signup = await call('POST', '/api/auth/signup', { email: adminEmail, password: PASSWORD, name: 'Ada' });
    const token = signup.body.token as string;
    const verify = await mailedToken(service, adminEmail, 'Confirm your e-mail address', '/verify-email');
    assert.equal((await call('POST', '/api/auth/verify-email', { token: verify })).status, 200);
    session = {
      token,
      user: (await call('GET', '/api/auth/me', undefined, token)).body.user as Record<string, unknown>,
    };
    const view = { lng: 7.45, lat: 46.95, zoom: 13 };
    assert.equal(
      (await call('POST', `/api/rooms/${roomId}`, { name: 'Reachable', defaultView: view }, token)).status,
      200,
    );
    const marker = await call(
      'POST',
      `/api/rooms/${roomId}/markers`,
      { latitude: 46.95, longitude: 7.45, title: 'Well' },
      token,
    );
    assert.equal(marker.status, 201);
    const line = {
      type: 'LineString',
      coordinates: [
        [7.44, 46.95],
        [7.46, 46.952],
      ],
    };
    assert.equal(
      (await call('POST', `/api/rooms/${roomId}/drawings`, { geometry: line, label: 'Path' }, token)).status,
      201,
    );
    const slide = { title: 'The well', body: 'Where the water is.', view };
    assert.equal((await call('POST', `/api/rooms/${roomId}/presentation/slides`, slide, token)).status, 201);
    const published = await call('PATCH', `/api/rooms/${roomId}/presentation/public`, { isPublic: true }, token);
    assert.equal(published.status, 200);
  });

  after(async () => {
    await browser?.close();
    await service?.stop();
  });

  for (const viewport of ['desktop', 'phone'] as const) {
    test(`the pages without a session, on a ${viewport}`, async () => {
      const signIn = await open('/', viewport, false);
      await signIn.getByRole('button', { name: 'Log in' }).waitFor();
      await check(signIn, `sign-in (${viewport})`);
      await signIn.goto(`${service.url}/forgot-password`);
      await signIn.getByRole('heading').first().waitFor();
      await check(signIn, `forgotten password (${viewport})`);
      const deck = await open(`/p/${roomId}`, viewport, false);
      // The deck's map has drawn its first slide (a deck has no room's layers to wait for).
      await deck.locator('[data-testid=map][data-opening=drawn]').waitFor({ timeout: 30_000 });
      await deck.getByText('The well').first().waitFor();
      await check(deck, `published deck (${viewport})`);
      await signIn.context().close();
      await deck.context().close();
    });

    test(`the signed-in pages, on a ${viewport}`, async () => {
      const page = await open('/', viewport, true);
      await page.getByRole('heading', { name: 'Your rooms' }).waitFor();
      await check(page, `home (${viewport})`);
      await page.goto(`${service.url}/account`);
      await page.getByRole('heading', { name: 'Your account', exact: true }).waitFor();
      await check(page, `account (${viewport})`);
      await page.goto(`${service.url}/admin`);
      for (const tab of ADMIN_TABS) {
        await page.getByRole('tab', { name: tab }).click();
        await page.getByRole('tabpanel', { name: tab }).waitFor();
        await page.waitForLoadState('networkidle');
        await check(page, `admin, ${tab} (${viewport})`);
      }
      await page.goto(`${service.url}/r/${roomId}`);
      await page.locator('[data-testid=map][data-ready=true]').waitFor({ timeout: 30_000 });
      for (const tab of ROOM_TABS) {
        await page.getByRole('tab', { name: tab }).click();
        await page.getByRole('tab', { name: tab, selected: true }).waitFor();
        await check(page, `room, ${tab} panel (${viewport})`);
      }
      await page.getByRole('tab', { name: 'Markers' }).click();
      await page.getByTestId('marker-list').getByRole('button', { name: 'Well' }).click();
      await page.getByTestId('marker-title').filter({ hasText: 'Well' }).waitFor();
      await check(page, `room, a marker selected (${viewport})`);
      await page.getByRole('button', { name: 'Keyboard shortcuts' }).click();
      await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
      await check(page, `room, the shortcuts (${viewport})`);
      await page.context().close();
    });
  }

  test('no page has a serious or critical violation', () => {
    const failing = Object.entries(found).filter(([, lines]) => lines.length > 0);
    assert.ok(Object.keys(found).length >= 2 * (7 + ROOM_TABS.length + ADMIN_TABS.length), 'every page was checked');
    assert.deepEqual(
      failing.map(([name, lines]) => `${name}:\n  ${lines.join('\n  ')}`),
      [],
      'axe-core found serious or critical violations',
    );
  });
});
