import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { TEST_DB } from '../helpers.js';
import { launchBrowser, startService, TEST_OUTPUT, type RunningService } from '../support/browser.js';

// Presence and roles in a real browser: three people in one room, each in a browser
// context of their own. On SQLite only, like test/web/browser.test.ts.
const skip = TEST_DB !== 'sqlite' && 'the browser tests run once, with the SQLite suite';

interface Person {
  name: string;
  email: string;
  token: string;
  user: { id: string };
  page: Page;
}
interface View {
  lng: number;
  lat: number;
  zoom: number;
}

describe('presence, cursors, follow and roles in the web application', { skip }, () => {
  let service: RunningService;
  let browser: Browser;
  const roomId = `pres${Date.now().toString(36).slice(-6)}`;
  const people: Record<'olive' | 'ed' | 'vic', Person> = {} as never;
  const errors: string[] = [];

  const api = async (token: string, method: string, url: string, body?: unknown) => {
    const response = await fetch(`${service.url}${url}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body !== undefined && { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  /** Signs up and confirms the address (the link is in the service's log: no SMTP). */
  const signUp = async (name: string) => {
    const email = `${name.toLowerCase()}-${Date.now()}@example.com`;
    const response = await fetch(`${service.url}/api/auth/signup`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email, password: 'a-long-password', name }),
    });
    const session = (await response.json()) as { token: string; user: { id: string } };
    let link: RegExpExecArray | null = null;
    for (let i = 0; i < 200 && !link; i++) {
      link = new RegExp(`${email.replace(/[.+]/g, '\\$&')}[^\\n]*?verify-email\\?token=([A-Za-z0-9_-]+)`).exec(
        service.output(),
      );
      if (!link) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok(link, `a confirmation link for ${email}`);
    const verified = await fetch(`${service.url}/api/auth/verify-email`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ token: link[1] }),
    });
    assert.equal(verified.status, 200);
    const me = (await (
      await fetch(`${service.url}/api/auth/me`, { headers: { Authorization: `Bearer ${session.token}` } })
    ).json()) as {
      user: unknown;
    };
    return { name, email, token: session.token, user: me.user as { id: string } };
  };

  /** A browser context of its own, signed in (the session as the page keeps it), on the room's page. */
  const open = async (person: Omit<Person, 'page'>) => {
    const context = await browser.newContext({ viewport: { width: 1100, height: 700 } });
    await context.addInitScript(
      (session) => localStorage.setItem('maproom.session', session),
      JSON.stringify({ token: person.token, user: person.user }),
    );
    const page = await context.newPage();
    page.on('pageerror', (error) => errors.push(`${person.name}: ${error.message}`));
    await page.goto(`${service.url}/r/${roomId}`);
    await page.locator('[data-testid=map][data-ready=true]').waitFor({ timeout: 30_000 });
    await page.getByText('Live', { exact: true }).waitFor();
    return page;
  };

  const viewOf = async (page: Page): Promise<View> =>
    JSON.parse((await page.getByTestId('map').getAttribute('data-view')) ?? 'null');
  /** Waits until the page's map shows a view other than `view` (its move ended: `moveend`). */
  const movedFrom = (page: Page, view: View) =>
    page.waitForFunction((view) => {
      const seen = JSON.parse(document.querySelector<HTMLElement>('[data-testid=map]')!.dataset.view!);
      return (['lng', 'lat', 'zoom'] as const).some((k) => Math.abs(seen[k] - view[k]) >= 1e-6);
    }, view);
  const avatarNames = (page: Page) =>
    page
      .getByTestId('presence')
      .locator('.avatar')
      .evaluateAll((avatars) => avatars.map((a) => (a as HTMLElement).dataset.name).sort());
  const mapBox = async (page: Page) => (await page.getByTestId('map').boundingBox())!;

  before(async () => {
    service = await startService();
    browser = await launchBrowser();
    const [olive, ed, vic] = await Promise.all([signUp('Olive'), signUp('Ed'), signUp('Vic')]);
    assert.equal(
      (
        await api(olive.token, 'POST', `/api/rooms/${roomId}`, {
          name: 'Presence',
          defaultView: { lng: 7.44, lat: 46.95, zoom: 12 },
        })
      ).status,
      200,
    );
    for (const [person, role] of [
      [ed, 'editor'],
      [vic, 'viewer'],
    ] as const) {
      const invited = await api(olive.token, 'POST', `/api/rooms/${roomId}/invite`, { email: person.email, role });
      assert.equal(invited.body.status, 'added');
    }
    for (const [key, person] of Object.entries({ olive, ed, vic }))
      people[key as keyof typeof people] = { ...person, page: await open(person) };
  });
  after(async () => {
    await browser?.close();
    await service?.stop();
  });

  test('all three see each other as avatars, named, with since when', async () => {
    for (const { page } of Object.values(people)) {
      await page.waitForFunction(() => document.querySelectorAll('[data-testid=presence] .avatar').length === 3);
      assert.deepEqual(await avatarNames(page), ['Ed', 'Olive', 'Vic']);
    }
    const title = await people.vic.page.getByTestId('presence').locator('.avatar[data-name=Vic]').getAttribute('title');
    assert.match(title ?? '', /^Vic \(you\), here since \d/);
  });

  test("a pointer moved in one browser is a named cursor in the others', where it points", async () => {
    const box = await mapBox(people.ed.page);
    await people.ed.page.mouse.move(box.x + 200, box.y + 150);
    await people.ed.page.mouse.move(box.x + 300, box.y + 250, { steps: 5 });
    for (const watcher of [people.olive.page, people.vic.page]) {
      const cursor = watcher.locator('[data-testid=presence-cursor][data-name=Ed]');
      await cursor.waitFor();
      assert.equal(await cursor.textContent(), 'Ed');
    }
    // Where Ed points (the same map view everywhere at first): at his mouse's place on their map.
    const cursorBox = (await people.olive.page.locator('[data-testid=presence-cursor][data-name=Ed]').boundingBox())!;
    const oliveMap = await mapBox(people.olive.page);
    await people.olive.page.waitForFunction(
      () => {
        const box = document.querySelector('[data-testid=presence-cursor][data-name=Ed]')!.getBoundingClientRect();
        const map = document.querySelector('[data-testid=map]')!.getBoundingClientRect();
        return Math.abs(box.x - map.x - 300) < 3 && Math.abs(box.y - map.y - 250) < 3;
      },
      undefined,
      // The last position comes after the throttle's wait; on a loaded CI machine that took over 5 s once.
      { timeout: 20_000 },
    );
    assert.ok(cursorBox.x >= oliveMap.x);
    assert.equal(await people.ed.page.locator('[data-testid=presence-cursor]').count(), 0, 'no cursor of his own');
  });

  test("following someone moves the follower's map with their view, until the follower moves it", async () => {
    const vic = people.vic.page;
    await vic.getByTestId('presence').locator('.avatar[data-name=Olive]').click();
    await vic.screenshot({ path: path.join(TEST_OUTPUT, 'presence-menu.png') });
    await vic.getByRole('menuitem', { name: 'Follow' }).click();
    await vic.getByTestId('following').getByText('Following Olive').waitFor();

    // Olive pans and zooms her map; Vic's follows.
    const olive = people.olive.page;
    const box = await mapBox(olive);
    await olive.mouse.move(box.x + 500, box.y + 300);
    await olive.mouse.down();
    await olive.mouse.move(box.x + 300, box.y + 200, { steps: 8 });
    await olive.mouse.up();
    await olive.mouse.wheel(0, -600);
    await olive.waitForFunction(
      () => JSON.parse(document.querySelector<HTMLElement>('[data-testid=map]')!.dataset.view!).zoom > 12.2,
    );
    // Vic's map comes to Olive's view: the one on her map's element once his shows it too (her
    // map may still be settling: her view is read again when his does not come to it).
    let target = await viewOf(olive);
    for (let tries = 0; tries < 20; tries++) {
      target = await viewOf(olive);
      const reached = await vic
        .waitForFunction(
          (target) => {
            const seen = JSON.parse(document.querySelector<HTMLElement>('[data-testid=map]')!.dataset.view!);
            return (['lng', 'lat', 'zoom'] as const).every((k) => Math.abs(seen[k] - target[k]) < 1e-6);
          },
          target,
          { timeout: 1000 },
        )
        .then(
          () => true,
          () => false,
        );
      if (reached) break;
    }
    const followed = await viewOf(vic);
    for (const k of ['lng', 'lat', 'zoom'] as const) assert.ok(Math.abs(followed[k] - target[k]) < 1e-6, k);
    assert.ok(target.zoom > 12.2);
    await vic.screenshot({ path: path.join(TEST_OUTPUT, 'presence-following.png') });

    // Vic moves his own map: following stops, and Olive's moves no longer move his.
    const vicBox = await mapBox(vic);
    await vic.mouse.move(vicBox.x + 400, vicBox.y + 300);
    await vic.mouse.down();
    await vic.mouse.move(vicBox.x + 450, vicBox.y + 380, { steps: 5 });
    await vic.mouse.up();
    await vic.getByTestId('following').waitFor({ state: 'detached' });
    // His drag's inertia ends: the map's element shows its view at the end of the move (`moveend`).
    await movedFrom(vic, followed);
    const own = await viewOf(vic);
    await olive.mouse.move(box.x + 300, box.y + 200);
    await olive.mouse.down();
    await olive.mouse.move(box.x + 100, box.y + 100, { steps: 8 });
    await olive.mouse.up();
    await movedFrom(olive, target);
    // Kept as a wait of time: that Vic's map does NOT move is what is checked, and his page shows
    // nothing of Olive's views once he stopped following (no later event of hers to wait for that
    // is sure to come after her last view: her pointer and her view are sent on throttles of their own).
    await olive.waitForTimeout(700);
    assert.notDeepEqual(await viewOf(olive), target, 'Olive moved on');
    assert.deepEqual(await viewOf(vic), own, "Vic's map stays where he put it");
  });

  test("the owner makes the editor a viewer: the editor's page loses its edit controls, and a write is refused", async () => {
    const ed = people.ed.page;
    await ed.getByRole('button', { name: 'Add marker' }).waitFor();
    assert.equal(await ed.getByRole('tab', { name: 'Draw' }).count(), 1);
    await ed.getByRole('tab', { name: 'Draw' }).click();

    const olive = people.olive.page;
    await olive.getByRole('tab', { name: 'Settings' }).click();
    const role = olive.getByLabel(`Role of ${people.ed.email}`);
    assert.equal(await role.inputValue(), 'editor');
    assert.equal(
      await olive.getByLabel(`Role of ${people.olive.email}`).count(),
      0,
      "the owner's role is not editable",
    );
    await role.selectOption('viewer');
    await olive.getByText(`${people.ed.email} is now a viewer`).waitFor();
    await olive.screenshot({ path: path.join(TEST_OUTPUT, 'presence-roles.png') });

    await ed.getByRole('tab', { name: 'Draw' }).waitFor({ state: 'detached', timeout: 5000 });
    await ed.getByRole('button', { name: 'Add marker' }).waitFor({ state: 'detached' });
    assert.equal(await ed.getByRole('tab', { name: 'Markers', selected: true }).count(), 1, 'back on a tab he may see');
    const write = await api(people.ed.token, 'POST', `/api/rooms/${roomId}/markers`, {
      latitude: 46.9,
      longitude: 7.4,
    });
    assert.equal(write.status, 403);
  });

  test('one who leaves is gone from the avatars and cursors of the others', async () => {
    await people.ed.page.context().close();
    for (const page of [people.olive.page, people.vic.page]) {
      await page.waitForFunction(() => document.querySelectorAll('[data-testid=presence] .avatar').length === 2);
      assert.equal(await page.locator('[data-testid=presence-cursor][data-name=Ed]').count(), 0);
    }
    await people.olive.page.screenshot({ path: path.join(TEST_OUTPUT, 'presence-avatars.png') });
    assert.deepEqual(errors, []);
  });
});
