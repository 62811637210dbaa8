import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { TEST_DB } from '../helpers.js';
import { launchBrowser, startService, type RunningService } from '../support/browser.js';
import { apiOf, type Call, mailedToken, shoot, storedSession } from '../support/web-accounts.js';

// The account pages in Debian's Chromium against the real service: "Forgot password?" and the
// reset link's page (a used link says so and asks again in place), the account page's password
// and address changes. Once, with SQLite, like the other browser tests.
const skip = TEST_DB !== 'sqlite' && 'the browser tests run once, with the SQLite suite';

const PASSWORD = 'a-long-password';
const RESET = 'Reset your Maproom password';

describe('account recovery and the account page', { skip }, () => {
  let service: RunningService;
  let browser: Browser;
  let api: Call;
  let ann: Page;
  const contexts: BrowserContext[] = [];
  const pageErrors: string[] = [];
  const stamp = Date.now();
  let annEmail = `ann-${stamp}@example.com`;
  let password = PASSWORD;

  const page = async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    contexts.push(context);
    const p = await context.newPage();
    p.on('pageerror', (error) => pageErrors.push(error.message));
    return p;
  };
  const logIn = async (p: Page, email: string, secret: string) => {
    await p.getByLabel('E-mail').fill(email);
    await p.getByLabel('Password', { exact: true }).fill(secret);
    await p.getByRole('button', { name: 'Log in' }).last().click();
    await p.getByRole('heading', { name: 'Your rooms' }).waitFor();
  };
  const statusOf = (p: Page) => p.getByRole('status').textContent();

  before(async () => {
    service = await startService({ VERIFICATION_RESEND_SECONDS: '0' });
    browser = await launchBrowser();
    api = apiOf(service);
    const signup = await api('POST', '/api/auth/signup', { email: annEmail, password, name: 'Ann' });
    assert.equal(signup.status, 201);
  });
  after(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await service?.stop();
  });

  test('"Forgot password?" answers the same words for any address, and mails a link to an account\'s', async () => {
    ann = await page();
    await ann.goto(service.url);
    await ann.getByRole('link', { name: 'Forgot password?' }).click();
    await ann.getByRole('heading', { name: 'Forgot your password?' }).waitFor();
    assert.equal(new URL(ann.url()).pathname, '/forgot-password');
    await shoot(ann, 'accounts-forgot-password');

    const ask = async (address: string) => {
      const answered = ann.waitForResponse((r) => new URL(r.url()).pathname === '/api/auth/password-reset');
      await ann.getByLabel('E-mail').fill(address);
      await ann.getByRole('button', { name: /Send (me a|another) link/ }).click();
      assert.equal((await answered).status(), 202);
      await ann.getByRole('status').waitFor();
      return statusOf(ann);
    };
    const unknown = await ask(`nobody-${stamp}@example.com`);
    const known = await ask(annEmail);
    assert.match(known!, /^If an account exists for that address, a link is on its way/);
    assert.equal(unknown, known, 'the page tells nobody whether the address has an account');
    await shoot(ann, 'accounts-forgot-password-sent');
    await mailedToken(service, annEmail, RESET, '/reset-password');
  });

  test('the link sets a new password once: signed out everywhere, then signed in with it; used again, it says so and asks again in place', async () => {
    // Ann is signed in on another computer: the reset ends that session too.
    const elsewhere = (await api('POST', '/api/auth/login', { email: annEmail, password })).body.token as string;
    const token = await mailedToken(service, annEmail, RESET, '/reset-password');
    await ann.goto(`${service.url}/reset-password?token=${token}`);
    const field = ann.getByLabel('New password', { exact: true });
    await field.waitFor();
    // The page takes the secret off the address bar and history once it has read it.
    await ann.waitForURL((url) => url.search === '');
    await field.fill('a-newer-password');
    assert.equal(await field.getAttribute('type'), 'password');
    await ann.getByRole('button', { name: 'Show new password' }).click();
    assert.equal(await field.getAttribute('type'), 'text', 'shown: typed once, read back');
    assert.equal(await field.inputValue(), 'a-newer-password', 'the text stays when shown');
    await shoot(ann, 'accounts-reset-password');
    await ann.getByRole('button', { name: 'Set the new password' }).click();
    await ann.getByRole('heading', { name: 'Your password is changed' }).waitFor();
    await ann.getByRole('status').filter({ hasText: 'Every session of your account has ended' }).waitFor();
    assert.equal((await api('GET', '/api/auth/me', undefined, elsewhere)).status, 401, 'the other session ended');
    await shoot(ann, 'accounts-reset-password-done');
    password = 'a-newer-password';
    await logIn(ann, annEmail, password);

    // The same link again: refused in words, and a new one is asked for on the same page.
    await ann.goto(`${service.url}/reset-password?token=${token}`);
    await ann.getByLabel('New password', { exact: true }).fill('yet-another-password');
    await ann.getByRole('button', { name: 'Set the new password' }).click();
    await ann.getByRole('alert').filter({ hasText: 'This link has expired or was already used' }).waitFor();
    assert.equal((await api('POST', '/api/auth/login', { email: annEmail, password })).status, 200, 'unchanged');
    await shoot(ann, 'accounts-reset-password-used');
    await ann.getByLabel('E-mail').fill(annEmail);
    await ann.getByRole('button', { name: 'Send me a link' }).click();
    await ann.getByRole('status').filter({ hasText: 'If an account exists for that address' }).waitFor();
    await mailedToken(service, annEmail, RESET, '/reset-password', 2);
  });

  test('the account page: a wrong current password is said in place; the right one changes it', async () => {
    await ann.goto(service.url);
    await ann.getByRole('link', { name: annEmail }).click();
    await ann.getByRole('heading', { name: 'Your account', exact: true }).waitFor();
    assert.equal(new URL(ann.url()).pathname, '/account');
    await shoot(ann, 'accounts-account-page');

    const form = ann.getByRole('form', { name: 'Change your password' });
    await form.getByLabel('Current password', { exact: true }).fill('not-my-password');
    await form.getByLabel('New password', { exact: true }).fill('the-third-password');
    const refused = ann.waitForResponse((r) => new URL(r.url()).pathname === '/api/auth/password');
    await form.getByRole('button', { name: 'Change password' }).click();
    assert.equal((await refused).status(), 403, 'a wrong password is not a lost session');
    await form.getByRole('alert').filter({ hasText: 'The current password is wrong' }).waitFor();
    assert.equal(await ann.getByRole('dialog').count(), 0, 'no sign-in dialog: the session is fine');
    await shoot(ann, 'accounts-wrong-password');

    await form.getByLabel('Current password', { exact: true }).fill(password);
    await form.getByRole('button', { name: 'Change password' }).click();
    await form.getByRole('status').filter({ hasText: 'Your password is changed' }).waitFor();
    password = 'the-third-password';
    assert.equal((await api('POST', '/api/auth/login', { email: annEmail, password })).status, 200);
    const { token } = (await storedSession(ann))!;
    assert.equal((await api('GET', '/api/auth/me', undefined, token)).status, 200, 'this session goes on');
  });

  test('the account page changes the address once the link to the new one is followed', async () => {
    const newEmail = `ann-new-${stamp}@example.com`;
    const form = ann.getByRole('form', { name: 'Change your e-mail address' });
    await form.getByLabel('New e-mail address').fill(newEmail);
    await form.getByLabel('Password', { exact: true }).fill('not-my-password');
    await form.getByRole('button', { name: 'Change e-mail address' }).click();
    await form.getByRole('alert').filter({ hasText: 'The current password is wrong' }).waitFor();
    await form.getByLabel('Password', { exact: true }).fill(password);
    await form.getByRole('button', { name: 'Change e-mail address' }).click();
    const said = form.getByRole('status');
    await said.waitFor();
    assert.match((await said.textContent())!, new RegExp(`Check ${newEmail} for a link`));
    await shoot(ann, 'accounts-email-change-sent');

    const link = await mailedToken(service, newEmail, '', '/verify-email');
    await ann.goto(`${service.url}/verify-email?token=${link}`);
    await ann.getByText(`You sign in with ${newEmail}`, { exact: false }).waitFor();
    await ann.goto(service.url);
    await ann.getByRole('link', { name: newEmail }).waitFor();
    annEmail = newEmail;
    assert.equal((await api('POST', '/api/auth/login', { email: annEmail, password })).status, 200);
  });

  test('a phone shows the account page whole', async () => {
    await ann.goto(`${service.url}/account`);
    await ann.getByRole('heading', { name: 'Delete your account' }).waitFor();
    await shoot(ann, 'accounts-account-page-after');
    assert.deepEqual(pageErrors, []);
  });
});
