/**
 * oEmbed and link previews of public content (docs/decisions.md, "Embedding"): a public room's
 * `/r/` and a published deck's `/p/` address get a `rich` oEmbed answer framing its `/e/` page,
 * and their pages carry Open Graph tags and the oEmbed link; private rooms get none of it.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import {
  assertError,
  assertOk,
  call,
  createRoom,
  type Response,
  scaffold,
  type TestApp,
  uniqueRoomId,
  type Users,
} from '../helpers.js';
import { builtWebDir } from './web-dir.js';

let t: TestApp;
let users: Users;
let privateRoom: string;
let publicRoom: string;
let deckRoom: string;
const webDir = builtWebDir();
const ORIGIN = 'https://maps.example.org';
const NAME = 'Bern <b>&</b> "Thun"';

before(async () => {
  const s = await scaffold({ rooms: ['room'], config: { webDir, publicUrl: ORIGIN } });
  ({ t, users } = s);
  privateRoom = s.room;
  publicRoom = await createRoom(t.app, users.owner, uniqueRoomId(), {
    isPublic: true,
    name: NAME,
    description: 'Old town <script>alert(1)</script>',
  });
  deckRoom = await createRoom(t.app, users.owner, uniqueRoomId(), { name: 'Secret plans' });
  assertOk(
    await call(t.app, 'PATCH', `/api/rooms/${deckRoom}/presentation/public`, {
      auth: users.owner.token,
      body: { isPublic: true },
    }),
  );
});
after(async () => {
  await t?.close();
  rmSync(webDir, { recursive: true, force: true });
});

const oembed = (query: string) => call(t.app, 'GET', `/api/oembed?${query}`);
const forUrl = (url: string, extra = '') => oembed(`url=${encodeURIComponent(url)}${extra}`);
const page = (url: string) => t.app.inject({ method: 'GET', url }) as Promise<Response>;

describe('oEmbed', () => {
  test('a public room: rich JSON with an iframe of its /e/ page, 800x600', async () => {
    const body = assertOk(await forUrl(`${ORIGIN}/r/${publicRoom}`));
    assert.deepEqual(Object.keys(body).sort(), [
      'height',
      'html',
      'provider_name',
      'provider_url',
      'title',
      'type',
      'version',
      'width',
    ]);
    assert.equal(body.version, '1.0');
    assert.equal(body.type, 'rich');
    assert.equal(body.provider_name, 'Maproom');
    assert.equal(body.provider_url, `${ORIGIN}/`);
    assert.equal(body.title, NAME);
    assert.equal(body.width, 800);
    assert.equal(body.height, 600);
    assert.match(body.html, new RegExp(`^<iframe src="${ORIGIN}/e/${publicRoom}" width="800" height="600"`));
    assert.ok(!body.html.includes('<b>'), `the title is escaped in the html: ${body.html}`);
  });

  test('maxwidth and maxheight bound the frame', async () => {
    const body = assertOk(await forUrl(`${ORIGIN}/r/${publicRoom}`, '&maxwidth=400&maxheight=300'));
    assert.equal(body.width, 400);
    assert.equal(body.height, 300);
    assert.match(body.html, /width="400" height="300"/);
    const wide = assertOk(await forUrl(`${ORIGIN}/r/${publicRoom}`, '&maxwidth=2000'));
    assert.equal(wide.width, 800);
  });

  test("a published deck frames its /e/.../deck page, without the private room's name", async () => {
    const body = assertOk(await forUrl(`${ORIGIN}/p/${deckRoom}`));
    assert.match(body.html, new RegExp(`src="${ORIGIN}/e/${deckRoom}/deck"`));
    assert.ok(!JSON.stringify(body).includes('Secret plans'), 'no leak of the room name');
  });

  test('private rooms, unknown rooms, other hosts and other paths are 404', async () => {
    for (const url of [
      `${ORIGIN}/r/${privateRoom}`,
      `${ORIGIN}/r/${deckRoom}`,
      `${ORIGIN}/p/${privateRoom}`,
      `${ORIGIN}/r/${uniqueRoomId()}`,
      `https://evil.example/r/${publicRoom}`,
      `${ORIGIN}/e/${publicRoom}`,
      `${ORIGIN}/account`,
      'not a url',
    ])
      assertError(await forUrl(url), 404, 'not_found');
  });

  test('format=xml is 501; json is the default', async () => {
    assertError(await forUrl(`${ORIGIN}/r/${publicRoom}`, '&format=xml'), 501, 'not_implemented');
    assertOk(await forUrl(`${ORIGIN}/r/${publicRoom}`, '&format=json'));
    assertError(await oembed('maxwidth=10'), 400, 'validation_error');
  });
});

describe('link previews', () => {
  test("a public room's page carries Open Graph tags and the oEmbed link, escaped", async () => {
    const res = await page(`/r/${publicRoom}`);
    assert.equal(res.statusCode, 200);
    const roomUrl = `${ORIGIN}/r/${publicRoom}`;
    assert.ok(
      res.body.includes('<meta property="og:title" content="Bern &#60;b&#62;&#38;&#60;/b&#62; &#34;Thun&#34;">'),
      res.body,
    );
    assert.ok(
      res.body.includes(
        '<meta property="og:description" content="Old town &#60;script&#62;alert(1)&#60;/script&#62;">',
      ),
    );
    assert.ok(res.body.includes('<meta property="og:type" content="website">'));
    assert.ok(res.body.includes(`<meta property="og:url" content="${roomUrl}">`));
    assert.ok(
      res.body.includes(
        `<link rel="alternate" type="application/json+oembed" href="${ORIGIN}/api/oembed?url=${encodeURIComponent(roomUrl)}"`,
      ),
    );
    assert.ok(!res.body.includes('<script>alert'), 'nothing unescaped');
    assert.ok(res.body.indexOf('og:title') < res.body.indexOf('</head>'), 'in the head');
  });

  test("a published deck's page carries them, naming no private room", async () => {
    const res = await page(`/p/${deckRoom}`);
    assert.ok(res.body.includes('property="og:title"'));
    assert.ok(res.body.includes(`content="${ORIGIN}/p/${deckRoom}"`));
    assert.ok(!res.body.includes('Secret plans'));
  });

  test('a private room gets none of it, nor does an unknown one', async () => {
    const named = await createRoom(t.app, users.owner, uniqueRoomId(), { name: 'Hidden name' });
    for (const url of [`/r/${named}`, `/p/${named}`, `/r/${deckRoom}`, `/r/${uniqueRoomId()}`]) {
      const res = await page(url);
      assert.equal(res.statusCode, 200);
      assert.ok(!res.body.includes('og:'), `${url}: ${res.body}`);
      assert.ok(!res.body.includes('oembed'), url);
      assert.ok(!res.body.includes('Hidden name'), url);
    }
  });
});
