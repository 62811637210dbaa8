/**
 * Which sites may frame a room's `/e/` pages (docs/decisions.md, "Embedding"): the default
 * follows the room being public, PATCH checks and normalises origins, and the `/e/` pages
 * answer the app shell with `frame-ancestors` of exactly those origins.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import {
  assertError,
  assertOk,
  assertValidation,
  call,
  createRoom,
  type Response,
  scaffold,
  type TestApp,
  uniqueRoomId,
  type Users,
} from '../helpers.js';
import { builtWebDir, policyOf } from './web-dir.js';

let t: TestApp;
let users: Users;
let privateRoom: string;
let publicRoom: string;
const webDir = builtWebDir();

before(async () => {
  const s = await scaffold({ rooms: ['room', 'publicRoom'], config: { webDir } });
  ({ t, users } = s);
  privateRoom = s.room;
  publicRoom = s.publicRoom;
});
after(async () => {
  await t?.close();
  rmSync(webDir, { recursive: true, force: true });
});

const embedding = (roomId: string) => `/api/rooms/${roomId}/embedding`;
const get = (roomId: string) => call(t.app, 'GET', embedding(roomId), { auth: users.owner.token });
const patch = (roomId: string, origins: unknown) =>
  call(t.app, 'PATCH', embedding(roomId), { auth: users.owner.token, body: { origins } });
const page = (url: string) => t.app.inject({ method: 'GET', url }) as Promise<Response>;

function frameAncestors(res: Response): string[] | undefined {
  assert.equal(res.statusCode, 200, res.body);
  assert.match(String(res.headers['content-type']), /^text\/html/);
  assert.match(res.body, /<div id="app"><\/div>/, 'the app shell');
  assert.equal(res.headers['x-frame-options'], undefined, 'no X-Frame-Options');
  const csp = policyOf(res);
  assert.deepEqual(csp.get('script-src'), ["'self'"], 'the rest of the policy stays');
  assert.deepEqual(csp.get('object-src'), ["'none'"]);
  return csp.get('frame-ancestors');
}

describe('the origins', () => {
  test('default: ["*"] for a public room, [] for a private one, following the room', async () => {
    assert.deepEqual(assertOk(await get(publicRoom)), { origins: ['*'] });
    assert.deepEqual(assertOk(await get(privateRoom)), { origins: [] });
    const room = await createRoom(t.app, users.owner);
    assert.deepEqual(assertOk(await get(room)).origins, []);
    assertOk(
      await call(t.app, 'PATCH', `/api/rooms/${room}/public`, { auth: users.owner.token, body: { isPublic: true } }),
    );
    assert.deepEqual(assertOk(await get(room)).origins, ['*']);
    // A private room with a published deck is public content too.
    const deckRoom = await createRoom(t.app, users.owner);
    assertOk(
      await call(t.app, 'PATCH', `/api/rooms/${deckRoom}/presentation/public`, {
        auth: users.owner.token,
        body: { isPublic: true },
      }),
    );
    assert.deepEqual(assertOk(await get(deckRoom)).origins, ['*']);
  });

  test('PATCH normalises origins and answers them; GET answers them after', async () => {
    const room = await createRoom(t.app, users.owner);
    const answer = assertOk(
      await patch(room, [
        'https://Example.com:443',
        'http://localhost:3000/',
        'https://example.com',
        'https://xn--bcher-kva.ch',
      ]),
    );
    assert.deepEqual(answer, { origins: ['https://example.com', 'http://localhost:3000', 'https://xn--bcher-kva.ch'] });
    assert.deepEqual(assertOk(await get(room)), answer);
    assert.deepEqual(frameAncestors(await page(`/e/${room}`)), [...answer.origins, "'self'"]);
    assert.deepEqual(frameAncestors(await page(`/e/${room}/deck`)), [...answer.origins, "'self'"]);
    assert.deepEqual(assertOk(await patch(room, [])), { origins: [] });
    assert.deepEqual(frameAncestors(await page(`/e/${room}`)), ["'self'"], 'only the share dialog previews it');
  });

  test('PATCH refuses what is not an origin, naming the entry, and more than 50', async () => {
    for (const bad of [
      'https://example.com/path',
      'https://example.com?x=1',
      'https://example.com#top',
      'ftp://example.com',
      'example.com',
      'https://user:pw@example.com',
      'https://*.example.com',
      "https://example.com; script-src 'unsafe-inline'",
      'javascript:alert(1)',
    ]) {
      const res = await patch(privateRoom, ['https://ok.example', bad]);
      assertValidation(res, 'origins[1]');
    }
    assertValidation(await patch(privateRoom, ['*', 'https://example.com']), 'origins');
    const many = Array.from({ length: 51 }, (_, i) => `https://s${i}.example.com`);
    assertValidation(await patch(privateRoom, many), 'origins');
    assertValidation(await patch(privateRoom, 'https://example.com'), 'origins');
    assert.deepEqual(assertOk(await get(privateRoom)), { origins: [] }, 'nothing was kept');
  });

  test('["*"] is only for public content: 400 embedding_not_public for a private room', async () => {
    assertError(await patch(privateRoom, ['*']), 400, 'embedding_not_public');
    assert.deepEqual(assertOk(await patch(publicRoom, ['*'])), { origins: ['*'] });
  });

  test('only the owner reads or sets them', async () => {
    for (const who of ['editor', 'viewer', 'stranger'] as const) {
      assertError(await call(t.app, 'GET', embedding(publicRoom), { auth: users[who].token }), 403, 'forbidden');
      assertError(
        await call(t.app, 'PATCH', embedding(publicRoom), { auth: users[who].token, body: { origins: [] } }),
        403,
        'forbidden',
      );
    }
    assertError(await call(t.app, 'GET', embedding(publicRoom)), 401, 'unauthorized');
  });
});

describe('the /e/ pages', () => {
  test("a public room's pages may be framed by any site; a private room's by none but the service's own", async () => {
    const room = await createRoom(t.app, users.owner, uniqueRoomId(), { isPublic: true });
    assert.deepEqual(frameAncestors(await page(`/e/${room}`)), ['*']);
    assert.deepEqual(frameAncestors(await page(`/e/${room}/deck`)), ['*']);
    assert.deepEqual(frameAncestors(await page(`/e/${privateRoom}`)), ["'self'"]);
    assert.deepEqual(frameAncestors(await page(`/e/${privateRoom}/deck`)), ["'self'"]);
    // Its address may hold a key: no request of the page sends it on as a Referer.
    assert.equal((await page(`/e/${privateRoom}?key=mre_x`)).headers['referrer-policy'], 'strict-origin');
    assert.equal((await page(`/r/${privateRoom}`)).headers['referrer-policy'], 'strict-origin-when-cross-origin');
  });

  test('a room made private whose origins were ["*"] is framed by no other site', async () => {
    const room = await createRoom(t.app, users.owner, uniqueRoomId(), { isPublic: true });
    assertOk(await patch(room, ['*']));
    assertOk(
      await call(t.app, 'PATCH', `/api/rooms/${room}/public`, { auth: users.owner.token, body: { isPublic: false } }),
    );
    assert.deepEqual(frameAncestors(await page(`/e/${room}`)), ["'self'"]);
  });

  test('an unknown room answers the page as a private one would; an impossible id is 404', async () => {
    assert.deepEqual(frameAncestors(await page(`/e/${uniqueRoomId()}`)), ["'self'"]);
    assert.deepEqual(frameAncestors(await page(`/e/${uniqueRoomId()}/deck`)), ["'self'"]);
    assertError(await page('/e/short'), 404, 'not_found');
  });

  test('the other pages keep frame-ancestors none', async () => {
    for (const url of ['/', `/r/${publicRoom}`, `/p/${publicRoom}`, '/account'])
      assert.deepEqual(frameAncestors(await page(url)), ["'none'"], url);
  });
});
