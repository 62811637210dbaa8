import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { TEST_OUTPUT, type RunningService } from './browser.js';

/** What the browser tests of the account pages share: the API as a script calls it, mails, screenshots. */

export type Call = (
  method: string,
  url: string,
  body?: unknown,
  token?: string,
) => Promise<{ status: number; body: Record<string, unknown> }>;

/** Calls the service as a script would, with a session token when given. */
export const apiOf =
  (service: RunningService): Call =>
  async (method, url, body, token) => {
    const response = await fetch(`${service.url}${url}`, {
      method,
      headers: {
        ...(token && { Authorization: `Bearer ${token}` }),
        ...(body !== undefined && { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
  };

/**
 * The tokens of the links to `page` (`/reset-password`, `/verify-email`) e-mailed to an address
 * with a subject, oldest first: without SMTP the service writes each mail to its log as it leaves.
 */
export function mailedTokens(service: RunningService, to: string, subject: string, page: string): string[] {
  const link = new RegExp(`${page.replace(/[/]/g, '\\/')}\\?token=([A-Za-z0-9_-]+)`);
  return service
    .output()
    .split('\n')
    .filter((line) => line.includes(`E-mail to ${to} `) && line.includes(subject))
    .map((line) => link.exec(line)?.[1])
    .filter((token): token is string => Boolean(token));
}

/** Waits for the `count`-th such mail (the log is read through a pipe, a moment after the page has its answer). */
export async function mailedToken(
  service: RunningService,
  to: string,
  subject: string,
  page: string,
  count = 1,
): Promise<string> {
  const deadline = Date.now() + 10_000;
  while (mailedTokens(service, to, subject, page).length < count && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 50));
  const tokens = mailedTokens(service, to, subject, page);
  if (tokens.length < count) throw new Error(`no mail "${subject}" to ${to} (${tokens.length} of ${count})`);
  return tokens[count - 1]!;
}

/**
 * A view as a person sees it, on a desktop and on a 390x844 phone: `test-output/<name>.png`,
 * `<name>-phone.png`; `shown`, when given, is scrolled into view first (a room's side panel scrolls
 * by itself, not with the page).
 */
export async function shoot(page: Page, name: string, shown?: Locator) {
  const desktop = page.viewportSize()!;
  await shown?.scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(TEST_OUTPUT, `${name}.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await shown?.scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(TEST_OUTPUT, `${name}-phone.png`), fullPage: true });
  await page.setViewportSize(desktop);
}

/** The session a page keeps (localStorage), or null. */
export const storedSession = (page: Page) =>
  page.evaluate(() => JSON.parse(localStorage.getItem('maproom.session') ?? 'null') as { token: string } | null);
