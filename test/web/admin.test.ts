import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { TEST_DB } from '../helpers.js';
import { launchBrowser, startService, TEST_OUTPUT, type RunningService } from '../support/browser.js';
import { mailedToken } from '../support/web-accounts.js';

// The instance admin's page in Debian's Chromium against the real service: an admin finds the
// Admin link, disables a user (whose session the service then refuses) and sees the action in
// the audit list; a user who is not an admin is told the page is not for them. Screenshots of
// the page on a desktop and a phone. Once, with SQLite, like test/web/browser.test.ts.
const skip = TEST_DB !== 'sqlite' && 'the browser tests run once, with the SQLite suite';

const PASSWORD = 'a-long-password';

describe('the admin page', { skip }, () => {
  const stamp = Date.now();
  const adminEmail = `admin-${stamp}@example.com`;
  const carolEmail = `carol-${stamp}@example.com`;
  let service: RunningService;
  let browser: Browser;
  let admin = { token: '', id: '' };
  let carol = { token: '', id: '' };
  let failedJob = '';

  const api = async (method: string, url: string, body?: unknown, token = admin.token) => {
    const response = await fetch(`${service.url}${url}`, {
      method,
      headers: {
        ...(token && { Authorization: `Bearer ${token}` }),
        ...(body !== undefined && { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };
  /** Signs up and confirms the address by the link the service logged. */
  const account = async (email: string) => {
    const { body } = await api('POST', '/api/auth/signup', { email, password: PASSWORD }, '');
    const token = await mailedToken(service, email, 'Confirm your e-mail address', '/verify-email');
    assert.equal((await api('POST', '/api/auth/verify-email', { token }, '')).status, 200);
    return { token: body.token as string, id: body.user.id as string };
  };
  const logIn = async (page: Page, email: string) => {
    await page.goto(service.url);
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Your rooms' }).waitFor();
  };

  before(async () => {
    service = await startService({ ADMIN_EMAILS: adminEmail, MAX_ROOMS_PER_USER: '5' });
    browser = await launchBrowser();
    admin = await account(adminEmail);
    carol = await account(carolEmail);
    assert.equal((await api('POST', '/api/rooms/carolsroom', { name: 'Carol survey' }, carol.token)).status, 200);
    // A bulk import that fails (a line where markers need points): a failed job with its error.
    const form = new FormData();
    const line = {
      type: 'Feature',
      geometry: {
        type: 'LineString',
        coordinates: [
          [7, 46],
          [8, 47],
        ],
      },
      properties: {},
    };
    form.append('file', new Blob([JSON.stringify({ type: 'FeatureCollection', features: [line] })]), 'lines.geojson');
    const queued = await fetch(`${service.url}/api/rooms/carolsroom/bulk-import`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${carol.token}` },
      body: form,
    });
    assert.equal(queued.status, 200, await queued.clone().text());
    failedJob = ((await queued.json()) as { jobId: string }).jobId;
  });
  after(async () => {
    await browser?.close();
    await service?.stop();
  });

  test('an admin disables a user from the page, and the audit list shows it', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await logIn(page, adminEmail);
    await page.getByRole('link', { name: 'Admin', exact: true }).click();
    await page.getByRole('heading', { name: 'Administration' }).waitFor();
    const row = page.locator(`tr[data-user="${carolEmail}"]`);
    await row.waitFor();
    // The limits are read beside the list: wait for the cell that shows both.
    await row.locator('td[data-label="Rooms owned"]', { hasText: 'of 5' }).waitFor();
    assert.equal(
      await row.locator('td[data-label="Rooms owned"]').textContent(),
      '1 of 5',
      'Carol owns one room of the five she may',
    );
    await page.screenshot({ path: path.join(TEST_OUTPUT, 'admin-users-desktop.png'), fullPage: true });

    await row.getByRole('button', { name: 'Disable' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `${carolEmail} is disabled.` })
      .waitFor();
    await row.getByRole('button', { name: 'Enable' }).waitFor();
    assert.match(String(await row.textContent()), /Disabled/);
    // The service agrees, and Carol's session is refused.
    const listed = await api('GET', `/api/admin/users?q=${encodeURIComponent(carolEmail)}`);
    assert.equal(listed.body.users[0].disabled, true);
    assert.equal((await api('GET', '/api/auth/me', undefined, carol.token)).status, 401);

    await page.getByRole('tab', { name: 'Audit' }).click();
    const entry = page.getByRole('list', { name: 'Audit list' }).getByRole('listitem').first();
    await entry.waitFor();
    assert.match(String(await entry.textContent()), new RegExp(`Disabled user ${carol.id}[\\s\\S]*by you`));
    await page.screenshot({ path: path.join(TEST_OUTPUT, 'admin-audit-desktop.png'), fullPage: true });

    for (const tab of ['Rooms', 'Jobs', 'Limits']) {
      await page.getByRole('tab', { name: tab }).click();
      await page.getByRole('heading', { name: tab, level: 2 }).waitFor();
      await page.getByText('Loading…').waitFor({ state: 'detached' });
      if (tab === 'Jobs') {
        // The failed import, with its error; Retry queues it again (and it fails again).
        await page.getByRole('button', { name: 'Failed', exact: true }).click();
        const job = page.locator('tr', { hasText: failedJob });
        await job.waitFor();
        assert.match(String(await job.textContent()), /bulk-import[\s\S]*failed[\s\S]*Point/);
        await page.screenshot({ path: path.join(TEST_OUTPUT, 'admin-jobs-desktop.png'), fullPage: true });
        await job.getByRole('button', { name: 'Retry' }).click();
        await page.getByRole('status').filter({ hasText: 'The bulk-import job is queued again.' }).waitFor();
        continue;
      }
      if (tab === 'Rooms')
        assert.match(
          String(await page.locator('tr', { hasText: 'Carol survey' }).textContent()),
          new RegExp(carolEmail),
        );
      await page.screenshot({ path: path.join(TEST_OUTPUT, `admin-${tab.toLowerCase()}-desktop.png`), fullPage: true });
    }
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('on a phone the page fits; a user who is not an admin is told the page is not for them', async () => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const page = await phone.newPage();
    await logIn(page, adminEmail);
    await page.goto(`${service.url}/admin`);
    await page.locator(`tr[data-user="${carolEmail}"]`).waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the page is ${overflow}px wider than the phone (tables scroll inside)`);
    await page.screenshot({ path: path.join(TEST_OUTPUT, 'admin-users-phone.png'), fullPage: true });
    await page.getByRole('tab', { name: 'Rooms' }).click();
    await page.locator('tr', { hasText: 'Carol survey' }).waitFor();
    await page.screenshot({ path: path.join(TEST_OUTPUT, 'admin-rooms-phone.png'), fullPage: true });
    await phone.close();

    const dave = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const davePage = await dave.newPage();
    await account(`dave-${stamp}@example.com`);
    await logIn(davePage, `dave-${stamp}@example.com`);
    assert.equal(
      await davePage.getByRole('link', { name: 'Admin', exact: true }).count(),
      0,
      'no Admin link for others',
    );
    await davePage.goto(`${service.url}/admin`);
    await davePage.getByRole('alert').filter({ hasText: 'You are not allowed here' }).waitFor();
    await davePage.screenshot({ path: path.join(TEST_OUTPUT, 'admin-not-allowed.png') });
    await dave.close();
  });
});
