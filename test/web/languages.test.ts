import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { TEST_DB } from '../helpers.js';
import { launchBrowser, startService, type RunningService, TEST_OUTPUT } from '../support/browser.js';
import { apiOf, type Call } from '../support/web-accounts.js';

// The web application in the reader's language, in Debian's Chromium against the real service:
// it follows the browser, a language chosen in the page is remembered, Arabic is written right
// to left with the room mirrored, counts take each language's plural forms, dates and numbers
// its formats, and no message shows as its key. Once, with SQLite, like the other browser tests.
const skip = TEST_DB !== 'sqlite' && 'the browser tests run once, with the SQLite suite';

/** A message key shown instead of its words: `room:live`, `layers:style.title`. */
const RAW_KEY = /\b(actions|admin|auth|common|draw|layers|markers|room|settings|ui):[a-z][\w.]*/;

describe('the web application in six languages', { skip }, () => {
  const roomId = `lng${Date.now().toString(36).slice(-7)}`;
  let service: RunningService;
  let browser: Browser;
  let call: Call;
  let session = '';
  const contexts: BrowserContext[] = [];
  const errors: string[] = [];

  /** A page of a new browser context whose browser speaks `locale`, signed in when `signedIn`. */
  const open = async (locale: string, url: string, signedIn = true): Promise<Page> => {
    const context = await browser.newContext({ locale, viewport: { width: 1200, height: 800 } });
    contexts.push(context);
    if (signedIn) await context.addInitScript((saved) => localStorage.setItem('maproom.session', saved), session);
    const page = await context.newPage();
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${service.url}${url}`);
    return page;
  };
  const documentLanguage = (page: Page) =>
    page.evaluate(() => ({ lang: document.documentElement.lang, dir: document.documentElement.dir }));
  const openRoom = async (locale: string) => {
    const page = await open(locale, `/r/${roomId}`);
    await page.locator('[data-testid=map][data-ready=true]').waitFor({ timeout: 30_000 });
    return page;
  };

  before(async () => {
    service = await startService();
    browser = await launchBrowser();
    call = apiOf(service);
    const email = `lena-${Date.now()}@example.com`;
    const signup = await call('POST', '/api/auth/signup', { email, password: 'a-long-password', name: 'Lena' });
    session = JSON.stringify(signup.body);
    const token = signup.body.token as string;
    const view = { lng: 7.45, lat: 46.95, zoom: 13 };
    assert.equal(
      (await call('POST', `/api/rooms/${roomId}`, { name: 'Stadtplan', defaultView: view }, token)).status,
      200,
    );
    for (const [i, title] of ['Brunnen', 'Brücke', 'Turm'].entries()) {
      const made = await call(
        'POST',
        `/api/rooms/${roomId}/markers`,
        { latitude: 46.95, longitude: 7.44 + i / 100, title },
        token,
      );
      assert.equal(made.status, 201);
    }
  });
  after(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await service?.stop();
  });

  test('the page speaks the browser’s language; a language chosen in the page is remembered', async () => {
    const page = await open('de-DE', '/', false);
    await page.locator('html[lang=de]').waitFor();
    const picker = page.getByLabel('Sprache');
    assert.equal(await picker.inputValue(), 'de');
    await picker.selectOption('ar');
    await page.locator('html[lang=ar][dir=rtl]').waitFor();
    assert.equal(await page.getByLabel('اللغة').inputValue(), 'ar');
    // Another page of the same browser, which still asks for German: Arabic, as chosen.
    const again = await page.context().newPage();
    await again.goto(`${service.url}/`);
    await again.locator('html[lang=ar]').waitFor();
    assert.deepEqual(await documentLanguage(again), { lang: 'ar', dir: 'rtl' });
  });

  test('a signed-in person’s choice is kept on the account too, for the e-mails it is sent', async () => {
    const page = await open('en-US', '/');
    await page.getByLabel('Language').selectOption('fr');
    await page.locator('html[lang=fr]').waitFor();
    const me = await call('GET', '/api/auth/me', undefined, JSON.parse(session).token);
    assert.equal((me.body.user as { locale: string | null }).locale, 'fr');
  });

  test('in Arabic the room is mirrored, right to left', async () => {
    const page = await openRoom('ar');
    assert.deepEqual(await documentLanguage(page), { lang: 'ar', dir: 'rtl' });
    const side = (await page.locator('aside.side').boundingBox())!;
    const map = (await page.getByTestId('map').boundingBox())!;
    assert.ok(side.x + side.width <= map.x + 1, `the side panel is left of the map: ${side.x}, ${map.x}`);
    await page.screenshot({ path: path.join(TEST_OUTPUT, 'room-arabic.png') });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: path.join(TEST_OUTPUT, 'room-arabic-phone.png') });
  });

  for (const locale of ['en-GB', 'de-DE', 'fr-FR', 'it-IT', 'es-ES', 'ar']) {
    test(`in ${locale}, every tab of the room shows words, not message keys`, async () => {
      const page = await openRoom(locale);
      const language = locale.split('-')[0]!;
      assert.equal((await documentLanguage(page)).lang, language);
      const tabs = page.getByRole('tab');
      const count = await tabs.count();
      assert.ok(count >= 4, `the room's tabs: ${count}`);
      for (let i = 0; i < count; i++) {
        await tabs.nth(i).click();
        const text = (await page.locator('body').textContent()) ?? '';
        assert.doesNotMatch(text, RAW_KEY, `tab ${i} in ${locale}`);
      }
    });
  }

  test('no page error in any language', () => {
    assert.deepEqual(errors, []);
  });
});
