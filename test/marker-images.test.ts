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
} from './helpers.js';

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
    '-q', '-overwrite_original',
    '-DateTimeOriginal=2023:06:15 14:30:45', '-OffsetTimeOriginal=+02:00',
    '-Make=Canon', '-Model=Canon EOS R5', '-IFD0:Artist=Jane Doe', '-XMP-dc:Creator=Jane Doe',
    '-GPSLatitude=48.8584', '-GPSLatitudeRef=N', '-GPSLongitude=2.2945', '-GPSLongitudeRef=W',
    '-GPSAltitude=35.5', '-GPSAltitudeRef=Above Sea Level', '-Orientation#=6',
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

    const rows = await t.database.db.selectFrom('stored_files').selectAll().where('room_id', '=', room).orderBy('kind').execute();
    const mine = rows.filter((r) => r.key === body.imageKey || r.key === body.thumbnailKey);
    assert.deepEqual(mine.map((r) => [r.kind, r.content_type]), [['marker-image', 'image/jpeg'], ['marker-thumbnail', 'image/jpeg']]);
    assert.deepEqual(JSON.parse(mine[0]!.meta!), body.exif);
  });

  test('a photo without EXIF answers nulls; a large thumbnail is capped to 512 px', async () => {
    const big = await sharp({ create: { width: 1200, height: 900, channels: 3, background: '#3366aa' } }).jpeg().toBuffer();
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
    execFileSync('exiftool', ['-q', '-overwrite_original', '-Make=Nikon', '-GPSLatitude=10.5', '-GPSLatitudeRef=S',
      '-GPSLongitude=20.25', '-GPSLongitudeRef=E', tagged]);
    for (const [input, thumbnail] of [[readFileSync(tagged), png], [webp, webp]] as const) {
      const res = await upload(room, { image: input, thumbnail }, users.editor.token);
      assert.equal(res.statusCode, 200, res.body);
      for (const key of [res.json().imageKey, res.json().thumbnailKey]) {
        const served = await getImage(room, key, users.editor.token);
        assert.equal(served.statusCode, 200);
        assert.deepEqual([...served.rawPayload.subarray(0, 3)], [0xff, 0xd8, 0xff]);
        assert.equal((await sharp(served.rawPayload).metadata()).format, 'jpeg');
      }
      if (input !== webp) {
        assert.deepEqual(res.json().exif, { takenAt: null, camera: { make: 'Nikon', model: null }, gps: { latitude: -10.5, longitude: 20.25, altitude: null } });
      }
    }
  });

  test('a file that does not decode, or is not an accepted format, is 400 naming the field', async () => {
    assertValidation(await upload(room, { image: Buffer.from('not an image at all'), thumbnail: plainJpeg }, users.owner.token), 'image');
    assertValidation(await upload(room, { image: plainJpeg, thumbnail: plainJpeg.subarray(0, 40) }, users.owner.token), 'thumbnail');
    const gif = await sharp(png).gif().toBuffer();
    assertValidation(await upload(room, { image: gif, thumbnail: plainJpeg }, users.owner.token), 'image');
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>');
    assertValidation(await upload(room, { image: svg, thumbnail: plainJpeg }, users.owner.token), 'image');
    assertValidation(await upload(room, { image: Buffer.alloc(0), thumbnail: plainJpeg }, users.owner.token), 'image');
  });

  test('image is required; other parts are refused; a non-multipart body is 415', async () => {
    assertValidation(await upload(room, { thumbnail: plainJpeg }, users.owner.token), 'image');
    assertValidation(await upload(room, { image: plainJpeg, thumbnail: plainJpeg, photo: plainJpeg }, users.owner.token), 'photo');
    const json = await call(t.app, 'POST', `/api/rooms/${room}/markers/upload-image`, { auth: users.owner.token, body: { image: 'x' } });
    assertError(json, 415, 'unsupported_media_type');
  });

  test('without a thumbnail, one is made from the image: a JPEG whose longest side is 256 px', async () => {
    const big = await sharp({ create: { width: 800, height: 400, channels: 3, background: { r: 10, g: 120, b: 200 } } }).jpeg().toBuffer();
    const json = assertOk(await upload(room, { image: big }, users.owner.token));
    assert.match(json.thumbnailKey, new RegExp(`^markers/${room}/${UUID}_thumb\\.jpg$`));
    const thumb = await call(t.app, 'GET', `/api/rooms/${room}/markers/image?key=${encodeURIComponent(json.thumbnailKey)}`, { auth: users.owner.token });
    assert.equal(thumb.statusCode, 200);
    const meta = await sharp(thumb.rawPayload).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ['jpeg', 256, 128]);
  });

  test('a file over 20 MB is 413 file_too_large', async () => {
    const huge = Buffer.alloc(20 * 1024 * 1024 + 1, 0x41);
    const res = await upload(room, { image: plainJpeg, thumbnail: huge }, users.owner.token);
    const body = assertError(res, 413, 'file_too_large');
    assert.deepEqual(body.details, { field: 'thumbnail', maxBytes: 20 * 1024 * 1024 });
    // The first oversized part is the one named (it is never kept cut short at the cap).
    const both = assertError(await upload(room, { image: huge, thumbnail: huge }, users.owner.token), 413, 'file_too_large');
    assert.equal(both.details.field, 'image');
    const exact = await upload(room, { image: Buffer.alloc(20 * 1024 * 1024, 0x41), thumbnail: plainJpeg }, users.owner.token);
    assertValidation(exact, 'image');
  });

  test('permissions: viewer 403, read token 403, wrong-room token 403 before the body is read', async () => {
    assertError(await upload(room, { image: plainJpeg, thumbnail: plainJpeg }, users.viewer.token), 403, 'forbidden');
    const read = await issueToken(t.app, users.owner, room, ['read']);
    assertError(await upload(room, { image: plainJpeg, thumbnail: plainJpeg }, read.token), 403, 'forbidden', TOKEN_ERRORS.lacksWrite);
    const write = await issueToken(t.app, users.owner, room, ['write']);
    assert.equal((await upload(room, { image: plainJpeg, thumbnail: plainJpeg }, write.token)).statusCode, 200);
    const huge = Buffer.alloc(20 * 1024 * 1024 + 1, 0x41);
    assertError(await upload(otherRoom, { image: huge, thumbnail: huge }, write.token), 403, 'forbidden', TOKEN_ERRORS.wrongRoom);
    assertError(await upload(room, { image: huge, thumbnail: huge }), 401, 'unauthorized');
  });
});

describe('GET /api/rooms/:roomId/markers/image', () => {
  let imageKey: string;
  let thumbnailKey: string;
  let otherKey: string;
  before(async () => {
    ({ imageKey, thumbnailKey } = (await upload(room, { image: plainJpeg, thumbnail: plainJpeg }, users.owner.token)).json());
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
    const row = await t.database.db.selectFrom('stored_files').select('bytes').where('key', '=', imageKey).executeTakeFirstOrThrow();
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
      assertError(await call(t.app, 'GET', `/api/rooms/${room}/markers/image?${query}`, { auth: users.owner.token }), 404, 'not_found');
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

describe('storage quota', () => {
  test('over quota: 413 quota_exceeded and nothing is stored', async () => {
    const { t: small, users: { owner } } = await scaffold({ config: { storageQuotaBytes: 100 }, users: ['owner'], rooms: [] });
    try {
      const roomId = await createRoom(small.app, owner);
      const res = await postMultipart(small.app, `/api/rooms/${roomId}/markers/upload-image`, { image: taggedJpeg, thumbnail: taggedJpeg }, owner.token);
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
