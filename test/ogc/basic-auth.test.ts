/**
 * A room token as the password of HTTP Basic, for GIS clients that send nothing else (QGIS
 * 3.22, ArcGIS, `curl -u`): taken like `Bearer <room token>` on the OGC API and the vector and
 * raster tiles, with any user name; refused (401, with the reason) on every other route, for
 * anything but a room token, and for a wrong one; a 401 of those routes challenges for it.
 * GDAL reads a private room's OGC API with it over a real TCP port.
 * Contract: docs/decisions.md ("HTTP Basic for GIS clients").
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import {
  assertError,
  assertOk,
  basicAuthorization,
  call,
  issueToken,
  type Response,
  scaffold,
  TOKEN_ERRORS,
  type TestApp,
  type Users,
} from '../helpers.js';
import { createInlineLayer } from '../support/layers.js';
import { gdal } from '../support/ogc.js';
import { makeUploadFixtures, newRaster, tilePath } from '../support/rasters.js';

const BASIC_CHALLENGE = 'Basic realm="Maproom"';
const BEARER_CHALLENGE = 'Bearer realm="Maproom"';
const ONLY_ROOM_TOKENS =
  'The password of HTTP Basic must be a room API token (mrt_…); send embed keys and sessions as "Authorization: Bearer <token>"';
const MALFORMED = 'The Authorization header must be "Basic <base64 of name:password>", the password a room API token';

let t: TestApp;
let users: Users;
let room: string;
let otherRoom: string;
let publicRoom: string;
let base: string;
let reader: string;
let writer: string;
let foreign: string;
let embedKey: string;
let fixtures: ReturnType<typeof makeUploadFixtures>;
/** The routes GIS clients read, on the private room: OGC API, a vector tile, a raster tile. */
let gisUrls: string[];
let layerId: string;

before(async () => {
  fixtures = makeUploadFixtures();
  let wsBase: string;
  ({ t, users, room, otherRoom, publicRoom, wsBase } = await scaffold({
    rooms: ['room', 'otherRoom', 'publicRoom'],
    listen: true,
  }));
  base = wsBase.replace(/^ws/, 'http');
  reader = (await issueToken(t.app, users.owner, room, ['read'])).token;
  writer = (await issueToken(t.app, users.owner, room, ['write', 'upload'])).token;
  foreign = (await issueToken(t.app, users.owner, otherRoom, ['read', 'write', 'upload'])).token;
  embedKey = assertOk(
    await call(t.app, 'POST', `/api/rooms/${room}/embed-keys`, {
      auth: users.owner.token,
      body: { name: 'Embed', expiresInDays: 30 },
    }),
    201,
  ).key;
  layerId = (await createInlineLayer(t.app, room, users.owner.token)).id;
  const raster = await newRaster(t.app, room, users.owner.token, fixtures.file('grid-2056.tif'));
  assertOk(
    await call(t.app, 'POST', `/api/rooms/${room}/markers`, {
      auth: users.owner.token,
      body: { latitude: 46.95, longitude: 7.45, title: 'Bern' },
    }),
    201,
  );
  const ogc = `/api/rooms/${room}/ogc`;
  gisUrls = [
    ogc,
    `${ogc}/conformance`,
    `${ogc}/api`,
    `${ogc}/collections`,
    `${ogc}/collections/${layerId}`,
    `${ogc}/collections/markers/items?limit=5`,
    `${ogc}/collections/${layerId}/items`,
    `/api/layers/${layerId}/tiles/0/0/0.mvt`,
    tilePath(room, raster.id, raster.maxZoom, 0, 0),
  ];
});
after(async () => {
  await t?.close();
  fixtures?.remove();
});

const basic = basicAuthorization;
const get = (url: string, authorization?: string, headers: Record<string, string> = {}) =>
  call(t.app, 'GET', url, { headers: { ...headers, ...(authorization !== undefined && { authorization }) } });
