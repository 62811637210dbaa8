import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { TEST_DB } from '../helpers.js';
import { launchBrowser, startService, TEST_OUTPUT, type RunningService } from '../support/browser.js';
import { mailedToken } from '../support/web-accounts.js';

// The room's timeline in two browsers (Ann, the owner, and Bob, an editor) against the real
// service: restore, undo and redo on the history's restore route, and the time slider's past
// view read from history/snapshot. SQLite only, like test/web/browser.test.ts.
const skip = TEST_DB !== 'sqlite' && 'the browser tests run once, with the SQLite suite';

const BERN = { lng: 7.4474, lat: 46.948 };
type Session = { token: string; user: { id: string; email: string; name: string | null } };
type Marker = { id: string; title: string; latitude: number; longitude: number };

describe('the timeline, restore and undo in the web application', { skip }, () => {
  let service: RunningService;
  let browser: Browser;
  let ann: Page;
  let bob: Page;
  let annSession: Session;
  let bobSession: Session;
  const contexts: BrowserContext[] = [];
  const errors: string[] = [];
  const roomId = `tl-${Date.now().toString(36).slice(-7)}`;

  const call = async (who: Session, method: string, url: string, body?: unknown) => {
    const response = await fetch(`${service.url}${url}`, {
      method,
      headers: {
        Authorization: `Bearer ${who.token}`,
        ...(body !== undefined && { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    assert.ok(response.ok, `${method} ${url}: ${response.status} ${text}`);
    return (text ? JSON.parse(text) : {}) as Record<string, unknown>;
  };
  const signUp = async (name: string): Promise<Session> => {
    const response = await fetch(`${service.url}/api/auth/signup`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name, email: `${name.toLowerCase()}-${roomId}@example.com`, password: 'a-long-password' }),
    });
    assert.equal(response.status, 201);
    return (await response.json()) as Session;
  };
  const open = async (who: Session) => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    contexts.push(context);
    await context.addInitScript((saved) => localStorage.setItem('maproom.session', saved), JSON.stringify(who));
    const page = await context.newPage();
    page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
    await page.goto(`${service.url}/r/${roomId}`);
    await page.locator('[data-testid=map][data-ready=true]').waitFor({ timeout: 30_000 });
    await page.getByText('Live', { exact: true }).waitFor();
    return page;
  };
  const markerList = (page: Page) => page.getByTestId('marker-list');
  const createMarker = async (who: Session, title: string, at = BERN) =>
    (await call(who, 'POST', `/api/rooms/${roomId}/markers`, { title, latitude: at.lat, longitude: at.lng }))
      .marker as Marker;
  const markerNow = async (id: string) =>
    (await call(annSession, 'GET', `/api/rooms/${roomId}/markers/${id}`)).marker as Marker;
  /**
   * Waits until the page's text of the element `testId` (hidden too) includes `part`, or (`has`
   * false) no longer does; answers that text.
   */
  const until = async (page: Page, testId: string, part: string, has = true) => {
    await page.waitForFunction(
      ([id, part, has]) => {
        const text = document.querySelector(`[data-testid="${id}"]`)?.textContent;
        return text !== null && text !== undefined && text.includes(part as string) === has;
      },
      [testId, part, has] as const,
      { timeout: 10_000 },
    );
    return (await page.getByTestId(testId).first().textContent())!;
  };

  before(async () => {
    service = await startService();
    browser = await launchBrowser();
    annSession = await signUp('Ann');
    await call(annSession, 'POST', `/api/rooms/${roomId}`, {
      name: 'Timeline walk',
      defaultView: { lat: BERN.lat, lng: BERN.lng, zoom: 13 },
    });
    await call(annSession, 'POST', `/api/rooms/${roomId}/invite`, {
      email: `bob-${roomId}@example.com`,
      role: 'editor',
    });
    bobSession = await signUp('Bob');
    // Bob confirms his address with the e-mailed link (in the log without SMTP): the invitation becomes his membership.
    const token = await mailedToken(service, bobSession.user.email, 'Confirm your e-mail address', '/verify-email');
    const verified = await fetch(`${service.url}/api/auth/verify-email`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ token }),
    });
    assert.equal(verified.status, 200);
    ann = await open(annSession);
    bob = await open(bobSession);
  });
  after(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await service?.stop();
  });

  test("Ann restores the marker Bob deleted, from the timeline; Bob's page shows it again at once", async () => {
    const marker = await createMarker(annSession, 'Bern');
    await markerList(bob).getByText('Bern').waitFor();
    await call(bobSession, 'DELETE', `/api/rooms/${roomId}/markers/${marker.id}`);
    await markerList(ann).getByText('Bern').waitFor({ state: 'detached' });

    await ann.getByRole('tab', { name: 'Timeline' }).click();
    // Names, not ids.
    const deleted = ann.getByTestId('history-entry').filter({ hasText: "Bob deleted marker 'Bern'" });
    await deleted.waitFor();
    await ann.getByTestId('history-entry').filter({ hasText: "Ann added marker 'Bern'" }).waitFor();
    assert.equal(await ann.getByTestId('history').getByText(marker.id).count(), 0, 'no raw ids');
    await deleted.getByRole('button', { name: /^Restore/ }).click();
    await ann
      .getByTestId('restore-report')
      .getByText("Restored marker 'Bern' as it was before it was deleted")
      .waitFor();

    await markerList(bob).getByText('Bern').waitFor({ timeout: 5000 });
    assert.equal((await markerNow(marker.id)).title, 'Bern', 'back with the same id');
    await ann.getByTestId('history-entry').filter({ hasText: "Ann restored marker 'Bern'" }).waitFor();
    await ann.getByTestId('restore-report').getByRole('button', { name: 'Dismiss' }).click();
  });

  test("Ann's Ctrl+Z undoes her edit and Ctrl+Shift+Z redoes it, and Ctrl+Z brings back what she deleted; Bob sees it all live", async () => {
    await ann.getByRole('tab', { name: 'Markers' }).click();
    const marker = await createMarker(annSession, 'Bärengraben');
    await markerList(bob).getByText('Bärengraben').waitFor();
    await call(annSession, 'PATCH', `/api/rooms/${roomId}/markers/${marker.id}`, { title: 'Bear pit' });
    await markerList(bob).getByText('Bear pit').waitFor();
    await markerList(ann).getByText('Bear pit').waitFor();

    await ann.getByTestId('map').click({ position: { x: 5, y: 700 } });
    await ann.keyboard.press('Control+z');
    await ann.getByText("Undone: edited marker 'Bear pit'").waitFor();
    await markerList(bob).getByText('Bärengraben').waitFor({ timeout: 5000 });
    assert.equal((await markerNow(marker.id)).title, 'Bärengraben');

    await ann.keyboard.press('Control+Shift+Z');
    await ann.getByText("Redone: edited marker 'Bear pit'").waitFor();
    await markerList(bob).getByText('Bear pit').waitFor({ timeout: 5000 });
    assert.equal((await markerNow(marker.id)).title, 'Bear pit');

    // The undo of a delete restores the marker, with its id.
    await call(annSession, 'DELETE', `/api/rooms/${roomId}/markers/${marker.id}`);
    await markerList(bob).getByText('Bear pit').waitFor({ state: 'detached' });
    await ann.keyboard.press('Control+z');
    await ann.getByText("Undone: deleted marker 'Bear pit'").waitFor();
    await markerList(bob).getByText('Bear pit').waitFor({ timeout: 5000 });
    assert.equal((await markerNow(marker.id)).title, 'Bear pit');
  });

  test('an undo is refused, with who changed the object, when Bob edited it after Ann', async () => {
    const marker = await createMarker(annSession, 'Rosengarten');
    await call(annSession, 'PATCH', `/api/rooms/${roomId}/markers/${marker.id}`, { title: 'Rose garden' });
    await call(bobSession, 'PATCH', `/api/rooms/${roomId}/markers/${marker.id}`, { title: 'Rosengarten Bern' });
    await markerList(ann).getByText('Rosengarten Bern').waitFor();

    await ann.getByRole('button', { name: 'Undo', exact: true }).click();
    await ann.getByRole('alert').getByText("Bob changed 'Rosengarten Bern' after you; not undone").waitFor();
    assert.equal((await markerNow(marker.id)).title, 'Rosengarten Bern', "Bob's edit stays");
    await markerList(bob).getByText('Rosengarten Bern').waitFor();
  });

  test('the time slider shows the room as the history had it: a marker before it was created, and before it moved', async () => {
    const moved = { lat: BERN.lat, lng: BERN.lng + 0.01 };
    const marker = await createMarker(annSession, 'Zytglogge', BERN);
    // The move is at a later moment than the creation (the service's clock is this machine's).
    const { createdAt } = (await call(annSession, 'GET', `/api/rooms/${roomId}/markers/${marker.id}`)).marker as {
      createdAt: number;
    };
    while (Date.now() <= createdAt) await new Promise((resolve) => setImmediate(resolve));
    await call(annSession, 'PATCH', `/api/rooms/${roomId}/markers/${marker.id}`, {
      latitude: moved.lat,
      longitude: moved.lng,
    });
    await ann.getByRole('tab', { name: 'Timeline' }).click();
    const created = ann.getByTestId('history-entry').filter({ hasText: "Ann added marker 'Zytglogge'" });
    const movedEntry = ann.getByTestId('history-entry').filter({ hasText: "Ann moved marker 'Zytglogge'" });
    await movedEntry.waitFor();

    // The map right after the creation: the marker at its first place, editing off.
    await created.getByRole('button', { name: 'Map then' }).click();
    await ann.getByTestId('past-view').getByText('Editing is off').waitFor();
    let shown = await until(ann, 'past-markers', 'Zytglogge');
    assert.match(shown, new RegExp(`Zytglogge \\(${BERN.lat.toFixed(5)}, ${BERN.lng.toFixed(5)}\\)`));
    await ann.getByRole('tab', { name: 'Markers' }).click();
    assert.equal(await ann.getByRole('button', { name: 'Add marker' }).isDisabled(), true, 'no editing in the past');
    await ann.screenshot({ path: path.join(TEST_OUTPUT, 'timeline-past-view.png') });
    await ann.getByRole('tab', { name: 'Timeline' }).click();

    // After the move: the new place.
    await movedEntry.getByRole('button', { name: 'Map then' }).click();
    shown = await until(ann, 'past-markers', moved.lng.toFixed(5));
    assert.match(shown, new RegExp(`Zytglogge \\(${moved.lat.toFixed(5)}, ${moved.lng.toFixed(5)}\\)`));

    // The slider at its start (the room's creation): no marker yet.
    const slider = ann.getByLabel('Moment shown on the map');
    await slider.focus();
    await ann.keyboard.press('Home');
    shown = await until(ann, 'past-markers', 'Zytglogge', false);
    assert.equal(shown, '');
    await ann
      .getByTestId('past-view')
      .getByText(/0 markers/)
      .waitFor();

    // At its end: the room now, editable again.
    await ann.keyboard.press('End');
    await ann.getByTestId('past-view').waitFor({ state: 'detached' });
    await ann.getByRole('tab', { name: 'Markers' }).click();
    assert.equal(await ann.getByRole('button', { name: 'Add marker' }).isDisabled(), false);
  });

  test("the owner groups the timeline by day: day headings in the room's date format, for Bob too", async () => {
    await ann.getByRole('tab', { name: 'Settings' }).click();
    await ann.getByLabel('Group changes').selectOption('day');
    await ann.getByText('Timeline settings saved').waitFor();
    // The browser's time zone is this process's (both from the environment).
    const now = new Date();
    const two = (n: number) => String(n).padStart(2, '0');
    const today = `${now.getFullYear()}-${two(now.getMonth() + 1)}-${two(now.getDate())}`;
    await bob.getByRole('tab', { name: 'Timeline' }).click();
    await bob.getByRole('heading', { name: today }).waitFor({ timeout: 5000 });
    await ann.getByLabel('Date format').selectOption('dmy');
    const [y, m, d] = today.split('-');
    await bob.getByRole('heading', { name: `${d}/${m}/${y}` }).waitFor({ timeout: 5000 });
    await bob.screenshot({ path: path.join(TEST_OUTPUT, 'timeline-by-day.png') });
    assert.deepEqual(errors, []);
  });
});
