import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { TEST_DB } from '../helpers.js';
import { launchBrowser, startService, type RunningService } from '../support/browser.js';
import { apiOf, type Call, shoot } from '../support/web-accounts.js';

// The sign-up and log-in forms say why the service refuses, in its own sentence: a sign-up the
// policy refuses (403 signup_closed: here SIGNUP_DOMAINS), a disabled account's log-in (403
// account_disabled). Once, with SQLite, like the other browser tests.
const skip = TEST_DB !== 'sqlite' && 'the browser tests run once, with the SQLite suite';

const PASSWORD = 'a-long-password';

describe('refusals of the sign-up and log-in forms', { skip }, () => {
  let service: RunningService;
  let browser: Browser;
  let api: Call;
  let visitor: Page;
  const contexts: BrowserContext[] = [];
  const pageErrors: string[] = [];
  const stamp = Date.now();

  before(async () => {
    service = await startService({ SIGNUP_DOMAINS: 'example.org' });
    browser = await launchBrowser();
    api = apiOf(service);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    contexts.push(context);
    visitor = await context.newPage();
    visitor.on('pageerror', (error) => pageErrors.push(error.message));
  });
  after(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await service?.stop();
  });

  test("a sign-up the policy refuses shows the service's sentence", async () => {
    const email = `eve-${stamp}@example.com`;
    // What the service says to a script, for the page to show the same.
    const refusal = await api('POST', '/api/auth/signup', { email: `other-${email}`, password: PASSWORD });
    assert.equal(refusal.status, 403);
    assert.equal(refusal.body.error, 'signup_closed');
    const sentence = refusal.body.message as string;

    await visitor.goto(service.url);
    await visitor.getByRole('tab', { name: 'Sign up' }).click();
    await visitor.getByLabel('E-mail').fill(email);
    await visitor.getByLabel('Password').fill(PASSWORD);
    await visitor.getByRole('button', { name: 'Create account' }).click();
    const alert = visitor.getByRole('alert');
    await alert.waitFor();
    assert.equal((await alert.textContent())!.trim(), sentence);
    assert.equal(await visitor.getByRole('heading', { name: 'Your rooms' }).count(), 0, 'not signed in');
    await shoot(visitor, 'accounts-signup-refused');
  });

  test("a disabled account's log-in shows the service's sentence", async () => {
    const email = `dan-${stamp}@example.org`;
    assert.equal((await api('POST', '/api/auth/signup', { email, password: PASSWORD })).status, 201);
    // Disabled as an instance admin would (the admin's routes are not this test's).
    const db = new Database(path.join(service.dataDir, 'maproom.db'));
    try {
      db.prepare('UPDATE users SET disabled_at = ? WHERE email = ?').run(Date.now(), email);
    } finally {
      db.close();
    }
    const refusal = await api('POST', '/api/auth/login', { email, password: PASSWORD });
    assert.equal(refusal.status, 403);
    assert.equal(refusal.body.error, 'account_disabled');

    await visitor.goto(service.url);
    await visitor.getByRole('tab', { name: 'Log in' }).click();
    await visitor.getByLabel('E-mail').fill(email);
    await visitor.getByLabel('Password').fill(PASSWORD);
    await visitor.getByRole('button', { name: 'Log in' }).last().click();
    const alert = visitor.getByRole('alert');
    await alert.waitFor();
    assert.equal((await alert.textContent())!.trim(), refusal.body.message);
    await shoot(visitor, 'accounts-login-disabled');
    assert.deepEqual(pageErrors, []);
  });
});
