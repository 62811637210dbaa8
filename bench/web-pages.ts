/**
 * What the web benchmark (bench/web.ts) opens in Chromium, and how it times a page: the bare
 * MapLibre page it compares against, and the time from navigation to a page's User Timing mark.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { ROOT } from './harness.js';

export interface View {
  lat: number;
  lng: number;
  zoom: number;
}

/**
 * The peer: a page with nothing but MapLibre (the same version, from node_modules) and the
 * base style Maproom's pages start from with `BASEMAPS=none` (a background), at `view`. Its
 * mark `bare:map-loaded` is MapLibre's `load`: the style loaded and the first frame drawn.
 */
export async function startBarePage(view: View) {
  const dist = path.join(ROOT, 'node_modules', 'maplibre-gl', 'dist');
  const files: Record<string, [string, Buffer]> = {
    '/maplibre-gl.mjs': ['text/javascript', readFileSync(path.join(dist, 'maplibre-gl.mjs'))],
    '/maplibre-gl-worker.mjs': ['text/javascript', readFileSync(path.join(dist, 'maplibre-gl-worker.mjs'))],
    '/maplibre-gl.css': ['text/css', readFileSync(path.join(dist, 'maplibre-gl.css'))],
  };
  const style = {
    version: 8,
    sources: {},
    layers: [{ id: 'background', type: 'background', paint: { 'background-color': '#eef0ee' } }],
  };
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Bare MapLibre</title>
<link rel="stylesheet" href="/maplibre-gl.css">
<style>html, body, #map { margin: 0; height: 100%; }</style></head>
<body><div id="map"></div>
<script type="module">
import { Map, setWorkerUrl } from '/maplibre-gl.mjs';
setWorkerUrl('/maplibre-gl-worker.mjs');
const map = new Map({ container: 'map', style: ${JSON.stringify(style)}, center: [${view.lng}, ${view.lat}], zoom: ${view.zoom} });
map.once('load', () => performance.mark('bare:map-loaded'));
</script></body></html>`;
  files['/'] = ['text/html; charset=utf-8', Buffer.from(html)];
  const server = createServer((request, response) => {
    const file = files[request.url ?? ''];
    if (!file) return void response.writeHead(404).end();
    response.writeHead(200, { 'Content-Type': file[0], 'Content-Length': file[1].length }).end(file[1]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface Opening {
  /** Milliseconds from navigation start to the mark. */
  ms: number;
  /** Where the time went, from the page's resource timings. */
  phases: string;
  page: Page;
  close: () => Promise<void>;
}

/** A phone's viewport in CSS px. */
export const PHONE = { width: 390, height: 844 };

/**
 * Opens `url` in a fresh context (with the saved session when given) and waits for the User
 * Timing `mark`. `hangTiles`: requests to other hosts (the base map's tile servers) answer
 * nothing for that many ms, then fail, as on a machine whose DNS or connections hang.
 */
export async function openToMark(
  browser: Browser,
  url: string,
  mark: string,
  options: { session?: string; hangTiles?: number; phone?: boolean } = {},
): Promise<Opening> {
  // bypassCSP: the page's policy forbids evaluating strings, which the measuring code below is.
  // A phone: its CSS viewport, touch and a mobile browser's layout (at 1 device px per CSS px, as the desktop).
  const context = await browser.newContext({
    viewport: options.phone ? PHONE : { width: 1280, height: 800 },
    ...(options.phone && { isMobile: true, hasTouch: true }),
    bypassCSP: true,
  });
  if (options.session)
    await context.addInitScript((saved) => localStorage.setItem('maproom.session', saved), options.session);
  if (options.hangTiles) {
    const origin = new URL(url).origin;
    const hang = options.hangTiles;
    await context.route(
      (address) => address.origin !== origin,
      (route) => setTimeout(() => void route.abort('timedout').catch(() => undefined), hang),
    );
  }
  const page = await context.newPage();
  await page.goto(url);
  const ms = await markTime(page, mark);
  const phases = (await page.evaluate(`(() => {
    const r = performance.getEntriesByType('resource');
    const end = (part) => Math.round(Math.max(0, ...r.filter((e) => e.name.includes(part)).map((e) => e.responseEnd)));
    const start = (part) => Math.round(Math.min(1e9, ...r.filter((e) => e.name.includes(part)).map((e) => e.startTime)));
    const api = r.filter((e) => e.name.includes('/api/'));
    return 'scripts ' + Math.round(Math.max(...r.filter((e) => e.initiatorType === 'script' || e.name.endsWith('.js') || e.name.endsWith('.mjs')).map((e) => e.responseEnd))) +
      (api.length ? ', first API request ' + start('/api/') + ', feed answered ' + end('/markers/feed') + ', last API answer ' + Math.round(Math.max(...api.map((e) => e.responseEnd))) : '');
  })()`)) as string;
  return { ms, phases, page, close: () => context.close() };
}

/** Milliseconds from navigation start to the page's User Timing `mark`, once it is made. */
export async function markTime(page: Page, mark: string): Promise<number> {
  // Page code as text: tsx would wrap named functions in a helper the page does not have.
  const marked = await page.waitForFunction(
    `(() => performance.getEntriesByName(${JSON.stringify(mark)})[0]?.startTime)()`,
    undefined,
    { timeout: 120_000, polling: 50 },
  );
  return (await marked.jsonValue()) as number;
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
