import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import sharp from 'sharp';

/**
 * Pieces of the browser story (test/web/browser.test.ts): its pages, which record every dialog
 * and page error, its calls to the API as the owner, and what it reads off the map.
 */

/** A new page in a context of its own, its dialogs accepted and recorded with its page errors. */
export async function storyPage(
  browser: Browser,
  record: { contexts: BrowserContext[]; dialogs: string[] },
  viewport = { width: 1280, height: 800 },
): Promise<Page> {
  const context = await browser.newContext({ viewport });
  record.contexts.push(context);
  const page = await context.newPage();
  page.on('dialog', (dialog) => {
    record.dialogs.push(dialog.message());
    void dialog.accept();
  });
  page.on('pageerror', (error) => record.dialogs.push(`page error: ${error.message}`));
  return page;
}

export interface StoryAnswer {
  status: number;
  body: Record<string, unknown> & { markers?: { id: string; title: string; longitude: number }[] };
}

/** A JSON request to the service with a bearer token. */
export async function apiCall(url: string, token: string, method: string, body?: unknown): Promise<StoryAnswer> {
  const response = await fetch(url, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body !== undefined && { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as StoryAnswer['body'] };
}

/** The centre of the page's map, in page pixels. */
export async function mapCentre(page: Page) {
  const box = (await page.getByTestId('map').boundingBox())!;
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

/**
 * Before the page loads: looks at the first slide's preview (web/src/map/slide-preview.ts) as it
 * is put on the page, and keeps in `window.previewDrawn` how many of its pixels are not the
 * background (the slide's layer and drawing).
 */
export async function countPreviewPixels(page: Page) {
  await page.addInitScript(() => {
    new MutationObserver((changes, observer) => {
      for (const change of changes)
        for (const node of change.addedNodes)
          if (node instanceof HTMLCanvasElement && node.parentElement?.classList.contains('slide-preview')) {
            const { data } = node.getContext('2d')!.getImageData(0, 0, node.width, node.height);
            let drawn = 0;
            for (let i = 0; i < data.length; i += 4)
              if (Math.abs(data[i]! - 0xee) + Math.abs(data[i + 1]! - 0xf0) + Math.abs(data[i + 2]! - 0xee) > 24)
                drawn++;
            (window as unknown as { previewDrawn: number }).previewDrawn = drawn;
            observer.disconnect();
          }
    }).observe(document, { childList: true, subtree: true });
  });
}

/** Waits until the page's map is made and shows the room. */
export const mapReady = (page: Page) => page.locator('[data-testid=map][data-ready=true]').waitFor({ timeout: 30_000 });

/** Logs in on the log-in form a room's address shows, and waits for the room's map. */
export async function logInAt(page: Page, roomUrl: string, email: string, password: string) {
  await page.goto(roomUrl);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).last().click();
  await mapReady(page);
}

/** Scrolls a room's side panel to its end; answers how far it scrolled (0: nothing to scroll). */
export const scrollSideToEnd = (page: Page) =>
  page.locator('.side').evaluate((side) => {
    side.scrollTop = side.scrollHeight;
    return side.scrollTop;
  });

/** How far below the top of the room's side panel `shown` begins (less than 0: above it, out of view). */
export async function belowSideTop(page: Page, shown: Locator) {
  const [side, top] = await Promise.all(
    [page.locator('.side'), shown].map((l) => l.evaluate((el) => el.getBoundingClientRect().top)),
  );
  return top! - side!;
}

/** How many pixels of the room's map, as a screenshot shows it now, are of a colour (`matches`). */
export async function mapPixels(page: Page, matches: (r: number, g: number, b: number) => boolean) {
  const { data, info } = await sharp(await page.getByTestId('map').screenshot())
    .raw()
    .toBuffer({ resolveWithObject: true });
  let count = 0;
  for (let i = 0; i < data.length; i += info.channels) if (matches(data[i]!, data[i + 1]!, data[i + 2]!)) count++;
  return count;
}
