import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import {
  assertError,
  assertOk,
  assertValidation,
  call,
  createRoom,
  issueToken,
  postMultipart,
  scaffold,
  type TestApp,
  TOKEN_ERRORS,
  type Users,
} from '../helpers.js';

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

let t: TestApp;
let users: Users;
let room: string;
let publicRoom: string;
let otherRoom: string;
let work: string;
/** Fixtures: a 64x48 JPEG tagged by exiftool (rotated 90° by its Orientation), PNG, WebP. */
let taggedJpeg: Buffer;
let plainJpeg: Buffer;
let png: Buffer;
let webp: Buffer;

const upload = (roomId: string, parts: Parameters<typeof postMultipart>[2], auth?: string) =>
  postMultipart(t.app, `/api/rooms/${roomId}/markers/upload-image`, parts, auth);

const getImage = (roomId: string, key: string, auth?: string) =>
  call(t.app, 'GET', `/api/rooms/${roomId}/markers/image?key=${encodeURIComponent(key)}`, { auth });

/** exiftool's view of some bytes: every tag it finds, with its group. */
function exiftool(bytes: Buffer): Record<string, unknown> {
  const file = path.join(work, `probe-${Math.random().toString(36).slice(2)}.jpg`);
  writeFileSync(file, bytes);
  return JSON.parse(execFileSync('exiftool', ['-json', '-a', '-G1', file], { encoding: 'utf8' }))[0];
}

before(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'maproom-images-'));
  const raw = Buffer.alloc(64 * 48 * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = (i * 7) % 256;
  const source = sharp(raw, { raw: { width: 64, height: 48, channels: 3 } });
  plainJpeg = await source.clone().jpeg().toBuffer();
  png = await source.clone().png().toBuffer();
  webp = await source.clone().webp().toBuffer();
  const tagged = path.join(work, 'tagged.jpg');
  writeFileSync(tagged, plainJpeg);
  execFileSync('exiftool', [
    '-q',
    '-overwrite_original',
    '-DateTimeOriginal=2023:06:15 14:30:45',
    '-OffsetTimeOriginal=+02:00',
    '-Make=Canon',
    '-Model=Canon EOS R5',
    '-IFD0:Artist=Jane Doe',
    '-XMP-dc:Creator=Jane Doe',
    '-GPSLatitude=48.8584',
    '-GPSLatitudeRef=N',
    '-GPSLongitude=2.2945',
    '-GPSLongitudeRef=W',
    '-GPSAltitude=35.5',
    '-GPSAltitudeRef=Above Sea Level',
    '-Orientation#=6',
    tagged,
  ]);
  taggedJpeg = readFileSync(tagged);

  ({ t, users, room, otherRoom, publicRoom } = await scaffold({ rooms: ['room', 'otherRoom', 'publicRoom'] }));
});
after(async () => {
  await t.close();
  rmSync(work, { recursive: true, force: true });
});