/** What an answer says, for comparing a Basic answer with a Bearer one (an items page's `timeStamp` aside). */
const answerOf = (res: Response) => ({
  status: res.statusCode,
  type: res.headers['content-type'],
  body: createHash('sha256')
    .update(res.rawPayload.toString('latin1').replace(/"timeStamp":"[^"]*"/, ''), 'latin1')
    .digest('hex'),
});

describe('on the OGC API and the tiles', () => {
  test('a room token as the Basic password, with any user name (also none), reads what Bearer reads', async () => {
    for (const url of gisUrls) {
      const bearer = await get(url, `Bearer ${reader}`);
      assert.equal(bearer.statusCode, 200, `${url}: ${bearer.body.slice(0, 200)}`);
      for (const name of ['any', '', 'QGIS user', 'é-ü ☃']) {
        const res = await get(url, basic(name, reader));
        assert.deepEqual(answerOf(res), answerOf(bearer), `${url} as Basic with the name "${name}"`);
        assert.equal(res.headers['www-authenticate'], undefined, 'no challenge on a success');
      }
    }
    // The scheme's name is case-insensitive, and unpadded base64 is taken too (RFC 7617 token68).
    const unpadded = `basic ${Buffer.from(`ab:${reader}`).toString('base64').replace(/=+$/, '')}`;
    assert.equal((await get(gisUrls[0]!, unpadded)).statusCode, 200);
  });

  test("the token's permissions and room apply as they do to Bearer", async () => {
    for (const url of gisUrls) {
      for (const token of [writer, foreign]) {
        const bearer = await get(url, `Bearer ${token}`);
        assert.ok([403, 404].includes(bearer.statusCode), `${url}: ${bearer.statusCode} ${bearer.body}`);
        assert.deepEqual(answerOf(await get(url, basic('any', token))), answerOf(bearer), url);
      }
    }
    // As Bearer: a write-only token lacks read; another room's token is not scoped to this one.
    const landing = gisUrls[0]!;
    assertError(await get(landing, basic('any', writer)), 403, 'forbidden', TOKEN_ERRORS.lacksRead);
    assertError(await get(landing, basic('any', foreign)), 403, 'forbidden', TOKEN_ERRORS.wrongRoom);
    // The other room's token reads its own room.
    assert.equal((await get(`/api/rooms/${otherRoom}/ogc/collections`, basic('any', foreign))).statusCode, 200);
  });

  test('a password that is not a valid room token is 401, as a bad Bearer token, with a Basic challenge', async () => {
    const revoked = await issueToken(t.app, users.owner, room, ['read']);
    assertOk(await call(t.app, 'DELETE', `/api/rooms/${room}/api-tokens/${revoked.id}`, { auth: users.owner.token }));
    const unknown = `mrt_${'x'.repeat(43)}`;
    for (const url of gisUrls) {
      for (const token of [unknown, revoked.token, `${reader}x`]) {
        const res = await get(url, basic('any', token));
        assertError(res, 401, 'unauthorized', TOKEN_ERRORS.invalid);
        assert.equal(res.headers['www-authenticate'], BASIC_CHALLENGE, url);
        assert.equal((await get(url, `Bearer ${token}`)).json().message, TOKEN_ERRORS.invalid);
      }
      // The password is everything after the first colon: the token with more after it is another secret.
      assertError(await get(url, basic('any', `${reader}:more`)), 401, 'unauthorized', TOKEN_ERRORS.invalid);
    }
  });

  test('only room tokens: an embed key, a session or a plain password as the Basic password is 401', async () => {
    const vectorTile = gisUrls.find((url) => url.endsWith('.mvt'))!;
    // The embed key reads the tile as Bearer; as Basic it is refused.
    assert.equal((await get(vectorTile, `Bearer ${embedKey}`)).statusCode, 200);
    for (const url of gisUrls) {
      for (const password of [embedKey, users.owner.token, 'correct horse', '']) {
        const res = await get(url, basic(users.owner.email, password));
        assertError(res, 401, 'unauthorized', ONLY_ROOM_TOKENS);
        assert.equal(res.headers['www-authenticate'], BASIC_CHALLENGE);
      }
    }
  });

  test('a Basic header that is not base64 of name:password is 401 with its form', async () => {
    const noColon = `Basic ${Buffer.from(reader).toString('base64')}`;
    for (const authorization of ['Basic', 'Basic ', 'Basic !!!!', `Basic ${reader}:x`, noColon, 'Basic a b']) {
      const res = await get(gisUrls[0]!, authorization);
      assertError(res, 401, 'unauthorized', MALFORMED);
      assert.equal(res.headers['www-authenticate'], BASIC_CHALLENGE, authorization);
    }
  });

  test("a 401 challenges for Basic, except to a Bearer credential or a browser page's script", async () => {
    const ogc = gisUrls[0]!;
    const rasterTile = gisUrls.at(-1)!;
    for (const url of [ogc, rasterTile]) {
      const challenge = async (authorization?: string, headers?: Record<string, string>) => {
        const res = await get(url, authorization, headers);
        assertError(res, 401, 'unauthorized');
        return res.headers['www-authenticate'];
      };
      // Nobody: QGIS asks for a name and password, a browser's address bar shows its dialog.
      assert.equal(await challenge(), BASIC_CHALLENGE);
      assert.equal(await challenge(undefined, { 'sec-fetch-mode': 'navigate' }), BASIC_CHALLENGE);
      const framed = { 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'iframe' };
      assert.equal(await challenge(undefined, framed), BEARER_CHALLENGE, "another site's frame asks for nothing");
      // The web application's map loads tiles from a script: a Basic challenge would open a dialog over it.
      assert.equal(await challenge(undefined, { 'sec-fetch-mode': 'cors' }), BEARER_CHALLENGE);
      assert.equal(await challenge('Bearer not.a.jwt'), BEARER_CHALLENGE);
      assert.equal(await challenge(`Bearer mrt_${'y'.repeat(43)}`), BEARER_CHALLENGE);
    }
    // A 403 or 404 is no question of credentials: no challenge.
    const refused = await get(ogc, basic('any', writer));
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.headers['www-authenticate'], undefined);
    // A public room needs no credential, and a valid one still reads it.
    const open = `/api/rooms/${publicRoom}/ogc/collections`;
    assert.equal((await get(open)).statusCode, 200);
    assertError(await get(open, basic('any', reader)), 403, 'forbidden', TOKEN_ERRORS.wrongRoom);
  });
});

