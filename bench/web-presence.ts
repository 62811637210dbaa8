/**
 * Presence latency, part of the web benchmark (bench/web.ts): two browser contexts
 * of the same member open the room; the mouse moves over the map in one, and the time is taken
 * until the other draws the moved cursor (the frame after the cursor's position changed),
 * MOVES times, 200 ms apart (so the page's own pointer throttle never holds one back).
 * Both pages and this process read the same clock (Date.now on one machine).
 */
import type { Browser } from 'playwright-core';
import { ROOM_ID, sleep, type Row } from './harness.js';

const MOVES = 50;
const TARGET_MS = 250;

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.ceil((p / 100) * xs.length) - 1]!;

export async function measurePresenceLatency(
  browser: Browser,
  url: string,
  session: { token: string; user: unknown },
): Promise<{ rows: Row[]; missed: string[] }> {
  const open = async () => {
    // bypassCSP: the page's policy forbids evaluating strings, which the measuring code below is.
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
    await context.addInitScript((saved) => localStorage.setItem('maproom.session', saved), JSON.stringify(session));
    const page = await context.newPage();
    await page.goto(`${url}/r/${ROOM_ID}`);
    await page.locator('[data-testid=map][data-ready=true]').waitFor({ timeout: 120_000 });
    await page.getByText('Live', { exact: true }).waitFor();
    return page;
  };
  const [sender, receiver] = [await open(), await open()];
  try {
    const box = (await sender.getByTestId('map').boundingBox())!;
    const at = (i: number) => ({ x: box.x + 100 + ((i * 37) % 600), y: box.y + 100 + ((i * 53) % 500) });
    // The first move makes the cursor; its position changes are then watched.
    await sender.mouse.move(at(0).x, at(0).y);
    await receiver.locator('[data-testid=presence-cursor]').waitFor({ timeout: 30_000 });
    await receiver.evaluate(`(() => {
      window.cursorDrawn = [];
      const cursor = document.querySelector('[data-testid=presence-cursor]');
      new MutationObserver(() => requestAnimationFrame(() => window.cursorDrawn.push(Date.now())))
        .observe(cursor, { attributes: true, attributeFilter: ['data-lng-lat'] });
    })()`);
    await sleep(300);
    const latencies: number[] = [];
    for (let i = 1; i <= MOVES; i++) {
      const seen = (await receiver.evaluate('window.cursorDrawn.length')) as number;
      const sent = Date.now();
      await sender.mouse.move(at(i).x, at(i).y);
      const drawn = await receiver.waitForFunction(
        `window.cursorDrawn.length > ${seen} && window.cursorDrawn[${seen}]`,
        undefined,
        {
          timeout: 10_000,
          polling: 'raf',
        },
      );
      latencies.push(((await drawn.jsonValue()) as number) - sent);
      await sleep(200);
    }
    const p50 = percentile(latencies, 50);
    const p95 = percentile(latencies, 95);
    console.log(
      `   presence: pointer move to cursor drawn in another browser, ${MOVES} moves: p50 ${p50} ms, p95 ${p95} ms, max ${Math.max(...latencies)} ms`,
    );
    const met = p95 < TARGET_MS;
    return {
      rows: [
        [
          `web: presence pointer move to cursor drawn in another browser, p95 of ${MOVES} (ms)`,
          `${p95} ms (p50 ${p50})`,
          'n/a',
          'n/a',
          `< ${TARGET_MS} ms`,
          met ? 'yes' : 'NO',
        ],
      ],
      missed: met ? [] : [`presence pointer p95 ${p95} ms (target < ${TARGET_MS} ms)`],
    };
  } finally {
    await sender.context().close();
    await receiver.context().close();
  }
}
