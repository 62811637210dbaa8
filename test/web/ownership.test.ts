import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { TEST_DB } from '../helpers.js';
import { launchBrowser, startService, type RunningService } from '../support/browser.js';
import { apiOf, type Call, mailedToken, shoot, storedSession } from '../support/web-accounts.js';

// Handing a room over and deleting an account, in Debian's Chromium against the real service:
// the owner makes a member the owner (both open pages follow live), and an account that owns a
// room is refused deletion with that room named and a way to it, until it is gone. Once, with
// SQLite, like the other browser tests.
const skip = TEST_DB !== 'sqlite' && 'the browser tests run once, with the SQLite suite';

const PASSWORD = 'a-long-password';

describe('handing rooms over and deleting an account', { skip }, () => {
  let service: RunningService;
  let browser: Browser;
  let api: Call;
  let ann: Page;
  let bob: Page;
  const contexts: BrowserContext[] = [];
  const pageErrors: string[] = [];
  const stamp = Date.now();
  const annEmail = `ann-${stamp}@example.com`;
  const bobEmail = `bob-${stamp}@example.com`;
  const survey = `surv${String(stamp).slice(-6)}`;
  const oldPlans = `plan${String(stamp).slice(-6)}`;
  let annToken = '';
  let bobToken = '';

  const page = async (email: string, token: string) => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    contexts.push(context);
    const p = await context.newPage();
    p.on('pageerror', (error) => pageErrors.push(error.message));
    const user = (await api('GET', '/api/auth/me', undefined, token)).body.user;
    await p.goto(`${service.url}/account`);
    await p.evaluate((saved) => localStorage.setItem('maproom.session', JSON.stringify(saved)), { token, user });
    assert.ok(user, email);
    return p;
  };
  const openSettings = async (p: Page, roomId: string) => {
    await p.goto(`${service.url}/r/${roomId}?tab=settings`);
    await p.getByRole('heading', { name: 'Settings' }).waitFor({ timeout: 30_000 });
  };
  const signUp = async (email: string, name: string) => {
    const answer = await api('POST', '/api/auth/signup', { email, password: PASSWORD, name });
    assert.equal(answer.status, 201);
    return answer.body.token as string;
  };

  before(async () => {
    service = await startService();
    browser = await launchBrowser();
    api = apiOf(service);
    annToken = await signUp(annEmail, 'Ann');
    bobToken = await signUp(bobEmail, 'Bob');
    const link = await mailedToken(service, bobEmail, 'Confirm your e-mail address', '/verify-email');
    assert.equal((await api('POST', '/api/auth/verify-email', { token: link })).status, 200);
    for (const [roomId, name] of [
      [survey, 'Survey'],
      [oldPlans, 'Old plans'],
    ])
      assert.equal((await api('POST', `/api/rooms/${roomId}`, { name }, annToken)).status, 200);
    const invited = await api('POST', `/api/rooms/${survey}/invite`, { email: bobEmail, role: 'editor' }, annToken);
    assert.equal(invited.body.status, 'added');
  });
  after(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await service?.stop();
  });

  test('the owner makes a member the owner: asked first, then both open pages follow at once', async () => {
    ann = await page(annEmail, annToken);
    bob = await page(bobEmail, bobToken);
    await openSettings(ann, survey);
    await openSettings(bob, survey);
    await bob.getByText("Only the room's owner changes its settings").waitFor();

    const row = ann.getByTestId('members').locator('li', { hasText: bobEmail });
    await shoot(ann, 'accounts-members', row);
    await row.getByRole('button', { name: 'Make owner' }).click();
    const confirm = ann.getByRole('dialog', { name: 'Confirm' });
    await confirm.waitFor();
    assert.match((await confirm.textContent())!, new RegExp(`Make ${bobEmail} the owner.*You become an editor`));
    await shoot(ann, 'accounts-make-owner');
    await confirm.getByRole('button', { name: 'Make owner' }).click();

    // Ann keeps editing; the settings, members and tokens are Bob's now, on both pages.
    await ann.getByText("Only the room's owner changes its settings").waitFor();
    assert.equal(await ann.getByRole('button', { name: 'Rename' }).count(), 0);
    assert.equal(await ann.getByRole('tab', { name: 'Draw' }).count(), 1, 'Ann still edits');
    await bob.getByRole('button', { name: 'Rename' }).waitFor({ timeout: 5000 });
    await bob.getByTestId('members').locator('li', { hasText: annEmail }).getByLabel(`Role of ${annEmail}`).waitFor();
    const members = (await api('GET', `/api/rooms/${survey}/members`, undefined, bobToken)).body as unknown as {
      email: string;
      role: string;
    }[];
    assert.deepEqual(
      members.map((m) => `${m.email} ${m.role}`).sort(),
      [`${annEmail} editor`, `${bobEmail} owner`].sort(),
    );
  });

  test('an account that owns a room is not deleted: the page names the room and leads to it; once it is gone, the account is', async () => {
    await ann.goto(`${service.url}/account`);
    const owned = ann.getByTestId('owned-rooms');
    await owned.getByText('Old plans').waitFor();
    assert.equal(await owned.getByText('Survey').count(), 0, 'a room handed over is not listed');
    const form = ann.getByRole('form', { name: 'Delete your account' });
    await form.getByLabel('Password to confirm', { exact: true }).fill(PASSWORD);
    const refused = ann.waitForResponse((r) => new URL(r.url()).pathname === '/api/auth/me' && r.status() === 409);
    await form.getByRole('button', { name: 'Delete my account' }).click();
    await ann.getByRole('dialog', { name: 'Confirm' }).getByRole('button', { name: 'Delete my account' }).click();
    await refused;
    await owned.getByText('Old plans').waitFor();
    assert.equal((await api('GET', '/api/auth/me', undefined, annToken)).status, 200, 'not deleted');
    await shoot(ann, 'accounts-delete-owns-rooms');

    // The link opens the room's settings, where Ann deletes it.
    await owned.locator('li', { hasText: 'Old plans' }).getByRole('link', { name: 'Hand over or delete' }).click();
    await ann.getByRole('heading', { name: 'Settings' }).waitFor({ timeout: 30_000 });
    await ann.getByLabel('Room id to confirm deletion').fill(oldPlans);
    await ann.getByRole('button', { name: 'Delete the room' }).click();
    await ann.getByRole('heading', { name: 'Your rooms' }).waitFor();

    await ann.goto(`${service.url}/account`);
    await ann.getByRole('heading', { name: 'Delete your account' }).waitFor();
    const deleted = ann.waitForResponse((r) => new URL(r.url()).pathname === '/api/auth/me' && r.status() === 204);
    await form.getByLabel('Password to confirm', { exact: true }).fill(PASSWORD);
    await form.getByRole('button', { name: 'Delete my account' }).click();
    await ann.getByRole('dialog', { name: 'Confirm' }).getByRole('button', { name: 'Delete my account' }).click();
    await deleted;
    await ann.getByRole('heading', { name: 'Account deleted' }).waitFor();
    assert.equal(await ann.getByTestId('owned-rooms').count(), 0);
    assert.equal(await storedSession(ann), null, 'signed out');
    await shoot(ann, 'accounts-deleted');
    assert.equal((await api('GET', '/api/auth/me', undefined, annToken)).status, 401);
    const login = await api('POST', '/api/auth/login', { email: annEmail, password: PASSWORD });
    assert.equal(login.status, 401);
    assert.deepEqual(pageErrors, []);
  });
});
