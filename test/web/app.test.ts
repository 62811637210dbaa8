import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { assertError, buildTestApp, type Response, type TestApp, uniqueRoomId } from '../helpers.js';

/**
 * The web application as the service serves it (src/http/web-app.ts): its pages answer the
 * built index.html with the install's configuration written in as data and a strict
 * Content-Security-Policy; its files are served with a long, immutable cache life; the
 * interface's own answers are not touched. The application is "built" here into a temporary
 * directory (`webDir`) holding the smallest index.html and one script.
 */

const PAGES = [
  '/',
  `/r/${uniqueRoomId()}`,
  `/p/${uniqueRoomId()}`,
  '/verify-email?token=abc',
  '/signed-in',
  '/admin',
  '/forgot-password',
  '/reset-password?token=abc',
  '/account',
];
const SCRIPT = 'console.log("maproom");\n';
const INDEX = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>Maproom</title>
    <!--maproom-config-->
    <script type="module" src="/assets/app.js"></script>
  </head>
  <body><div id="app"></div></body>
</html>
`;

const dirs: string[] = [];
/** A temporary web directory: index.html and assets/app.js unless `built` is false (an empty directory). */
function webDir(built = true) {
  const dir = mkdtempSync(path.join(tmpdir(), 'maproom-web-'));
  dirs.push(dir);
  if (built) {
    mkdirSync(path.join(dir, 'assets'));
    writeFileSync(path.join(dir, 'index.html'), INDEX);
    writeFileSync(path.join(dir, 'assets', 'app.js'), SCRIPT);
  }
  return dir;
}

let builtin: TestApp;
let offline: TestApp;
let unbuilt: TestApp;
before(async () => {
  builtin = await buildTestApp({ webDir: webDir() });
  offline = await buildTestApp({ webDir: webDir(), basemaps: 'none', trustProxy: true });
  unbuilt = await buildTestApp({ webDir: webDir(false) });
});
after(async () => {
  await Promise.all([builtin, offline, unbuilt].map((t) => t?.close()));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const get = (t: TestApp, url: string) => t.app.inject({ method: 'GET', url }) as Promise<Response>;

/** The Content-Security-Policy's directives by name, each with its sources. */
function policy(res: Response): Map<string, string[]> {
  const header = res.headers['content-security-policy'];
  assert.equal(typeof header, 'string', 'a Content-Security-Policy header');
  return new Map(
    (header as string)
      .split(';')
      .map((directive) => directive.trim().split(/\s+/))
      .filter((parts) => parts[0])
      .map(([name, ...sources]) => [name!, sources]),
  );
}

/** The page's configuration block, parsed. */
function pageConfig(res: Response): { baseLayers: Array<{ id: string; tiles: string | null }> } {
  const match = /<script type="application\/json" id="maproom-config">(.*?)<\/script>/s.exec(res.body);
  assert.ok(match, `the page holds the configuration block: ${res.body}`);
  return JSON.parse(match[1]!);
}

/** A page: 200 HTML, its security headers, and the policy's directives. */
function assertPage(res: Response, url: string) {
  assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
  assert.match(String(res.headers['content-type']), /^text\/html/, url);
  assert.equal(res.headers['x-content-type-options'], 'nosniff', url);
  const csp = policy(res);
  const scripts = csp.get('script-src') ?? csp.get('default-src');
  assert.deepEqual(scripts, ["'self'"], `${url}: scripts only from the service`);
  assert.ok(![...csp.values()].some((sources) => sources.includes("'unsafe-eval'")), `${url}: no eval`);
  assert.deepEqual(csp.get('object-src'), ["'none'"], url);
  assert.deepEqual(csp.get('frame-ancestors'), ["'none'"], url);
  // Frames: only the video players a marker's embeddedMediaUrl is shown in (web/src/ui/media-embed.ts).
  assert.deepEqual(
    csp.get('frame-src'),
    ["'self'", 'https://www.youtube-nocookie.com', 'https://player.vimeo.com'],
    url,
  );
  return csp;
}

describe('the pages of the web application', () => {
  test('every page answers the built index.html with its configuration and a strict policy', async () => {
    for (const url of PAGES) {
      const res = await get(builtin, url);
      const csp = assertPage(res, url);
      assert.match(res.body, /<div id="app"><\/div>/, url);
      assert.match(res.body, /<script type="module" src="\/assets\/app.js">/, url);
      assert.ok(!res.body.includes('<!--maproom-config-->'), `${url}: the marker is replaced`);
      const { baseLayers } = pageConfig(res);
      assert.equal(baseLayers[0]!.id, 'osm', `${url}: OpenStreetMap first`);
      assert.equal(baseLayers[0]!.tiles, 'https://tile.openstreetmap.org/{z}/{x}/{y}.png');
      assert.ok(
        baseLayers.some((layer) => layer.id === 'blank'),
        `${url}: a blank map too`,
      );
      // The tile servers of the base layers may be fetched, as images or by the map's workers.
      for (const directive of ['img-src', 'connect-src']) {
        assert.ok(
          csp.get(directive)?.includes('https://tile.openstreetmap.org'),
          `${url}: ${directive} ${csp.get(directive)}`,
        );
        assert.ok(csp.get(directive)?.includes("'self'"), `${url}: ${directive}`);
      }
    }
  });

  test("HEAD answers a page's headers", async () => {
    const res = (await builtin.app.inject({ method: 'HEAD', url: '/' })) as Response;
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.ok(res.headers['content-security-policy']);
  });

  test("with basemaps 'none' the base layers are the offline map and the blank one, and the policy names no tile server", async () => {
    // Only the schemes a room's own base maps may use (the page is served over http here, so http: too).
    for (const url of PAGES) {
      const res = await get(offline, url);
      const csp = assertPage(res, url);
      assert.deepEqual(
        pageConfig(res).baseLayers.map((layer) => layer.id),
        ['offline', 'blank'],
        url,
      );
      for (const directive of ['img-src', 'connect-src']) {
        assert.deepEqual(
          csp.get(directive)!.filter((source) => /^https?:/.test(source)),
          ['https:', 'http:'],
          `${url}: ${directive} ${csp.get(directive)}`,
        );
      }
    }
  });

  test("a room's base map from any https address may load: img-src and connect-src allow https:, and http: only on an http page", async () => {
    const http = policy(await get(offline, PAGES[1]!));
    const https = policy(
      (await offline.app.inject({
        method: 'GET',
        url: PAGES[1]!,
        headers: { 'x-forwarded-proto': 'https' },
      })) as Response,
    );
    for (const directive of ['img-src', 'connect-src']) {
      assert.ok(http.get(directive)!.includes('https:') && http.get(directive)!.includes('http:'), directive);
      assert.ok(https.get(directive)!.includes('https:'), directive);
      assert.ok(!https.get(directive)!.includes('http:'), `${directive} over https: ${https.get(directive)}`);
    }
  });

  test("a room's page for an id no room can have is 404 with the JSON error body", async () => {
    for (const url of ['/r/bad', '/p/bad', '/r/toolongroomid', '/r/bad.room.1']) {
      const res = await get(builtin, url);
      assertError(res, 404, 'not_found');
      assert.match(String(res.headers['content-type']), /^application\/json/, url);
    }
  });

  test('without a built index.html the page says the application is not built, and how to build it', async () => {
    for (const url of PAGES) {
      const res = await get(unbuilt, url);
      assert.equal(res.statusCode, 200, url);
      assert.match(String(res.headers['content-type']), /^text\/html/, url);
      assert.match(res.body, /not built/, url);
      assert.match(res.body, /npm run build/, url);
    }
    assertError(await get(unbuilt, '/assets/app.js'), 404, 'not_found');
  });
});

describe('the files of the web application', () => {
  test('an asset answers its bytes, its content type and an immutable cache life', async () => {
    const res = await get(builtin, '/assets/app.js');
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.body, SCRIPT);
    assert.match(String(res.headers['content-type']), /^(application|text)\/javascript/);
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    const cache = String(res.headers['cache-control']);
    assert.match(cache, /\bimmutable\b/);
    assert.match(cache, /\bmax-age=31536000\b/);
  });

  test('an unknown asset, and a path out of the assets, are 404', async () => {
    assertError(await get(builtin, '/assets/nope.js'), 404, 'not_found');
    const outside = await get(builtin, '/assets/..%2Findex.html');
    assert.ok([403, 404].includes(outside.statusCode), `${outside.statusCode} ${outside.body}`);
    assert.ok(!outside.body.includes('maproom-config'), 'index.html is not served from /assets');
  });
});

describe('the interface is not the web application', () => {
  test('unknown interface paths answer the JSON 404, not the page', async () => {
    for (const url of ['/api/nope', '/api/rooms/nope/nope/nope', '/nope', '/r']) {
      const res = await get(builtin, url);
      assertError(res, 404, 'not_found');
      assert.ok(!res.body.includes('<!doctype html>'), url);
    }
  });

  test('interface answers stay JSON', async () => {
    const res = await get(builtin, '/api/health');
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
  });
});