describe('POST /api/rooms/:roomId/markers/upload-image', () => {
  test('reads the EXIF provenance, stores upright JPEGs without metadata under markers/<roomId>/<uuid>', async () => {
    const res = await upload(room, { image: taggedJpeg, thumbnail: taggedJpeg }, users.editor.token);
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), ['exif', 'imageKey', 'thumbnailKey']);
    const match = new RegExp(`^markers/${room}/(${UUID})\\.jpg$`).exec(body.imageKey);
    assert.ok(match, body.imageKey);
    assert.equal(body.thumbnailKey, `markers/${room}/${match[1]}_thumb.jpg`);

    // 14:30:45 at UTC+02:00.
    assert.equal(body.exif.takenAt, Date.UTC(2023, 5, 15, 12, 30, 45));
    assert.deepEqual(body.exif.camera, { make: 'Canon', model: 'Canon EOS R5' });
    assert.ok(Math.abs(body.exif.gps.latitude - 48.8584) < 1e-5, String(body.exif.gps.latitude));
    assert.ok(Math.abs(body.exif.gps.longitude - -2.2945) < 1e-5, String(body.exif.gps.longitude));
    assert.equal(body.exif.gps.altitude, 35.5);

    for (const key of [body.imageKey, body.thumbnailKey]) {
      const served = await getImage(room, key, users.viewer.token);
      assert.equal(served.statusCode, 200, served.body);
      const bytes = served.rawPayload;
      const meta = await sharp(bytes).metadata();
      assert.equal(meta.format, 'jpeg');
      // Orientation 6 was applied to the pixels: 64x48 became 48x64.
      assert.deepEqual([meta.width, meta.height], [48, 64]);
      assert.equal(meta.exif, undefined);
      assert.equal(meta.xmp, undefined);
      assert.equal(meta.icc, undefined);
      const tags = exiftool(bytes);
      const groups = new Set(Object.keys(tags).map((k) => k.split(':')[0]));
      for (const group of ['IFD0', 'ExifIFD', 'GPS', 'XMP-dc', 'XMP-x', 'ICC_Profile', 'IFD1']) {
        assert.ok(!groups.has(group), `${group} survived: ${JSON.stringify(tags)}`);
      }
      assert.ok(!JSON.stringify(tags).includes('Jane Doe'));
      assert.ok(!JSON.stringify(tags).includes('Canon'));
    }

    const rows = await t.database.db
      .selectFrom('stored_files')
      .selectAll()
      .where('room_id', '=', room)
      .orderBy('kind')
      .execute();
    const mine = rows.filter((r) => r.key === body.imageKey || r.key === body.thumbnailKey);
    assert.deepEqual(
      mine.map((r) => [r.kind, r.content_type]),
      [
        ['marker-image', 'image/jpeg'],
        ['marker-thumbnail', 'image/jpeg'],
      ],
    );
    assert.deepEqual(JSON.parse(mine[0]!.meta!), body.exif);
  });

  test('a photo without EXIF answers nulls; a large thumbnail is capped to 512 px', async () => {
    const big = await sharp({ create: { width: 1200, height: 900, channels: 3, background: '#3366aa' } })
      .jpeg()
      .toBuffer();
    const res = await upload(room, { image: plainJpeg, thumbnail: big }, users.owner.token);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json().exif, { takenAt: null, camera: null, gps: null });
    const thumb = await getImage(room, res.json().thumbnailKey, users.owner.token);
    const meta = await sharp(thumb.rawPayload).metadata();
    assert.deepEqual([meta.width, meta.height], [512, 384]);
  });

  test('PNG and WebP inputs are accepted and stored as JPEG; EXIF in a PNG is read too', async () => {
    const tagged = path.join(work, 'tagged.png');
    writeFileSync(tagged, png);
    execFileSync('exiftool', [
      '-q',
      '-overwrite_original',
      '-Make=Nikon',
      '-GPSLatitude=10.5',
      '-GPSLatitudeRef=S',
      '-GPSLongitude=20.25',
      '-GPSLongitudeRef=E',
      tagged,
    ]);
    for (const [input, thumbnail] of [
      [readFileSync(tagged), png],
      [webp, webp],
    ] as const) {
      const res = await upload(room, { image: input, thumbnail }, users.editor.token);
      assert.equal(res.statusCode, 200, res.body);
      for (const key of [res.json().imageKey, res.json().thumbnailKey]) {
        const served = await getImage(room, key, users.editor.token);
        assert.equal(served.statusCode, 200);
        assert.deepEqual([...served.rawPayload.subarray(0, 3)], [0xff, 0xd8, 0xff]);
        assert.equal((await sharp(served.rawPayload).metadata()).format, 'jpeg');
      }
      if (input !== webp) {
        assert.deepEqual(res.json().exif, {
          takenAt: null,
          camera: { make: 'Nikon', model: null },
          gps: { latitude: -10.5, longitude: 20.25, altitude: null },
        });
      }
    }
  });

  test('a file that does not decode, or is not an accepted format, is 400 naming the field', async () => {
    assertValidation(
      await upload(room, { image: Buffer.from('not an image at all'), thumbnail: plainJpeg }, users.owner.token),
      'image',
    );
    assertValidation(
      await upload(room, { image: plainJpeg, thumbnail: plainJpeg.subarray(0, 40) }, users.owner.token),
      'thumbnail',
    );
    const gif = await sharp(png).gif().toBuffer();
    assertValidation(await upload(room, { image: gif, thumbnail: plainJpeg }, users.owner.token), 'image');
    const svg = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>',
    );
    assertValidation(await upload(room, { image: svg, thumbnail: plainJpeg }, users.owner.token), 'image');
    assertValidation(await upload(room, { image: Buffer.alloc(0), thumbnail: plainJpeg }, users.owner.token), 'image');
  });

  test('image is required; other parts are refused; a non-multipart body is 415', async () => {
    assertValidation(await upload(room, { thumbnail: plainJpeg }, users.owner.token), 'image');
    assertValidation(
      await upload(room, { image: plainJpeg, thumbnail: plainJpeg, photo: plainJpeg }, users.owner.token),
      'photo',
    );
    const json = await call(t.app, 'POST', `/api/rooms/${room}/markers/upload-image`, {
      auth: users.owner.token,
      body: { image: 'x' },
    });
    assertError(json, 415, 'unsupported_media_type');
  });

  test('without a thumbnail, one is made from the image: a JPEG whose longest side is 256 px', async () => {
    for (const [width, height, expected] of [
      [800, 400, [256, 128]],
      [300, 1200, [64, 256]],
    ] as const) {
      const big = await sharp({ create: { width, height, channels: 3, background: { r: 10, g: 120, b: 200 } } })
        .png()
        .toBuffer();
      const json = assertOk(await upload(room, { image: big }, users.owner.token));
      assert.deepEqual(Object.keys(json).sort(), ['exif', 'imageKey', 'thumbnailKey']);
      const id = new RegExp(`^markers/${room}/(${UUID})\\.jpg$`).exec(json.imageKey)?.[1];
      assert.ok(id, json.imageKey);
      assert.equal(json.thumbnailKey, `markers/${room}/${id}_thumb.jpg`);
      const thumb = await getImage(room, json.thumbnailKey, users.owner.token);
      assert.equal(thumb.statusCode, 200);
      const meta = await sharp(thumb.rawPayload).metadata();
      assert.deepEqual([meta.format, meta.width, meta.height], ['jpeg', ...expected]);
      // The image keeps its size.
      const image = await sharp((await getImage(room, json.imageKey, users.owner.token)).rawPayload).metadata();
      assert.deepEqual([image.width, image.height], [width, height]);
    }
  });

  test('a made thumbnail is cleaned like an upload: upright, no EXIF, XMP or GPS; the answer keeps the provenance', async () => {
    const json = assertOk(await upload(room, { image: taggedJpeg }, users.owner.token));
    assert.equal(json.exif.camera.model, 'Canon EOS R5');
    assert.ok(json.exif.gps, 'the GPS position is answered');
    const thumb = (await getImage(room, json.thumbnailKey, users.owner.token)).rawPayload;
    const meta = await sharp(thumb).metadata();
    // 64x48 turned upright by its Orientation (6), never enlarged.
    assert.deepEqual(
      [meta.format, meta.width, meta.height, meta.exif, meta.xmp, meta.icc],
      ['jpeg', 48, 64, undefined, undefined, undefined],
    );
    const tags = Object.keys(exiftool(thumb));
    for (const group of ['IFD0:', 'ExifIFD:', 'GPS:', 'XMP', 'ICC'])
      assert.ok(!tags.some((tag) => tag.startsWith(group)), `${group} in ${tags.join(', ')}`);
  });

  test('a file over 20 MB is 413 file_too_large', async () => {
    const huge = Buffer.alloc(20 * 1024 * 1024 + 1, 0x41);
    const res = await upload(room, { image: plainJpeg, thumbnail: huge }, users.owner.token);
    const body = assertError(res, 413, 'file_too_large');
    assert.deepEqual(body.details, { field: 'thumbnail', maxBytes: 20 * 1024 * 1024 });
    // The first oversized part is the one named (it is never kept cut short at the cap).
    const both = assertError(
      await upload(room, { image: huge, thumbnail: huge }, users.owner.token),
      413,
      'file_too_large',
    );
    assert.equal(both.details.field, 'image');
    const exact = await upload(
      room,
      { image: Buffer.alloc(20 * 1024 * 1024, 0x41), thumbnail: plainJpeg },
      users.owner.token,
    );
    assertValidation(exact, 'image');
  });

  test('permissions: viewer 403, read token 403, wrong-room token 403 before the body is read', async () => {
    assertError(await upload(room, { image: plainJpeg, thumbnail: plainJpeg }, users.viewer.token), 403, 'forbidden');
    const read = await issueToken(t.app, users.owner, room, ['read']);
    assertError(
      await upload(room, { image: plainJpeg, thumbnail: plainJpeg }, read.token),
      403,
      'forbidden',
      TOKEN_ERRORS.lacksWrite,
    );
    const write = await issueToken(t.app, users.owner, room, ['write']);
    assert.equal((await upload(room, { image: plainJpeg, thumbnail: plainJpeg }, write.token)).statusCode, 200);
    const huge = Buffer.alloc(20 * 1024 * 1024 + 1, 0x41);
    assertError(
      await upload(otherRoom, { image: huge, thumbnail: huge }, write.token),
      403,
      'forbidden',
      TOKEN_ERRORS.wrongRoom,
    );
    assertError(await upload(room, { image: huge, thumbnail: huge }), 401, 'unauthorized');
  });
});

