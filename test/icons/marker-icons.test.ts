import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import sharp from 'sharp';
import {
  assertError,
  assertValidation,
  call,
  createRoom,
  issueToken,
  postMultipart,
  scaffold,
  scaffoldSuite,
  TOKEN_ERRORS,
} from '../helpers.js';

const ICON_ID = /^icon-api-[A-Za-z0-9_-]{16}$/;
const CSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox";

const BENIGN = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24">
  <circle cx="12" cy="12" r="10" fill="#e33"/>
</svg>`;

/** Everything an SVG can carry to run code or fetch something, around one harmless circle. */
const HOSTILE = `<?xml version="1.0" encoding="UTF-8"?>
<?xml-stylesheet type="text/css" href="https://evil.example/sheet.css"?>
<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 24 24" onload="alert('svg-onload')">
  <script type="text/javascript">alert('svg-script')</script>
  <style>@import url(https://evil.example/import.css); .x { fill: red }</style>
  <style>.ok { fill: blue }</style>
  <defs><linearGradient id="grad"><stop offset="0" stop-color="#fff"/></linearGradient></defs>
  <circle class="ok" cx="12" cy="12" r="10" fill="url(#grad)" onclick="alert('click')"/>
  <rect width="4" height="4" style="fill: url(https://evil.example/paint.svg#p)" filter="url(https://evil.example/f.svg#f)"/>
  <foreignObject width="10" height="10"><div xmlns="http://www.w3.org/1999/xhtml">foreign-html</div></foreignObject>
  <a xlink:href="javascript:alert('xlink-js')"><text>link</text></a>
  <a href="javascript:alert('href-js')"><text>link2</text></a>
  <a href="#grad"><text>internal</text></a>
  <use href="https://evil.example/sprite.svg#icon"/>
  <use xlink:href="sprite.svg#icon"/>
  <image href="https://evil.example/tracker.png" width="1" height="1"/>
  <image xlink:href="data:image/svg+xml;base64,PHN2Zy8+" width="1" height="1"/>
  <feImage href="https://evil.example/fe.png"/>
  <set attributeName="onmouseover" to="alert('set')"/>
  <animate attributeName="href" values="javascript:alert('animate')"/>
</svg>`;

let png: Buffer;

const s = scaffoldSuite({ rooms: ['room', 'otherRoom', 'publicRoom'] }, async () => {
  png = await sharp({
    create: { width: 32, height: 32, channels: 4, background: { r: 200, g: 30, b: 30, alpha: 0.5 } },
  })
    .png()
    .toBuffer();
});
const register = (roomId: string, parts: Parameters<typeof postMultipart>[2], auth?: string) =>
  postMultipart(s.t.app, `/api/rooms/${roomId}/marker-icons`, parts, auth);

const svgPart = (text: string) => ({ data: Buffer.from(text), filename: 'icon.svg', type: 'image/svg+xml' });

describe('POST /api/rooms/:roomId/marker-icons', () => {
  test('a hostile SVG is stored sanitised: no script, handler, foreign object or external reference', async () => {
    const res = await register(s.room, { icon: svgPart(HOSTILE), name: 'Pin', size: '32' }, s.users.editor.token);
    assert.equal(res.statusCode, 201, res.body);
    assert.deepEqual(Object.keys(res.json()), ['iconId']);
    const { iconId } = res.json();
    assert.match(iconId, ICON_ID);

    const served = await call(s.t.app, 'GET', `/api/rooms/${s.room}/marker-icons/${iconId}`, {
      auth: s.users.viewer.token,
    });
    assert.equal(served.statusCode, 200);
    assert.equal(served.headers['content-type'], 'image/svg+xml');
    assert.equal(served.headers['x-content-type-options'], 'nosniff');
    assert.equal(served.headers['content-security-policy'], CSP);
    assert.match(String(served.headers['cache-control']), /max-age=\d+/);
    assert.equal(Number(served.headers['content-length']), served.rawPayload.length);
    const svg = served.body;
    for (const gone of [
      '<script',
      'alert',
      'onload',
      'onclick',
      'foreignObject',
      'foreign-html',
      'evil.example',
      'javascript:',
      '<use',
      '@import',
      'xml-stylesheet',
      'data:image',
      '<set',
      '<animate',
      'DOCTYPE',
    ]) {
      assert.ok(!svg.includes(gone), `${gone} survived:\n${svg}`);
    }
    assert.match(svg, /^<svg[^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    assert.match(svg, /<circle[^>]*cx="12"[^>]*fill="url\(#grad\)"/);
    assert.ok(svg.includes('.ok { fill: blue }'), svg);
    assert.ok(svg.includes('href="#grad"'), svg);
    // What is served is well-formed SVG that an image library renders.
    const meta = await sharp(served.rawPayload).metadata();
    assert.equal(meta.format, 'svg');
  });

  test('a PNG is accepted and served as image/png', async () => {
    const res = await register(
      s.room,
      { icon: { data: png, filename: 'pin.png', type: 'image/png' }, name: 'Red', size: '8' },
      s.users.owner.token,
    );
    assert.equal(res.statusCode, 201, res.body);
    const served = await call(s.t.app, 'GET', `/api/rooms/${s.room}/marker-icons/${res.json().iconId}`, {
      auth: s.users.owner.token,
    });
    assert.equal(served.statusCode, 200);
    assert.equal(served.headers['content-type'], 'image/png');
    assert.equal(served.headers['content-security-policy'], CSP);
    assert.equal(served.headers['x-content-type-options'], 'nosniff');
    const meta = await sharp(served.rawPayload).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height, meta.hasAlpha], ['png', 32, 32, true]);
  });

  test('a JPEG, a text file, a PNG that does not decode, or SVG outside the SVG namespace is 400', async () => {
    const jpeg = await sharp(png).jpeg().toBuffer();
    const cases: Array<Buffer> = [
      jpeg,
      Buffer.from('just some text\n'),
      Buffer.concat([png.subarray(0, 40)]),
      Buffer.from('<svg><circle r="1"/></svg>'),
      Buffer.from('<html xmlns="http://www.w3.org/1999/xhtml"><body/></html>'),
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><circle r="1"></svg>'),
      Buffer.alloc(0),
    ];
    for (const data of cases) {
      assertValidation(
        await register(
          s.room,
          { icon: { data, filename: 'x', type: 'image/svg+xml' }, name: 'Bad', size: '24' },
          s.users.owner.token,
        ),
        'icon',
      );
    }
  });

  test('a file over 1 MB is 413 file_too_large', async () => {
    const padded = BENIGN.replace('</svg>', `<desc>${'a'.repeat(1024 * 1024)}</desc></svg>`);
    const res = await register(s.room, { icon: svgPart(padded), name: 'Big', size: '24' }, s.users.owner.token);
    const body = assertError(res, 413, 'file_too_large');
    assert.deepEqual(body.details, { field: 'icon', maxBytes: 1024 * 1024 });
  });

  test('size must be an integer from 8 to 256 and name 1 to 100 characters', async () => {
    for (const size of ['7', '257', '12.5', 'abc', '', '-8']) {
      assertValidation(
        await register(s.room, { icon: svgPart(BENIGN), name: 'Pin', size }, s.users.owner.token),
        'size',
      );
    }
    assertValidation(await register(s.room, { icon: svgPart(BENIGN), name: 'Pin' }, s.users.owner.token), 'size');
    for (const name of ['', '   ', 'x'.repeat(101)]) {
      assertValidation(
        await register(s.room, { icon: svgPart(BENIGN), name, size: '24' }, s.users.owner.token),
        'name',
      );
    }
    assertValidation(await register(s.room, { icon: svgPart(BENIGN), size: '24' }, s.users.owner.token), 'name');
    assertValidation(await register(s.room, { name: 'Pin', size: '24' }, s.users.owner.token), 'icon');
    assertValidation(
      await register(s.room, { icon: svgPart(BENIGN), name: 'Pin', size: '24', color: 'red' }, s.users.owner.token),
      'color',
    );
    for (const size of ['8', '256']) {
      assert.equal(
        (await register(s.room, { icon: svgPart(BENIGN), name: 'x'.repeat(100), size }, s.users.owner.token))
          .statusCode,
        201,
      );
    }
    const json = await call(s.t.app, 'POST', `/api/rooms/${s.room}/marker-icons`, {
      auth: s.users.owner.token,
      body: { name: 'Pin', size: 24 },
    });
    assertError(json, 415, 'unsupported_media_type');
  });

  test('viewer session 403, read token 403, write token 201, anonymous 401', async () => {
    const parts = { icon: svgPart(BENIGN), name: 'Pin', size: '24' };
    assertError(await register(s.room, parts, s.users.viewer.token), 403, 'forbidden');
    const read = await issueToken(s.t.app, s.users.owner, s.room, ['read']);
    assertError(await register(s.room, parts, read.token), 403, 'forbidden', TOKEN_ERRORS.lacksWrite);
    const write = await issueToken(s.t.app, s.users.owner, s.room, ['write']);
    const res = await register(s.room, parts, write.token);
    assert.equal(res.statusCode, 201, res.body);
    const listed = (
      await call(s.t.app, 'GET', `/api/rooms/${s.room}/marker-icons`, { auth: s.users.owner.token })
    ).json().icons;
    assert.equal(listed.find((i: { iconId: string }) => i.iconId === res.json().iconId).createdBy, write.id);
    assertError(await register(s.otherRoom, parts, write.token), 403, 'forbidden', TOKEN_ERRORS.wrongRoom);
    assertError(await register(s.room, parts), 401, 'unauthorized');
  });
});

describe('GET /api/rooms/:roomId/marker-icons and /:iconId', () => {
  let iconId: string;
  let foreignIconId: string;
  /** A room of its own, so that the list holds only this suite's icons. */
  let room: string;
  before(async () => {
    room = await createRoom(s.t.app, s.users.owner);
    iconId = (await register(room, { icon: svgPart(BENIGN), name: 'Circle', size: '48' }, s.users.owner.token)).json()
      .iconId;
    foreignIconId = (
      await register(s.otherRoom, { icon: svgPart(BENIGN), name: 'Other', size: '48' }, s.users.owner.token)
    ).json().iconId;
  });

  test('the list has the icons without any file content', async () => {
    const before = Date.now();
    const pngId = (
      await register(
        room,
        { icon: { data: png, filename: 'p.png', type: 'image/png' }, name: 'Dot', size: '16' },
        s.users.owner.token,
      )
    ).json().iconId;
    const res = await call(s.t.app, 'GET', `/api/rooms/${room}/marker-icons`, { auth: s.users.owner.token });
    assert.equal(res.statusCode, 200);
    const { icons } = res.json();
    assert.deepEqual(
      icons.map((i: { iconId: string }) => i.iconId),
      [iconId, pngId],
    );
    for (const icon of icons) {
      assert.deepEqual(Object.keys(icon).sort(), ['contentType', 'createdAt', 'createdBy', 'iconId', 'name', 'size']);
      assert.equal(icon.createdBy, s.users.owner.id);
      assert.equal(typeof icon.createdAt, 'number');
    }
    assert.deepEqual(icons[0], { ...icons[0], name: 'Circle', size: 48, contentType: 'image/svg+xml' });
    assert.deepEqual(icons[1], { ...icons[1], name: 'Dot', size: 16, contentType: 'image/png' });
    assert.ok(icons[1].createdAt >= before - 1000);
    assert.ok(!res.body.includes('<svg') && !res.body.includes('circle'));
  });

  test("another room's icon and unknown ids are 404", async () => {
    assertError(
      await call(s.t.app, 'GET', `/api/rooms/${room}/marker-icons/${foreignIconId}`, { auth: s.users.owner.token }),
      404,
      'not_found',
    );
    assertError(
      await call(s.t.app, 'GET', `/api/rooms/${room}/marker-icons/icon-api-nothere`, { auth: s.users.owner.token }),
      404,
      'not_found',
    );
    assert.equal(
      (
        await call(s.t.app, 'GET', `/api/rooms/${s.otherRoom}/marker-icons/${foreignIconId}`, {
          auth: s.users.owner.token,
        })
      ).statusCode,
      200,
    );
    const ids = (await call(s.t.app, 'GET', `/api/rooms/${room}/marker-icons`, { auth: s.users.owner.token }))
      .json()
      .icons.map((i: { iconId: string }) => i.iconId);
    assert.ok(!ids.includes(foreignIconId));
  });

  test('read tokens may list and fetch; anonymous only on a public room', async () => {
    const read = await issueToken(s.t.app, s.users.owner, room, ['read']);
    assert.equal((await call(s.t.app, 'GET', `/api/rooms/${room}/marker-icons`, { auth: read.token })).statusCode, 200);
    assert.equal(
      (await call(s.t.app, 'GET', `/api/rooms/${room}/marker-icons/${iconId}`, { auth: read.token })).statusCode,
      200,
    );
    assertError(await call(s.t.app, 'GET', `/api/rooms/${room}/marker-icons`), 401, 'unauthorized');
    assertError(await call(s.t.app, 'GET', `/api/rooms/${room}/marker-icons/${iconId}`), 401, 'unauthorized');

    const pubId = (
      await register(s.publicRoom, { icon: svgPart(BENIGN), name: 'Pub', size: '24' }, s.users.owner.token)
    ).json().iconId;
    const list = await call(s.t.app, 'GET', `/api/rooms/${s.publicRoom}/marker-icons`);
    assert.equal(list.statusCode, 200);
    assert.equal(list.json().icons[0].iconId, pubId);
    const file = await call(s.t.app, 'GET', `/api/rooms/${s.publicRoom}/marker-icons/${pubId}`);
    assert.equal(file.statusCode, 200);
    assert.ok(file.body.includes('<circle'));
  });
});

describe('icon storage quota', () => {
  test('an icon over the quota is 413 quota_exceeded and leaves no row or file', async () => {
    const {
      t: small,
      users: { owner },
    } = await scaffold({ config: { storageQuotaBytes: 50 }, users: ['owner'], rooms: [] });
    try {
      const roomId = await createRoom(small.app, owner);
      const res = await postMultipart(
        small.app,
        `/api/rooms/${roomId}/marker-icons`,
        { icon: svgPart(BENIGN), name: 'Pin', size: '24' },
        owner.token,
      );
      assertError(res, 413, 'quota_exceeded');
      assert.deepEqual(await small.database.db.selectFrom('marker_icons').selectAll().execute(), []);
      assert.deepEqual(await small.database.db.selectFrom('stored_files').selectAll().execute(), []);
    } finally {
      await small.close();
    }
  });
});