describe('on every other route', () => {
  test('Basic is no credential: 401 with the reason, never read as anonymous, without a challenge', async () => {
    const layerData = `/api/layers/${layerId}/features`;
    const urls = [
      `/api/rooms/${room}/markers`,
      `/api/rooms/${room}`,
      `/api/rooms/${room}/raster-layers`,
      `/api/layers/${room}`,
      layerData,
      // A public room that anonymous callers read: a Basic header is still refused.
      `/api/rooms/${publicRoom}/markers`,
      '/api/auth/me',
    ];
    // The same header just read the OGC API (its token's row is cached): elsewhere it is still refused.
    const header = basic('any', reader);
    assert.equal((await get(gisUrls[0]!, header)).statusCode, 200);
    assert.equal((await get(gisUrls[0]!, header)).statusCode, 200);
    assert.equal((await get(`/api/rooms/${publicRoom}/markers`)).statusCode, 200, 'anonymous reads the public room');
    for (const url of urls) {
      for (const authorization of [header, basic('any', embedKey), 'Basic !!!!']) {
        const res = await get(url, authorization);
        assertError(res, 401, 'unauthorized', TOKEN_ERRORS.basicNotHere);
        assert.equal(res.headers['www-authenticate'], undefined, url);
      }
      assert.notEqual((await get(url, `Bearer ${reader}`)).statusCode, 401, `${url} takes the token as Bearer`);
    }
    // A change with Basic is refused before anything is read or stored.
    const before = assertOk(await get(`/api/rooms/${room}/markers`, `Bearer ${reader}`));
    const post = await call(t.app, 'POST', `/api/rooms/${room}/markers`, {
      headers: { authorization: basic('any', writer) },
      body: { latitude: 46, longitude: 7, title: 'Not stored' },
    });
    assertError(post, 401, 'unauthorized', TOKEN_ERRORS.basicNotHere);
    assert.deepEqual(assertOk(await get(`/api/rooms/${room}/markers`, `Bearer ${reader}`)), before);
  });
});

describe('GDAL', () => {
  const endpoint = () => `OAPIF:${base}/api/rooms/${room}/ogc`;
  const ogrinfo = (...config: string[]) => gdal('ogrinfo', ['-ro', '-al', '-so', endpoint(), ...config]);
  const userpwd = (password: string, auth?: string) => [
    ...(auth ? ['--config', 'GDAL_HTTP_AUTH', auth] : []),
    '--config',
    'GDAL_HTTP_USERPWD',
    `any:${password}`,
  ];
  /** The layers ogrinfo listed, with their feature counts. */
  const counts = (out: string) =>
    Object.fromEntries(
      [...out.matchAll(/^Layer name: (\S+)$[\s\S]*?^Feature Count: (\d+)$/gm)].map((m) => [m[1], Number(m[2])]),
    );

  test("ogrinfo reads the private room's OGC API with the token as Basic (GDAL_HTTP_AUTH=BASIC, or unset)", async () => {
    // Unset, curl's default is Basic too, sent with the first request.
    for (const auth of ['BASIC', undefined]) {
      const listed = await ogrinfo(...userpwd(reader, auth));
      assert.ok(listed.ok, listed.out);
      assert.deepEqual(counts(listed.out), { markers: 1, drawings: 0, [layerId]: 2 }, `GDAL_HTTP_AUTH=${auth}`);
    }
  });

  test('GDAL_HTTP_AUTH=ANY sends the credential once challenged, and a wrong password fails with 401', async () => {
    // curl asks first without a credential: only the 401's Basic challenge makes it send one.
    const challenged = await ogrinfo(...userpwd(reader, 'ANY'));
    assert.ok(challenged.ok, challenged.out);
    assert.deepEqual(counts(challenged.out), { markers: 1, drawings: 0, [layerId]: 2 });
    const wrong = await ogrinfo(...userpwd(`mrt_${'z'.repeat(43)}`, 'BASIC'));
    assert.equal(wrong.ok, false);
    assert.match(wrong.out, /401/);
    const none = await ogrinfo();
    assert.equal(none.ok, false);
    assert.match(none.out, /401/);
  });
});