describe('GET /api/rooms/:roomId/markers/image', () => {
  let imageKey: string;
  let thumbnailKey: string;
  let otherKey: string;
  before(async () => {
    ({ imageKey, thumbnailKey } = (
      await upload(room, { image: plainJpeg, thumbnail: plainJpeg }, users.owner.token)
    ).json());
    otherKey = (await upload(otherRoom, { image: plainJpeg, thumbnail: plainJpeg }, users.owner.token)).json().imageKey;
  });

  test('serves the JPEG with nosniff, a restrictive CSP, immutable caching and its length', async () => {
    const res = await getImage(room, imageKey, users.owner.token);
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'image/jpeg');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.equal(res.headers['content-security-policy'], "default-src 'none'");
    assert.equal(res.headers['cache-control'], 'private, max-age=31536000, immutable');
    assert.equal(Number(res.headers['content-length']), res.rawPayload.length);
    const row = await t.database.db
      .selectFrom('stored_files')
      .select('bytes')
      .where('key', '=', imageKey)
      .executeTakeFirstOrThrow();
    assert.equal(Number(row.bytes), res.rawPayload.length);
    assert.equal((await getImage(room, thumbnailKey, users.owner.token)).statusCode, 200);
  });

  test("another room's key, path tricks, other prefixes and unknown keys are 404 not_found", async () => {
    const uuid = imageKey.slice(`markers/${room}/`.length, -'.jpg'.length);
    const keys = [
      otherKey,
      otherKey.replace(otherRoom, room),
      imageKey.replace(room, otherRoom),
      `markers/${room}/../${otherKey.slice('markers/'.length)}`,
      `markers/${room}/./${uuid}.jpg`,
      `markers/${room}//${uuid}.jpg`,
      `/markers/${room}/${uuid}.jpg`,
      `markers/${room}/${uuid}.jpg/`,
      `markers/${room}%2F${uuid}.jpg`,
      `markers/${room}/${uuid}.JPG`,
      `markers/${room}/${uuid.toUpperCase()}.jpg`,
      `markers/${room}/${uuid}.jpeg`,
      `markers/${room}/${uuid}_thumb_thumb.jpg`,
      `markers/${room}/${uuid}.jpg\u0000`,
      `markers\\${room}\\${uuid}.jpg`,
      `icons/${room}/${uuid}.jpg`,
      `uploads/${room}/${uuid}.jpg`,
      `../../../etc/passwd`,
      `markers/${room}/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}.jpg`,
      '',
    ];
    for (const key of keys) {
      const res = await getImage(room, key, users.owner.token);
      if (key.includes('\u0000')) {
        assert.equal(res.statusCode, 400, key);
        continue;
      }
      assertError(res, 404, 'not_found');
    }
    // Raw (unencoded) traversal in the query string, and a double-encoded slash.
    for (const query of [`key=markers/${room}/../../${otherKey}`, `key=markers%252F${room}%252F${uuid}.jpg`]) {
      assertError(
        await call(t.app, 'GET', `/api/rooms/${room}/markers/image?${query}`, { auth: users.owner.token }),
        404,
        'not_found',
      );
    }
    // The key needs a value.
    assertValidation(await call(t.app, 'GET', `/api/rooms/${room}/markers/image`, { auth: users.owner.token }), 'key');
  });

  test('a read-only token may fetch; anonymous may fetch from a public room only', async () => {
    const read = await issueToken(t.app, users.owner, room, ['read']);
    assert.equal((await getImage(room, imageKey, read.token)).statusCode, 200);
    assertError(await getImage(room, imageKey), 401, 'unauthorized');
    assertError(await getImage(room, imageKey, users.stranger.token), 403, 'forbidden');

    const pub = (await upload(publicRoom, { image: plainJpeg, thumbnail: plainJpeg }, users.owner.token)).json();
    const res = await getImage(publicRoom, pub.imageKey);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['content-type'], 'image/jpeg');
  });
});

