import path from 'node:path';
import type { Browser, BrowserContextOptions, Locator, Page } from 'playwright-core';
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

/**
 * A new user (signed up through the API, named `name`) with a new room at `view`, open in a page
 * of its own context (`context`: its options, e.g. an emulated position): where the room's
 * browser tests start. Page errors are collected in `errors`.
 */
export async function newUserInRoom(
  browser: Browser,
  service: RunningService,
  room: { roomId: string; name: string; view: { lng: number; lat: number; zoom: number } },
  context: BrowserContextOptions = {},
) {
  const call = apiOf(service);
  const email = `${room.name.toLowerCase()}-${Date.now()}@example.com`;
  const signup = await call('POST', '/api/auth/signup', { email, password: 'a-long-password', name: room.name });
  const token = signup.body.token as string;
  const created = await call('POST', `/api/rooms/${room.roomId}`, { name: room.name, defaultView: room.view }, token);
  if (created.status !== 200) throw new Error(`the room was not created: ${JSON.stringify(created.body)}`);
  const opened = await browser.newContext({ viewport: { width: 1200, height: 800 }, ...context });
  await opened.addInitScript(
    (session) => localStorage.setItem('maproom.session', session),
    JSON.stringify(signup.body),
  );
  const page = await opened.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${service.url}/r/${room.roomId}`);
  await page.locator('[data-testid=map][data-ready=true]').waitFor({ timeout: 30_000 });
  await page.getByRole('tab', { name: 'Markers' }).waitFor();
  /** The room's markers as the API lists them now. */
  const markers = async () =>
    ((await call('GET', `/api/rooms/${room.roomId}/markers`, undefined, token)).body.markers as RoomMarker[]) ?? [];
  return { call, token, context: opened, page, errors, markers };
}

export type RoomMarker = { id: string; title: string; latitude: number; longitude: number };
