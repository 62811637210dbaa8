/**
 * Places: `GET /api/geocode?q=` asks the geocoder GEOCODER_URL names, here a small server on
 * 127.0.0.1 that answers in Nominatim's JSON or Photon's GeoJSON (the real ones need the
 * internet); its failures (an HTTP error, a text that is not JSON, another JSON, no answer in
 * time, nobody listening) are 502 `geocoder_failed`, never 500. Without GEOCODER_URL: 404
 * `not_configured`, and the page is told there is none. Signed-in users only; rate-limited.
 * Decisions: docs/decisions.md ("Find").
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import { AppError } from '../../src/errors.js';
import { webConfigOf } from '../../src/http/web-app.js';
import { Geocoder } from '../../src/modules/search/geocoder.js';
import {
  assertError,
  assertFieldError,
  assertOk,
  call,
  issueToken,
  scaffold,
  type TestApp,
  type Users,
} from '../helpers.js';

const NOMINATIM = [
  {
    lat: '46.9480',
    lon: '7.4474',
    display_name: 'Bern, Switzerland',
    boundingbox: ['46.919', '46.990', '7.294', '7.495'],
  },
  { lat: 'not a number', lon: '7', display_name: 'Broken' },
];
const PHOTON = {
  type: 'FeatureCollection',
  features: [
    {
      type: 'Feature',
      geometry: { type: 'Point', coordinates: [7.4474, 46.948] },
      properties: { name: 'Bern', state: 'Bern', country: 'Switzerland', extent: [7.294, 46.99, 7.495, 46.919] },
    },
  ],
};

let upstream: Server;
/** The last query the geocoder received. */
let asked: URLSearchParams | null = null;
let t: TestApp;
let users: Users;
let room: string;
let off: TestApp;
let offUser: string;

before(async () => {
  // Answers by the text asked: the format, or the failure, it names.
  upstream = createServer((req, res) => {
    asked = new URL(req.url ?? '/', 'http://x').searchParams;
    const q = asked.get('q') ?? '';
    const json = (body: unknown) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (q.startsWith('nominatim')) json(NOMINATIM);
    else if (q.startsWith('photon')) json(PHOTON);
    else if (q === 'error') res.writeHead(503).end('busy');
    else if (q === 'html') res.writeHead(200, { 'content-type': 'text/html' }).end('<html>');
    else if (q === 'other') json({ places: [] });
    else if (q === 'slow') setTimeout(() => json(NOMINATIM), 2000);
    else if (q === 'huge') {
      // A stream of places without end (no length declared): read up to the bound, then dropped.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[');
      const more = () => {
        if (res.destroyed) return;
        if (res.write(`${JSON.stringify(NOMINATIM[0])},`.repeat(200))) setImmediate(more);
        else res.once('drain', more);
      };
      more();
    } else if (q === 'declared') res.writeHead(200, { 'content-length': String(5 * 1024 * 1024) }).end('[]');
    else json([]);
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const port = (upstream.address() as AddressInfo).port;
  ({ t, users, room } = await scaffold({
    config: { geocoderUrl: `http://127.0.0.1:${port}/search?format=jsonv2`, geocoderTimeoutMs: 300 },
  }));
  const unconfigured = await scaffold({ users: ['owner'], rooms: [], config: { geocoderRateLimitPerMinute: 2 } });
  off = unconfigured.t;
  offUser = unconfigured.users.owner.token;
});
after(async () => {
  await t?.close();
  await off?.close();
  upstream?.closeAllConnections();
  await new Promise((resolve) => upstream?.close(resolve));
});

const geocode = (q: string, auth: string | null = users.viewer.token, app = t.app) =>
  call(app, 'GET', `/api/geocode?${new URLSearchParams({ q })}`, { ...(auth !== null && { auth }) });

describe('GET /api/geocode', () => {
  test("Nominatim's answer: name, position and bbox as numbers; entries without a position left out", async () => {
    assert.deepEqual(assertOk(await geocode(' nominatim Bern ')).results, [
      { name: 'Bern, Switzerland', lon: 7.4474, lat: 46.948, bbox: [7.294, 46.919, 7.495, 46.99] },
    ]);
    assert.equal(asked?.get('q'), 'nominatim Bern', 'the text is trimmed');
    assert.equal(asked?.get('format'), 'jsonv2', "the address's own parameters are kept");
    assert.equal(asked?.get('limit'), '8');
  });

  test("Photon's GeoJSON: the name made of its parts, its extent as bbox", async () => {
    assert.deepEqual(assertOk(await geocode('photon Bern')).results, [
      { name: 'Bern, Switzerland', lon: 7.4474, lat: 46.948, bbox: [7.294, 46.919, 7.495, 46.99] },
    ]);
  });

  test('a failing, strange or slow geocoder is 502 geocoder_failed saying why', async () => {
    const why = async (q: string) => assertError(await geocode(q), 502, 'geocoder_failed').message;
    assert.match(await why('error'), /HTTP 503/);
    assert.match(await why('html'), /not JSON/);
    assert.match(await why('other'), /neither Nominatim JSON nor Photon GeoJSON/);
    assert.match(await why('slow'), /no answer within 300 ms/);
    assert.match(await why('huge'), /over 512 kB/);
    assert.match(await why('declared'), /over 512 kB/);
  });

  test('signed-in users only: the anonymous 401, a room token 403; q checked', async () => {
    assertError(await geocode('nominatim', null), 401, 'unauthorized');
    const { token } = await issueToken(t.app, users.owner, room, ['read']);
    assert.equal((await geocode('nominatim', token)).statusCode, 403);
    assertFieldError(await geocode('  '), 'q');
    assertFieldError(await geocode('x'.repeat(201)), 'q');
  });

  test('without GEOCODER_URL: 404 not_configured, the page is told so; searches are rate-limited', async () => {
    assert.equal(webConfigOf(off.config).geocoder, false);
    assert.equal(webConfigOf(t.config).geocoder, true);
    assertError(await geocode('bern', offUser, off.app), 404, 'not_configured');
    assertError(await geocode('bern', offUser, off.app), 404, 'not_configured');
    assertError(await geocode('bern', offUser, off.app), 429, 'too_many_requests');
  });
});

test('a GEOCODER_URL that is no address is refused at start, not a 500 per search', () => {
  assert.throws(() => loadConfig({ GEOCODER_URL: 'http://[::1' }), ConfigError);
});

test('nobody listening at GEOCODER_URL is 502 geocoder_failed (what the route answers), not a crash', async () => {
  await assert.rejects(new Geocoder('http://127.0.0.1:9/search', 1000).search('bern'), (error: unknown) => {
    assert.ok(error instanceof AppError);
    assert.equal(error.statusCode, 502);
    assert.equal(error.code, 'geocoder_failed');
    assert.match(error.message, /could not be reached/);
    return true;
  });
});