describe('a public deck of a private room', () => {
  test("anyone reads the photos and icons of the markers its slides show; the room's others stay refused", async () => {
    const owner = users.owner.token;
    const deckRoom = await createRoom(t.app, users.owner);
    const base = `/api/rooms/${deckRoom}`;
    const icon = async (name: string) => {
      const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 8"><circle cx="4" cy="4" r="3" fill="#${name === 'shown' ? 'c00' : '00c'}"/></svg>`;
      return assertOk(
        await postMultipart(
          t.app,
          `${base}/marker-icons`,
          { icon: { data: svg, filename: 'i.svg', type: 'image/svg+xml' }, name, size: '24' },
          owner,
        ),
        201,
      ).iconId as string;
    };
    const shownPhoto = assertOk(await upload(deckRoom, { image: plainJpeg }, owner));
    const otherPhoto = assertOk(await upload(deckRoom, { image: plainJpeg }, owner));
    const [shownIcon, otherIcon] = [await icon('shown'), await icon('other')];
    const marker = async (photo: { imageKey: string; thumbnailKey: string }, markerIconId: string) =>
      assertOk(
        await call(t.app, 'POST', `${base}/markers`, {
          auth: owner,
          body: {
            latitude: 46.9,
            longitude: 7.4,
            title: 'M',
            imageKey: photo.imageKey,
            thumbnailKey: photo.thumbnailKey,
            markerIconId,
          },
        }),
        201,
      ).marker;
    const onSlide = await marker(shownPhoto, shownIcon);
    await marker(otherPhoto, otherIcon);
    const { slide } = assertOk(
      await call(t.app, 'POST', `${base}/presentation/slides`, {
        auth: owner,
        body: { title: 'S', view: { lat: 46.9, lng: 7.4, zoom: 10 }, markerIds: [onSlide.id] },
      }),
      201,
    );

    const shown = [
      `${base}/markers/image?key=${encodeURIComponent(shownPhoto.imageKey)}`,
      `${base}/markers/image?key=${encodeURIComponent(shownPhoto.thumbnailKey)}`,
      `${base}/marker-icons/${shownIcon}`,
    ];
    const others = [
      `${base}/markers/image?key=${encodeURIComponent(otherPhoto.imageKey)}`,
      `${base}/marker-icons/${otherIcon}`,
    ];
    const read = (url: string, auth?: string) => call(t.app, 'GET', url, { auth });
    // A private deck: the usual refusals.
    for (const url of shown) {
      assertError(await read(url), 401, 'unauthorized');
      assertError(await read(url, users.stranger.token), 403, 'forbidden');
    }
    assertOk(await call(t.app, 'PATCH', `${base}/presentation/public`, { auth: owner, body: { isPublic: true } }));
    for (const url of shown) {
      for (const auth of [undefined, users.stranger.token, owner])
        assert.equal((await read(url, auth)).statusCode, 200, `${url} as ${auth ?? 'anonymous'}`);
    }
    for (const url of others) {
      // A visitor of the deck may not know of what it does not show (404, as for an unknown key)...
      for (const auth of [undefined, users.stranger.token]) assertError(await read(url, auth), 404, 'not_found');
      // ...while the room's members read everything.
      assert.equal((await read(url, owner)).statusCode, 200);
    }
    // The rest of the room stays closed, and a token without read is refused as anywhere.
    assertError(await read(`${base}/markers`), 401, 'unauthorized');
    assertError(await read(`${base}/marker-icons`), 401, 'unauthorized');
    const writeOnly = await issueToken(t.app, users.owner, deckRoom, ['write']);
    assertError(await read(shown[0]!, writeOnly.token), 403, 'forbidden', TOKEN_ERRORS.lacksRead);
    // The slide no longer shows the marker: its files close again.
    assertOk(
      await call(t.app, 'PATCH', `${base}/presentation/slides/${slide.id}`, { auth: owner, body: { markerIds: [] } }),
    );
    for (const url of shown) assertError(await read(url), 404, 'not_found');
  });
});

describe('storage quota', () => {
  test('over quota: 413 quota_exceeded and nothing is stored', async () => {
    const {
      t: small,
      users: { owner },
    } = await scaffold({ config: { storageQuotaBytes: 100 }, users: ['owner'], rooms: [] });
    try {
      const roomId = await createRoom(small.app, owner);
      const res = await postMultipart(
        small.app,
        `/api/rooms/${roomId}/markers/upload-image`,
        { image: taggedJpeg, thumbnail: taggedJpeg },
        owner.token,
      );
      assertError(res, 413, 'quota_exceeded');
      const rows = await small.database.db.selectFrom('stored_files').selectAll().execute();
      assert.deepEqual(rows, []);
      const folder = path.join(small.config.dataDir, 'blobs', 'markers', roomId);
      assert.ok(!existsSync(folder) || readdirSync(folder).length === 0, `files left in ${folder}`);
    } finally {
      await small.close();
    }
  });
});
