/**
 * Markers over HTTP: create, read, list, PATCH rules 1-8, delete, images and their
 * provenance, concurrency, history, the 502 of a failed broadcast, access, counts and clear.
 * Contract: http-interface.md (Marker, Markers, Events, Errors) and decisions.md.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import type { LiveEvent, LiveHub, LiveListener } from '../src/infra/live-hub.js';
import {
  addMember,
  assertError,
  assertOk,
  assertValidation,
  buildTestApp,
  call,
  createRoom,
  createRoomWithMembers,
  issueToken,
  multipart,
  type Response,
  signup,
  signupAll,
  type TestApp,
  type TestUser,
} from './helpers.js';

const READ_ONLY = "API token lacks 'write' permission";
const WRITE_ONLY = "API token lacks 'read' permission";
const WRONG_ROOM = 'API token is not scoped to this room';
const MARKER_ID = /^marker-/;

/** The fields every marker view carries (read-one, list, PATCH answer to a reader). */
const MARKER_KEYS = [
  'color', 'createdAt', 'createdBy', 'description', 'embeddedMediaUrl', 'eventDate', 'id', 'imageKey', 'imageMeta',
  'latitude', 'longitude', 'markerIconId', 'markerIconSize', 'mediaSize', 'tags', 'thumbnailKey', 'title', 'updatedAt',
].sort();

/** A live hub that records what it publishes and, while `failing`, rejects every publish. */
class SwitchableLiveHub implements LiveHub {
  failing = false;
  readonly published: LiveEvent[] = [];
  async publish(event: LiveEvent): Promise<void> {
    if (this.failing) throw new Error('live hub unreachable (test)');
    this.published.push(event);
  }
  subscribe(_roomId: string, _listener: LiveListener): () => void {
    return () => {};
  }
  async close(): Promise<void> {}
}

interface Upload {
  imageKey: string;
  thumbnailKey: string;
  exif: { takenAt: number | null; camera: { make: string | null; model: string | null } | null; gps: unknown };
}

let t: TestApp;
let hub: SwitchableLiveHub;
let users: { owner: TestUser; editor: TestUser; viewer: TestUser };
let stranger: TestUser;
let work: string;
/** A JPEG with DateTimeOriginal, camera make and model, and a GPS position. */
let photoA: Buffer;
/** A JPEG with another DateTimeOriginal, a camera make only, and no GPS. */
let photoB: Buffer;
let thumb: Buffer;

async function uploadImage(app: TestApp, roomId: string, auth: string, image = photoA): Promise<Upload> {
  const { payload, headers } = await multipart({ image, thumbnail: thumb });
  const res = (await app.app.inject({
    method: 'POST',
    url: `/api/rooms/${roomId}/markers/upload-image`,
    headers: { ...headers, authorization: `Bearer ${auth}` },
    payload,
  })) as Response;
  return assertOk(res) as Upload;
}

async function createMarker(roomId: string, auth: string, body: Record<string, unknown> = {}, app = t) {
  const res = await call(app.app, 'POST', `/api/rooms/${roomId}/markers`, {
    auth,
    body: { latitude: 46.2, longitude: 6.1, ...body },
  });
  const json = assertOk(res, 201);
  return json.marker as Record<string, any> & { id: string };
}

const markerUrl = (roomId: string, markerId: string) => `/api/rooms/${roomId}/markers/${markerId}`;
const getMarker = (roomId: string, markerId: string, auth?: string, app = t) => call(app.app, 'GET', markerUrl(roomId, markerId), { auth });
const patchMarker = (roomId: string, markerId: string, body: unknown, auth?: string, app = t) =>
  call(app.app, 'PATCH', markerUrl(roomId, markerId), { auth, body });
const deleteMarker = (roomId: string, markerId: string, auth?: string, app = t) => call(app.app, 'DELETE', markerUrl(roomId, markerId), { auth });

/** The stored marker, read by the owner. */
async function stored(roomId: string, markerId: string, app = t) {
  return assertOk(await getMarker(roomId, markerId, users.owner.token, app)).marker as Record<string, any>;
}

interface HistoryEvent {
  id: string;
  version: number;
  type: string;
  objectType: string;
  objectId: string;
  actor: { kind: string; id: string };
  at: number;
  changes?: Record<string, unknown>;
}

async function history(roomId: string, query = 'limit=500', app = t): Promise<HistoryEvent[]> {
  const res = await call(app.app, 'GET', `/api/rooms/${roomId}/history?${query}`, { auth: users.owner.token });
  const body = assertOk(res);
  assert.deepEqual(Object.keys(body), ['events']);
  return body.events;
}

const imageStatus = async (roomId: string, key: string, app = t) =>
  (await call(app.app, 'GET', `/api/rooms/${roomId}/markers/image?key=${encodeURIComponent(key)}`, { auth: users.owner.token })).statusCode;

async function storedFileRows(keys: string[], app = t) {
  return app.database.db.selectFrom('stored_files').select('key').where('key', 'in', keys).execute();
}

/** Both files of the upload are served and recorded. */
async function assertFilesPresent(roomId: string, upload: Upload, app = t) {
  assert.equal(await imageStatus(roomId, upload.imageKey, app), 200);
  assert.equal(await imageStatus(roomId, upload.thumbnailKey, app), 200);
  assert.equal((await storedFileRows([upload.imageKey, upload.thumbnailKey], app)).length, 2);
}

/** Neither file of the upload is served or recorded any more. */
async function assertFilesGone(roomId: string, upload: Upload, app = t) {
  assert.equal(await imageStatus(roomId, upload.imageKey, app), 404);
  assert.equal(await imageStatus(roomId, upload.thumbnailKey, app), 404);
  assert.deepEqual(await storedFileRows([upload.imageKey, upload.thumbnailKey], app), []);
}

async function registerIcon(roomId: string, auth: string): Promise<string> {
  const form = new FormData();
  const svg = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24"><circle cx="12" cy="12" r="10" fill="#e33"/></svg>';
  form.append('icon', new Blob([svg], { type: 'image/svg+xml' }), 'icon.svg');
  form.append('name', 'Pin');
  form.append('size', '24');
  const encoded = new Response(form);
  const res = (await t.app.inject({
    method: 'POST',
    url: `/api/rooms/${roomId}/marker-icons`,
    headers: { 'content-type': encoded.headers.get('content-type')!, authorization: `Bearer ${auth}` },
    payload: Buffer.from(await encoded.arrayBuffer()),
  })) as Response;
  return assertOk(res, 201).iconId;
}

async function markerCount(roomId: string) {
  return assertOk(await call(t.app, 'GET', `/api/rooms/${roomId}/markers`, { auth: users.owner.token })).count as number;
}

function exiftool(file: string, args: string[]) {
  execFileSync('exiftool', ['-q', '-overwrite_original', ...args, file]);
}

before(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'maproom-markers-'));
  const raw = Buffer.alloc(40 * 30 * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = (i * 13) % 256;
  const source = sharp(raw, { raw: { width: 40, height: 30, channels: 3 } });
  const plain = await source.clone().jpeg().toBuffer();
  thumb = await source.clone().resize(20, 15).jpeg().toBuffer();
  const a = path.join(work, 'a.jpg');
  writeFileSync(a, plain);
  exiftool(a, [
    '-DateTimeOriginal=2021:03:04 05:06:07', '-Make=Canon', '-Model=Canon EOS R5',
    '-GPSLatitude=46.5', '-GPSLatitudeRef=N', '-GPSLongitude=7.25', '-GPSLongitudeRef=E',
    '-GPSAltitude=1200', '-GPSAltitudeRef=Above Sea Level',
  ]);
  photoA = readFileSync(a);
  const b = path.join(work, 'b.jpg');
  writeFileSync(b, plain);
  exiftool(b, ['-DateTimeOriginal=2022:08:09 10:11:12', '-Make=Fujifilm']);
  photoB = readFileSync(b);

  hub = new SwitchableLiveHub();
  t = await buildTestApp({}, { liveHub: hub });
  users = await signupAll(t.app, 'owner', 'editor', 'viewer');
  stranger = await signup(t.app);
});
after(async () => {
  await t.close();
  rmSync(work, { recursive: true, force: true });
});

describe('POST /api/rooms/:roomId/markers', () => {
  let room: string;
  before(async () => {
    room = await createRoomWithMembers(t.app, users);
  });

  test('only latitude and longitude are required: 201 with the new marker, the rest null', async () => {
    const res = await call(t.app, 'POST', `/api/rooms/${room}/markers`, { auth: users.editor.token, body: { latitude: -33.5, longitude: 151.25 } });
    const body = assertOk(res, 201);
    assert.deepEqual(Object.keys(body).sort(), ['marker', 'success']);
    assert.equal(body.success, true);
    const { marker } = body;
    assert.match(marker.id, MARKER_ID);
    assert.deepEqual(Object.keys(marker).sort(), MARKER_KEYS);
    assert.equal(marker.latitude, -33.5);
    assert.equal(marker.longitude, 151.25);
    for (const key of ['title', 'description', 'color', 'tags', 'eventDate', 'markerIconId', 'markerIconSize', 'imageKey', 'thumbnailKey', 'imageMeta', 'embeddedMediaUrl', 'mediaSize']) {
      assert.equal(marker[key], null, key);
    }
    assert.equal(marker.createdBy, users.editor.id);
    assert.ok(Number.isInteger(marker.createdAt));
    assert.deepEqual(await stored(room, marker.id), marker);
  });

  test('every field is stored as sent and read back the same', async () => {
    const iconId = await registerIcon(room, users.owner.token);
    const upload = await uploadImage(t, room, users.owner.token);
    const input = {
      latitude: 90,
      longitude: -180,
      title: 'T'.repeat(200),
      description: 'D'.repeat(10_000),
      color: '#aBc',
      tags: Array.from({ length: 50 }, (_, i) => (i === 0 ? 'x'.repeat(64) : `tag${i}`)),
      eventDate: 1_700_000_000_123,
      markerIconId: iconId,
      markerIconSize: 256,
      imageKey: upload.imageKey,
      thumbnailKey: upload.thumbnailKey,
      embeddedMediaUrl: 'https://example.com/video?id=1',
      mediaSize: 'lg',
    };
    const marker = await createMarker(room, users.owner.token, input);
    for (const [key, value] of Object.entries(input)) assert.deepEqual(marker[key], value, key);
    assert.deepEqual(marker.imageMeta, upload.exif);
    assert.deepEqual(await stored(room, marker.id), marker);
    // The other boundaries of each range are accepted too.
    for (const body of [
      { latitude: -90, longitude: 180 },
      { color: '#0a0B0c', markerIconSize: 8, mediaSize: 'sm', embeddedMediaUrl: 'http://example.org/a' },
      { color: '#0a0b0c0d', mediaSize: 'md', tags: [], eventDate: -1 },
    ]) await createMarker(room, users.owner.token, body);
  });

  test('missing latitude or longitude is 400 naming it, and nothing is created', async () => {
    const before = await markerCount(room);
    for (const [body, field] of [
      [{ longitude: 1 }, 'latitude'],
      [{ latitude: 1 }, 'longitude'],
      [{ title: 'no position' }, 'latitude'],
      [{}, 'latitude'],
    ] as const) {
      assertValidation(await call(t.app, 'POST', `/api/rooms/${room}/markers`, { auth: users.owner.token, body }), field);
    }
    assert.equal(await markerCount(room), before);
  });

  test('every value rule is 400 validation_error naming the field, and nothing is created', async () => {
    const before = await markerCount(room);
    const cases: [string, unknown][] = [
      ['latitude', 90.0001],
      ['latitude', -91],
      ['latitude', '45'],
      ['longitude', 180.5],
      ['longitude', -181],
      ['title', 'T'.repeat(201)],
      ['title', 'two\nlines'],
      ['title', 'carriage\rreturn'],
      ['title', 42],
      ['description', 'D'.repeat(10_001)],
      ['color', 'red'],
      ['color', '#12345'],
      ['color', '#ggg'],
      ['color', 'abcdef'],
      ['color', '#1234567'],
      ['tags', Array.from({ length: 51 }, (_, i) => `t${i}`)],
      ['tags', ['ok', '']],
      ['tags', ['x'.repeat(65)]],
      ['tags', 'not-an-array'],
      ['eventDate', 1.5],
      ['eventDate', '2024-01-01'],
      ['markerIconSize', 7],
      ['markerIconSize', 257],
      ['markerIconSize', 8.5],
      ['mediaSize', 'xl'],
      ['embeddedMediaUrl', 'javascript:alert(1)'],
      ['embeddedMediaUrl', 'ftp://example.com/file'],
      ['embeddedMediaUrl', `https://example.com/${'a'.repeat(2048)}`],
    ];
    for (const [field, value] of cases) {
      const res = await call(t.app, 'POST', `/api/rooms/${room}/markers`, {
        auth: users.owner.token,
        body: { latitude: 10, longitude: 10, [field]: value },
      });
      assert.equal(res.statusCode, 400, `${field}=${JSON.stringify(value).slice(0, 40)}: ${res.body}`);
      assertValidation(res, field);
    }
    assert.equal(await markerCount(room), before);
  });

  test('markerIconId must name an icon of this room', async () => {
    const otherRoom = await createRoom(t.app, users.owner);
    const foreignIcon = await registerIcon(otherRoom, users.owner.token);
    const before = await markerCount(room);
    for (const markerIconId of ['icon-api-doesnotexist0000', foreignIcon]) {
      assertValidation(
        await call(t.app, 'POST', `/api/rooms/${room}/markers`, { auth: users.owner.token, body: { latitude: 1, longitude: 1, markerIconId } }),
        'markerIconId',
      );
    }
    assert.equal(await markerCount(room), before);
  });

  test('an unknown or read-only field is 400 unknown_field:<key>', async () => {
    const before = await markerCount(room);
    for (const key of ['foo', 'id', 'createdBy', 'createdAt', 'updatedAt', 'imageMeta']) {
      const res = await call(t.app, 'POST', `/api/rooms/${room}/markers`, {
        auth: users.owner.token,
        body: { latitude: 1, longitude: 2, [key]: key === 'createdAt' || key === 'updatedAt' ? 5 : 'x' },
      });
      assertError(res, 400, `unknown_field:${key}`);
    }
    assert.equal(await markerCount(room), before);
  });
});

describe('GET markers, GET/PATCH/DELETE of a marker that is not there', () => {
  let room: string;
  let otherRoom: string;
  before(async () => {
    room = await createRoomWithMembers(t.app, users);
    otherRoom = await createRoom(t.app, users.owner);
  });

  test('the list is {count, markers} with every marker of the room and none of another', async () => {
    const empty = assertOk(await call(t.app, 'GET', `/api/rooms/${room}/markers`, { auth: users.viewer.token }));
    assert.deepEqual(empty, { count: 0, markers: [] });
    const a = await createMarker(room, users.owner.token, { title: 'A' });
    const b = await createMarker(room, users.editor.token, { title: 'B', tags: ['x'] });
    await createMarker(otherRoom, users.owner.token, { title: 'elsewhere' });
    const body = assertOk(await call(t.app, 'GET', `/api/rooms/${room}/markers`, { auth: users.viewer.token }));
    assert.deepEqual(Object.keys(body).sort(), ['count', 'markers']);
    assert.equal(body.count, 2);
    assert.equal(body.markers.length, 2);
    const byId = new Map(body.markers.map((m: { id: string }) => [m.id, m]));
    assert.deepEqual(byId.get(a.id), a);
    assert.deepEqual(byId.get(b.id), b);
  });

  test('read-one answers {success: true, marker} without the creator e-mail', async () => {
    const created = await createMarker(room, users.editor.token, { title: 'One', description: 'desc' });
    const body = assertOk(await getMarker(room, created.id, users.viewer.token));
    assert.deepEqual(body, { success: true, marker: created });
    assert.ok(!JSON.stringify(body).includes(users.editor.email));
  });

  test('a missing id, a deleted marker and a marker of another room are 404 not_found for GET, PATCH and DELETE', async () => {
    const deleted = await createMarker(room, users.owner.token);
    assert.deepEqual(assertOk(await deleteMarker(room, deleted.id, users.owner.token)), { success: true, markerId: deleted.id });
    const foreign = await createMarker(otherRoom, users.owner.token, { title: 'foreign' });
    const versionBefore = (await history(room))[0]!.version;
    for (const id of ['marker-doesnotexist', deleted.id, foreign.id]) {
      assertError(await getMarker(room, id, users.owner.token), 404, 'not_found');
      assertError(await patchMarker(room, id, { title: 'changed' }, users.owner.token), 404, 'not_found');
      assertError(await deleteMarker(room, id, users.owner.token), 404, 'not_found');
    }
    // The other room's marker is untouched; no history was written for any of these.
    assert.deepEqual(await stored(otherRoom, foreign.id), foreign);
    assert.equal((await history(room))[0]!.version, versionBefore);
  });
});

describe('PATCH /api/rooms/:roomId/markers/:markerId', () => {
  let room: string;
  let iconId: string;
  let full: Record<string, unknown>;
  before(async () => {
    room = await createRoomWithMembers(t.app, users);
    iconId = await registerIcon(room, users.owner.token);
    const upload = await uploadImage(t, room, users.owner.token);
    full = {
      latitude: 12.5,
      longitude: -45.25,
      title: 'Full',
      description: 'A description',
      color: '#336699',
      tags: ['one', 'two'],
      eventDate: 1_650_000_000_000,
      markerIconId: iconId,
      markerIconSize: 32,
      imageKey: upload.imageKey,
      thumbnailKey: upload.thumbnailKey,
      embeddedMediaUrl: 'https://example.com/clip',
      mediaSize: 'md',
    };
  });

  const without = (marker: Record<string, unknown>, ...keys: string[]) =>
    Object.fromEntries(Object.entries(marker).filter(([k]) => !keys.includes(k)));

  test('rule 1: omitted fields are left unchanged; the answer is the stored marker', async () => {
    const original = await createMarker(room, users.owner.token, full);
    const cases: Record<string, unknown>[] = [{ title: 'Renamed' }, { latitude: -1.5 }, { tags: ['three'] }, { color: '#fff', mediaSize: 'sm' }];
    let expected = original;
    for (const body of cases) {
      const res = assertOk(await patchMarker(room, original.id, body, users.editor.token));
      assert.equal(res.success, true);
      expected = { ...expected, ...body };
      const now = await stored(room, original.id);
      assert.deepEqual(without(now, 'updatedAt'), without(expected, 'updatedAt'));
      assert.deepEqual(res.marker, now);
      assert.equal(now.createdBy, users.owner.id);
      assert.equal(now.createdAt, original.createdAt);
    }
  });

  test('rule 2: null clears a field; "" stores an empty string', async () => {
    const original = await createMarker(room, users.owner.token, full);
    const clear = {
      description: null,
      tags: null,
      eventDate: null,
      markerIconId: null,
      markerIconSize: null,
      embeddedMediaUrl: null,
      mediaSize: null,
      imageKey: null,
      thumbnailKey: null,
    };
    assertOk(await patchMarker(room, original.id, clear, users.owner.token));
    const cleared = await stored(room, original.id);
    for (const key of Object.keys(clear)) assert.equal(cleared[key], null, key);
    assert.equal(cleared.imageMeta, null);
    for (const key of ['latitude', 'longitude', 'title', 'color']) assert.equal(cleared[key], original[key], key);

    assertOk(await patchMarker(room, original.id, { description: '' }, users.owner.token));
    const empty = await stored(room, original.id);
    assert.equal(empty.description, '');
    assert.notEqual(empty.description, null);
    const listed = assertOk(await call(t.app, 'GET', `/api/rooms/${room}/markers`, { auth: users.owner.token })).markers.find(
      (m: { id: string }) => m.id === original.id,
    );
    assert.equal(listed.description, '');
  });

  test('rule 3: latitude, longitude, title and color cannot be cleared with null', async () => {
    const original = await createMarker(room, users.owner.token, full);
    for (const field of ['latitude', 'longitude', 'title', 'color']) {
      assertValidation(await patchMarker(room, original.id, { [field]: null }, users.owner.token), field);
      // Not even beside a valid change: the whole PATCH is refused.
      assertValidation(await patchMarker(room, original.id, { description: 'other', [field]: null }, users.owner.token), field);
    }
    assert.deepEqual(await stored(room, original.id), original);
    // They can be changed.
    const changed = { latitude: 1, longitude: 2, title: 'New title', color: '#000000' };
    assertOk(await patchMarker(room, original.id, changed, users.owner.token));
    assert.deepEqual(without(await stored(room, original.id), 'updatedAt'), without({ ...original, ...changed }, 'updatedAt'));
  });

  test('rule 5: an empty body, no body and a blank JSON body are 400 empty_update', async () => {
    const original = await createMarker(room, users.owner.token, full);
    assertError(await patchMarker(room, original.id, {}, users.owner.token), 400, 'empty_update');
    assertError(await call(t.app, 'PATCH', markerUrl(room, original.id), { auth: users.owner.token }), 400, 'empty_update');
    assertError(
      await call(t.app, 'PATCH', markerUrl(room, original.id), { auth: users.owner.token, body: '', headers: { 'content-type': 'application/json' } }),
      400,
      'empty_update',
    );
    assert.deepEqual(await stored(room, original.id), original);
  });

  test('rule 6: an unknown field is 400 unknown_field:<key>, read-only fields included', async () => {
    const original = await createMarker(room, users.owner.token, full);
    assertError(await patchMarker(room, original.id, { foo: 1 }, users.owner.token), 400, 'unknown_field:foo');
    assertError(await patchMarker(room, original.id, { title: 'ignored', foo: 'bar' }, users.owner.token), 400, 'unknown_field:foo');
    const readOnly: Record<string, unknown> = {
      id: 'marker-other',
      createdBy: users.editor.id,
      createdAt: 1,
      updatedAt: 2,
      imageMeta: { camera: { make: 'Forged', model: null } },
    };
    for (const [key, value] of Object.entries(readOnly)) {
      assertError(await patchMarker(room, original.id, { [key]: value }, users.owner.token), 400, `unknown_field:${key}`);
      assertError(await patchMarker(room, original.id, { title: 'ignored', [key]: value }, users.owner.token), 400, `unknown_field:${key}`);
    }
    assert.deepEqual(await stored(room, original.id), original);
  });

  test('rule 7: a title with a newline is refused', async () => {
    const original = await createMarker(room, users.owner.token, full);
    for (const title of ['line\nbreak', 'carriage\rreturn', 'both\r\n', '\n']) {
      assertValidation(await patchMarker(room, original.id, { title }, users.owner.token), 'title');
    }
    assertValidation(await patchMarker(room, original.id, { title: 'T'.repeat(201) }, users.owner.token), 'title');
    assert.deepEqual(await stored(room, original.id), original);
  });

  test('value rules apply to PATCH too', async () => {
    const original = await createMarker(room, users.owner.token, full);
    for (const [field, value] of [
      ['latitude', 91],
      ['longitude', -180.01],
      ['color', 'red'],
      ['tags', Array.from({ length: 51 }, (_, i) => `t${i}`)],
      ['markerIconSize', 257],
      ['mediaSize', 'huge'],
      ['embeddedMediaUrl', 'javascript:alert(1)'],
      ['eventDate', 2.5],
      ['markerIconId', 'icon-api-missing00000000'],
    ] as const) {
      assertValidation(await patchMarker(room, original.id, { [field]: value }, users.owner.token), field);
    }
    assert.deepEqual(await stored(room, original.id), original);
  });

  test('rule 4: imageKey and thumbnailKey go together', async () => {
    const original = await createMarker(room, users.owner.token, full);
    const other = await uploadImage(t, room, users.owner.token, photoB);
    for (const body of [
      { imageKey: other.imageKey },
      { thumbnailKey: other.thumbnailKey },
      { imageKey: null },
      { thumbnailKey: null },
      { imageKey: null, thumbnailKey: other.thumbnailKey },
      { imageKey: other.imageKey, thumbnailKey: null },
    ]) {
      const res = await patchMarker(room, original.id, body, users.owner.token);
      assertError(res, 400, 'validation_error');
      assert.match(res.json().message + JSON.stringify(res.json().details ?? ''), /imageKey|thumbnailKey/);
    }
    assert.deepEqual(await stored(room, original.id), original);
    await assertFilesPresent(room, other);
  });

  test('rule 8: a token with write but not read gets back only id and the fields it sent', async () => {
    const original = await createMarker(room, users.owner.token, full);
    const writeOnly = await issueToken(t.app, users.owner, room, ['write']);
    const read = await issueToken(t.app, users.owner, room, ['read']);

    const one = assertOk(await patchMarker(room, original.id, { title: 'From a script' }, writeOnly.token));
    assert.deepEqual(one, { success: true, marker: { id: original.id, title: 'From a script' } });

    const two = assertOk(await patchMarker(room, original.id, { latitude: 3.5, description: null }, writeOnly.token));
    assert.deepEqual(two, { success: true, marker: { id: original.id, latitude: 3.5, description: null } });

    const seen = assertOk(await getMarker(room, original.id, read.token)).marker;
    assert.deepEqual(Object.keys(seen).sort(), MARKER_KEYS);
    assert.deepEqual(
      without(seen, 'updatedAt'),
      without({ ...original, title: 'From a script', latitude: 3.5, description: null }, 'updatedAt'),
    );
    // The write-only token cannot read the marker itself.
    assertError(await getMarker(room, original.id, writeOnly.token), 403, 'forbidden', WRITE_ONLY);

    // A token with read and write gets the whole stored marker.
    const both = await issueToken(t.app, users.owner, room, ['read', 'write']);
    const full3 = assertOk(await patchMarker(room, original.id, { title: 'Both' }, both.token)).marker;
    assert.deepEqual(full3, await stored(room, original.id));
    assert.equal(full3.longitude, original.longitude);
  });
});

describe('marker images and their provenance', () => {
  let room: string;
  let otherRoom: string;
  before(async () => {
    room = await createRoomWithMembers(t.app, users);
    otherRoom = await createRoom(t.app, users.owner);
  });

  test('imageMeta is the upload exif; a new image replaces it entirely; both null removes image and imageMeta', async () => {
    const first = await uploadImage(t, room, users.editor.token, photoA);
    const second = await uploadImage(t, room, users.editor.token, photoB);
    // The fixtures differ as intended.
    assert.deepEqual(first.exif.camera, { make: 'Canon', model: 'Canon EOS R5' });
    assert.notEqual(first.exif.gps, null);
    assert.deepEqual(second.exif.camera, { make: 'Fujifilm', model: null });
    assert.equal(second.exif.gps, null);
    assert.notEqual(second.exif.takenAt, first.exif.takenAt);

    const marker = await createMarker(room, users.editor.token, { title: 'Photo' });
    assert.equal(marker.imageMeta, null);
    const set = assertOk(await patchMarker(room, marker.id, { imageKey: first.imageKey, thumbnailKey: first.thumbnailKey }, users.editor.token));
    assert.deepEqual(set.marker.imageMeta, first.exif);
    assert.deepEqual((await stored(room, marker.id)).imageMeta, first.exif);

    const replaced = assertOk(await patchMarker(room, marker.id, { imageKey: second.imageKey, thumbnailKey: second.thumbnailKey }, users.editor.token));
    const now = await stored(room, marker.id);
    assert.deepEqual(replaced.marker.imageMeta, second.exif);
    assert.deepEqual(now.imageMeta, second.exif);
    assert.equal(now.imageMeta?.camera?.model, null);
    assert.equal(now.imageMeta.gps, null);
    assert.ok(!JSON.stringify(now).includes('Canon'));
    assert.equal(now.imageKey, second.imageKey);
    assert.equal(now.thumbnailKey, second.thumbnailKey);
    // The first image is referenced by no marker any more.
    await assertFilesGone(room, first);
    await assertFilesPresent(room, second);

    // Changing something else leaves image and provenance alone.
    assertOk(await patchMarker(room, marker.id, { title: 'Still a photo' }, users.editor.token));
    assert.deepEqual((await stored(room, marker.id)).imageMeta, second.exif);

    const removed = assertOk(await patchMarker(room, marker.id, { imageKey: null, thumbnailKey: null }, users.editor.token));
    assert.equal(removed.marker.imageKey, null);
    assert.equal(removed.marker.imageMeta, null);
    const after = await stored(room, marker.id);
    assert.equal(after.imageKey, null);
    assert.equal(after.thumbnailKey, null);
    assert.equal(after.imageMeta, null);
    assert.equal(after.title, 'Still a photo');
    await assertFilesGone(room, second);
  });

  test('replaced images stay while another marker references them and go with the last reference', async () => {
    const shared = await uploadImage(t, room, users.owner.token, photoA);
    const next = await uploadImage(t, room, users.owner.token, photoB);
    const pair = { imageKey: shared.imageKey, thumbnailKey: shared.thumbnailKey };
    const a = await createMarker(room, users.owner.token, pair);
    const b = await createMarker(room, users.owner.token, pair);
    assert.deepEqual(a.imageMeta, shared.exif);

    assertOk(await patchMarker(room, a.id, { imageKey: next.imageKey, thumbnailKey: next.thumbnailKey }, users.owner.token));
    await assertFilesPresent(room, shared); // b still uses it
    assert.equal((await stored(room, b.id)).imageKey, shared.imageKey);
    assert.deepEqual((await stored(room, b.id)).imageMeta, shared.exif);

    assertOk(await patchMarker(room, b.id, { imageKey: null, thumbnailKey: null }, users.owner.token));
    await assertFilesGone(room, shared);
    await assertFilesPresent(room, next);
  });

  test('DELETE of a marker removes its images unless another marker references them', async () => {
    const shared = await uploadImage(t, room, users.owner.token, photoA);
    const own = await uploadImage(t, room, users.owner.token, photoB);
    const sharedPair = { imageKey: shared.imageKey, thumbnailKey: shared.thumbnailKey };
    const a = await createMarker(room, users.owner.token, sharedPair);
    const b = await createMarker(room, users.owner.token, sharedPair);
    const c = await createMarker(room, users.owner.token, { imageKey: own.imageKey, thumbnailKey: own.thumbnailKey });

    assertOk(await deleteMarker(room, c.id, users.owner.token));
    await assertFilesGone(room, own);

    assertOk(await deleteMarker(room, a.id, users.owner.token));
    await assertFilesPresent(room, shared);
    assertOk(await deleteMarker(room, b.id, users.owner.token));
    await assertFilesGone(room, shared);
  });

  test('an image key of another room, or one never uploaded, is 400 and changes nothing', async () => {
    const foreign = await uploadImage(t, otherRoom, users.owner.token, photoA);
    const mine = await uploadImage(t, room, users.owner.token, photoB);
    const marker = await createMarker(room, users.owner.token, { imageKey: mine.imageKey, thumbnailKey: mine.thumbnailKey });
    const bodies = [
      { imageKey: foreign.imageKey, thumbnailKey: foreign.thumbnailKey },
      { imageKey: mine.imageKey, thumbnailKey: foreign.thumbnailKey },
      { imageKey: foreign.imageKey, thumbnailKey: mine.thumbnailKey },
      { imageKey: `markers/${room}/00000000-0000-4000-8000-000000000000.jpg`, thumbnailKey: `markers/${room}/00000000-0000-4000-8000-000000000000_thumb.jpg` },
      // The pair swapped: an image key where the thumbnail goes.
      { imageKey: mine.thumbnailKey, thumbnailKey: mine.imageKey },
    ];
    for (const body of bodies) {
      assertError(await patchMarker(room, marker.id, body, users.owner.token), 400, 'validation_error');
      assertError(await call(t.app, 'POST', `/api/rooms/${room}/markers`, { auth: users.owner.token, body: { latitude: 1, longitude: 1, ...body } }), 400, 'validation_error');
    }
    assert.deepEqual(await stored(room, marker.id), marker);
    await assertFilesPresent(otherRoom, foreign);
    await assertFilesPresent(room, mine);
  });
});

describe('concurrent PATCHes of one marker', () => {
  test('20 concurrent PATCHes leave title, color and description from one and the same request', async () => {
    const room = await createRoomWithMembers(t.app, users);
    const marker = await createMarker(room, users.owner.token, { title: 'start', color: '#000', description: 'start' });
    const values = (i: number) => ({
      title: `title ${i}`,
      color: `#${(0x100000 + i * 0x010101).toString(16)}`,
      description: `description ${i}`,
    });
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => patchMarker(room, marker.id, values(i), i % 2 ? users.owner.token : users.editor.token)),
    );
    responses.forEach((res, i) => {
      const body = assertOk(res);
      // Each answer is its own write, untorn.
      assert.deepEqual({ title: body.marker.title, color: body.marker.color, description: body.marker.description }, values(i));
    });
    const now = await stored(room, marker.id);
    const i = Number(/^title (\d+)$/.exec(now.title)?.[1]);
    assert.ok(Number.isInteger(i) && i >= 0 && i < 20, now.title);
    assert.deepEqual({ title: now.title, color: now.color, description: now.description }, values(i));
    assert.equal(now.latitude, marker.latitude);

    // One history entry each; the newest is the write that won.
    const updates = (await history(room)).filter((e) => e.type === 'marker.updated' && e.objectId === marker.id);
    assert.equal(updates.length, 20);
    assert.equal(new Set(updates.map((e) => e.version)).size, 20);
    assert.deepEqual(updates[0]!.changes, values(i));
  });
});

describe('GET /api/rooms/:roomId/history', () => {
  let room: string;
  before(async () => {
    room = await createRoomWithMembers(t.app, users);
  });

  const KEYS = new Set(['id', 'version', 'type', 'objectType', 'objectId', 'actor', 'at', 'changes']);

  test('create, each PATCH and each DELETE write exactly one entry, newest first, with actor and changes', async () => {
    const start = await history(room);
    const token = await issueToken(t.app, users.owner, room, ['read', 'write']);
    const marker = await createMarker(room, users.editor.token, { title: 'History' });
    let events = await history(room);
    assert.equal(events.length, start.length + 1);
    assert.equal(events[0]!.type, 'marker.created');
    assert.equal(events[0]!.objectType, 'marker');
    assert.equal(events[0]!.objectId, marker.id);
    assert.deepEqual(events[0]!.actor, { kind: 'user', id: users.editor.id });

    const sessionChange = { title: 'By session', tags: ['a', 'b'], description: null };
    assertOk(await patchMarker(room, marker.id, sessionChange, users.editor.token));
    events = await history(room);
    assert.equal(events.length, start.length + 2);
    const updated = events[0]!;
    assert.equal(updated.type, 'marker.updated');
    assert.equal(updated.objectType, 'marker');
    assert.equal(updated.objectId, marker.id);
    assert.deepEqual(updated.actor, { kind: 'user', id: users.editor.id });
    assert.deepEqual(updated.changes, sessionChange);
    assert.equal(typeof updated.id, 'string');
    assert.ok(Number.isInteger(updated.at));
    assert.ok(updated.version > events[1]!.version);
    for (const key of Object.keys(updated)) assert.ok(KEYS.has(key), key);

    const tokenChange = { latitude: -5 };
    assertOk(await patchMarker(room, marker.id, tokenChange, token.token));
    events = await history(room);
    assert.equal(events.length, start.length + 3);
    assert.deepEqual(events[0]!.actor, { kind: 'token', id: token.id });
    assert.deepEqual(events[0]!.changes, tokenChange);
    assert.equal(events[0]!.type, 'marker.updated');

    assertOk(await deleteMarker(room, marker.id, token.token));
    events = await history(room);
    assert.equal(events.length, start.length + 4);
    assert.equal(events[0]!.type, 'marker.deleted');
    assert.equal(events[0]!.objectType, 'marker');
    assert.equal(events[0]!.objectId, marker.id);
    assert.deepEqual(events[0]!.actor, { kind: 'token', id: token.id });

    assert.deepEqual(
      events.slice(0, 4).map((e) => e.type),
      ['marker.deleted', 'marker.updated', 'marker.updated', 'marker.created'],
    );
    for (let i = 1; i < events.length; i++) assert.ok(events[i - 1]!.version > events[i]!.version);
    assert.equal(new Set(events.map((e) => e.id)).size, events.length);
  });

  test('a PATCH and a DELETE each send exactly one live event', async () => {
    const marker = await createMarker(room, users.owner.token);
    const mark = hub.published.length;
    assertOk(await patchMarker(room, marker.id, { title: 'live' }, users.owner.token));
    let sent = hub.published.slice(mark);
    assert.equal(sent.length, 1);
    assert.equal(sent[0]!.type, 'marker.updated');
    assert.equal(sent[0]!.objectId, marker.id);
    assert.equal(sent[0]!.roomId, room);
    assert.equal(sent[0]!.version, (await history(room))[0]!.version);
    assertOk(await deleteMarker(room, marker.id, users.owner.token));
    sent = hub.published.slice(mark + 1);
    assert.equal(sent.length, 1);
    assert.equal(sent[0]!.type, 'marker.deleted');
    assert.equal(sent[0]!.objectId, marker.id);
  });

  test('a refused PATCH or DELETE (400, 404, 403) writes no history', async () => {
    const marker = await createMarker(room, users.owner.token, { title: 'stable' });
    const before = await history(room);
    const refused: Response[] = [
      await patchMarker(room, marker.id, {}, users.owner.token),
      await patchMarker(room, marker.id, { foo: 1 }, users.owner.token),
      await patchMarker(room, marker.id, { title: null }, users.owner.token),
      await patchMarker(room, marker.id, { color: 'red' }, users.owner.token),
      await patchMarker(room, marker.id, { markerIconId: 'icon-api-nope0000000000' }, users.owner.token),
      await patchMarker(room, 'marker-missing', { title: 'x' }, users.owner.token),
      await deleteMarker(room, 'marker-missing', users.owner.token),
      await patchMarker(room, marker.id, { title: 'x' }, users.viewer.token),
      await deleteMarker(room, marker.id, users.viewer.token),
    ];
    assert.deepEqual(refused.map((r) => r.statusCode), [400, 400, 400, 400, 400, 404, 404, 403, 403]);
    assert.deepEqual(await history(room), before);
  });

  test('pages back with before=<version> and limit; limit 0 or 501 is 400', async () => {
    const pagingRoom = await createRoom(t.app, users.owner);
    const marker = await createMarker(pagingRoom, users.owner.token);
    for (let i = 0; i < 6; i++) assertOk(await patchMarker(pagingRoom, marker.id, { title: `v${i}` }, users.owner.token));
    const all = await history(pagingRoom);
    assert.equal(all.length, 7);
    assert.deepEqual(all.map((e) => e.changes?.title ?? null), ['v5', 'v4', 'v3', 'v2', 'v1', 'v0', null]);

    const pages: HistoryEvent[][] = [];
    let query = 'limit=3';
    for (;;) {
      const page = await history(pagingRoom, query);
      pages.push(page);
      if (page.length === 0) break;
      query = `limit=3&before=${Math.min(...page.map((e) => e.version))}`;
    }
    assert.deepEqual(pages.map((p) => p.length), [3, 3, 1, 0]);
    assert.deepEqual(pages.flat(), all);
    // before is exclusive: the entry with that version is not in the page.
    const middle = all[3]!;
    const older = await history(pagingRoom, `before=${middle.version}`);
    assert.deepEqual(older, all.slice(4));
    // Without limit, up to the default page size (more than these 7).
    assert.deepEqual(await history(pagingRoom, ''), all);
    assert.deepEqual(await history(pagingRoom, 'limit=1'), [all[0]]);

    for (const limit of ['0', '501', '-1', 'abc']) {
      assertValidation(await call(t.app, 'GET', `/api/rooms/${pagingRoom}/history?limit=${limit}`, { auth: users.owner.token }), 'limit');
    }
    assertOk(await call(t.app, 'GET', `/api/rooms/${pagingRoom}/history?limit=500`, { auth: users.owner.token }));
  });

  test('history needs read: read token, member or anonymous on a public room; 401/403 otherwise', async () => {
    const read = await issueToken(t.app, users.owner, room, ['read']);
    const writeOnly = await issueToken(t.app, users.owner, room, ['write']);
    const otherRoom = await createRoom(t.app, users.owner);
    const foreign = await issueToken(t.app, users.owner, otherRoom, ['read', 'write']);
    const url = `/api/rooms/${room}/history`;
    const expected = await history(room);
    assert.ok(expected.length > 0);
    for (const auth of [read.token, users.viewer.token, users.editor.token]) {
      assert.deepEqual(assertOk(await call(t.app, 'GET', `${url}?limit=500`, { auth })).events, expected);
    }
    assertError(await call(t.app, 'GET', url), 401, 'unauthorized');
    assertError(await call(t.app, 'GET', url, { auth: stranger.token }), 403, 'forbidden');
    assertError(await call(t.app, 'GET', url, { auth: writeOnly.token }), 403, 'forbidden', WRITE_ONLY);
    assertError(await call(t.app, 'GET', url, { auth: foreign.token }), 403, 'forbidden', WRONG_ROOM);

    const publicRoom = await createRoom(t.app, users.owner, undefined, { isPublic: true });
    const m = await createMarker(publicRoom, users.owner.token);
    const anonymous = assertOk(await call(t.app, 'GET', `/api/rooms/${publicRoom}/history`));
    assert.equal(anonymous.events[0].objectId, m.id);
    assert.equal(anonymous.events[0].type, 'marker.created');
  });
});

describe('a change that cannot be broadcast', () => {
  let failApp: TestApp;
  let failHub: SwitchableLiveHub;
  let owner: TestUser;
  let room: string;
  before(async () => {
    failHub = new SwitchableLiveHub();
    failApp = await buildTestApp({}, { liveHub: failHub });
    owner = await signup(failApp.app);
    room = await createRoom(failApp.app, owner);
  });
  after(() => failApp.close());

  const events = async () =>
    assertOk(await call(failApp.app, 'GET', `/api/rooms/${room}/history?limit=500`, { auth: owner.token })).events as HistoryEvent[];
  const read = (markerId: string) => call(failApp.app, 'GET', markerUrl(room, markerId), { auth: owner.token });

  test('PATCH answers 502 broadcast_failed, but the change is saved and in history', async () => {
    const res = await call(failApp.app, 'POST', `/api/rooms/${room}/markers`, { auth: owner.token, body: { latitude: 1, longitude: 2, title: 'before' } });
    const marker = assertOk(res, 201).marker;
    const before = await events();
    failHub.failing = true;
    try {
      const change = { title: 'after', color: '#abcdef' };
      const patched = await call(failApp.app, 'PATCH', markerUrl(room, marker.id), { auth: owner.token, body: change });
      assertError(patched, 502, 'broadcast_failed');
      assert.ok(!patched.body.includes('live hub unreachable'));
      const now = assertOk(await read(marker.id)).marker;
      assert.equal(now.title, 'after');
      assert.equal(now.color, '#abcdef');
      const after = await events();
      assert.equal(after.length, before.length + 1);
      assert.equal(after[0]!.type, 'marker.updated');
      assert.equal(after[0]!.objectId, marker.id);
      assert.deepEqual(after[0]!.changes, change);
      assert.deepEqual(after[0]!.actor, { kind: 'user', id: owner.id });
    } finally {
      failHub.failing = false;
    }
  });

  test('DELETE answers 502 broadcast_failed, but the marker is gone and marker.deleted is in history', async () => {
    const res = await call(failApp.app, 'POST', `/api/rooms/${room}/markers`, { auth: owner.token, body: { latitude: 1, longitude: 2 } });
    const marker = assertOk(res, 201).marker;
    const before = await events();
    failHub.failing = true;
    try {
      assertError(await call(failApp.app, 'DELETE', markerUrl(room, marker.id), { auth: owner.token }), 502, 'broadcast_failed');
      assertError(await read(marker.id), 404, 'not_found');
      const after = await events();
      assert.equal(after.length, before.length + 1);
      assert.equal(after[0]!.type, 'marker.deleted');
      assert.equal(after[0]!.objectId, marker.id);
      // Gone for good: a second DELETE is 404 (and writes nothing, so nothing to broadcast).
      assertError(await call(failApp.app, 'DELETE', markerUrl(room, marker.id), { auth: owner.token }), 404, 'not_found');
      assert.equal((await events()).length, after.length);
    } finally {
      failHub.failing = false;
    }
  });
});

describe('who may read and change markers', () => {
  let room: string;
  let otherRoom: string;
  let publicRoom: string;
  let marker: Record<string, any> & { id: string };
  let publicMarker: Record<string, any> & { id: string };
  before(async () => {
    room = await createRoomWithMembers(t.app, users);
    otherRoom = await createRoom(t.app, users.owner);
    publicRoom = await createRoom(t.app, users.owner, undefined, { isPublic: true });
    await addMember(t.app, users.owner, publicRoom, users.viewer, 'viewer');
    marker = await createMarker(room, users.owner.token, { title: 'guarded' });
    publicMarker = await createMarker(publicRoom, users.owner.token, { title: 'public' });
  });

  const attempts = (roomId: string, markerId: string, auth?: string) =>
    Promise.all([
      call(t.app, 'POST', `/api/rooms/${roomId}/markers`, { auth, body: { latitude: 1, longitude: 1 } }),
      patchMarker(roomId, markerId, { title: 'hijacked' }, auth),
      deleteMarker(roomId, markerId, auth),
    ]);

  test('owner and editor sessions and a write token may create, change and delete', async () => {
    const writer = await issueToken(t.app, users.owner, room, ['read', 'write']);
    for (const auth of [users.owner.token, users.editor.token, writer.token]) {
      const m = await createMarker(room, auth);
      assertOk(await patchMarker(room, m.id, { title: 'ok' }, auth));
      assert.deepEqual(assertOk(await deleteMarker(room, m.id, auth)), { success: true, markerId: m.id });
      assertError(await getMarker(room, m.id, users.owner.token), 404, 'not_found');
    }
  });

  test('a viewer session reads but gets 403 forbidden on create, PATCH and DELETE', async () => {
    const before = await markerCount(room);
    for (const res of await attempts(room, marker.id, users.viewer.token)) assertError(res, 403, 'forbidden');
    assert.deepEqual(assertOk(await getMarker(room, marker.id, users.viewer.token)).marker, marker);
    assert.equal(assertOk(await call(t.app, 'GET', `/api/rooms/${room}/markers`, { auth: users.viewer.token })).count, before);
    assert.equal(await markerCount(room), before);
  });

  test('a non-member session gets 403 forbidden on everything in a private room', async () => {
    for (const res of await attempts(room, marker.id, stranger.token)) assertError(res, 403, 'forbidden');
    assertError(await getMarker(room, marker.id, stranger.token), 403, 'forbidden');
    assertError(await call(t.app, 'GET', `/api/rooms/${room}/markers`, { auth: stranger.token }), 403, 'forbidden');
    assert.deepEqual(await stored(room, marker.id), marker);
  });

  test("a read-only token reads but gets 403 \"API token lacks 'write' permission\"", async () => {
    const read = await issueToken(t.app, users.owner, room, ['read']);
    const before = await markerCount(room);
    for (const res of await attempts(room, marker.id, read.token)) assertError(res, 403, 'forbidden', READ_ONLY);
    assert.deepEqual(assertOk(await getMarker(room, marker.id, read.token)).marker, marker);
    assert.equal(assertOk(await call(t.app, 'GET', `/api/rooms/${room}/markers`, { auth: read.token })).count, before);
    assert.equal(await markerCount(room), before);
  });

  test('a token of another room gets 403 "API token is not scoped to this room"', async () => {
    const foreign = await issueToken(t.app, users.owner, otherRoom, ['read', 'write']);
    for (const res of await attempts(room, marker.id, foreign.token)) assertError(res, 403, 'forbidden', WRONG_ROOM);
    assertError(await getMarker(room, marker.id, foreign.token), 403, 'forbidden', WRONG_ROOM);
    assertError(await call(t.app, 'GET', `/api/rooms/${room}/markers`, { auth: foreign.token }), 403, 'forbidden', WRONG_ROOM);
    assert.deepEqual(await stored(room, marker.id), marker);
  });

  test('anonymous callers read a public room but get 401 on create, PATCH and DELETE', async () => {
    const list = assertOk(await call(t.app, 'GET', `/api/rooms/${publicRoom}/markers`));
    assert.equal(list.count, 1);
    assert.deepEqual(list.markers, [publicMarker]);
    assert.deepEqual(assertOk(await getMarker(publicRoom, publicMarker.id)), { success: true, marker: publicMarker });
    assertError(await getMarker(publicRoom, 'marker-missing'), 404, 'not_found');
    for (const res of await attempts(publicRoom, publicMarker.id)) assertError(res, 401, 'unauthorized');
    // A viewer of the public room still cannot write; a signed-in non-member reads.
    for (const res of await attempts(publicRoom, publicMarker.id, users.viewer.token)) assertError(res, 403, 'forbidden');
    assertOk(await getMarker(publicRoom, publicMarker.id, stranger.token));
    for (const res of await attempts(publicRoom, publicMarker.id, stranger.token)) assertError(res, 403, 'forbidden');
    assert.deepEqual(await stored(publicRoom, publicMarker.id), publicMarker);
  });

  test('anonymous callers get 401 on a private room', async () => {
    assertError(await call(t.app, 'GET', `/api/rooms/${room}/markers`), 401, 'unauthorized');
    assertError(await getMarker(room, marker.id), 401, 'unauthorized');
    for (const res of await attempts(room, marker.id)) assertError(res, 401, 'unauthorized');
    assert.deepEqual(await stored(room, marker.id), marker);
  });
});

describe('room counts and clear', () => {
  test('counts.markers follows creates and deletes', async () => {
    const room = await createRoomWithMembers(t.app, users);
    const count = async () => assertOk(await call(t.app, 'GET', `/api/rooms/${room}`, { auth: users.owner.token })).counts.markers;
    assert.equal(await count(), 0);
    const a = await createMarker(room, users.owner.token);
    const b = await createMarker(room, users.editor.token);
    await createMarker(room, users.editor.token);
    assert.equal(await count(), 3);
    assertOk(await deleteMarker(room, a.id, users.owner.token));
    assert.equal(await count(), 2);
    assertError(await deleteMarker(room, a.id, users.owner.token), 404, 'not_found');
    assert.equal(await count(), 2);
    assertOk(await deleteMarker(room, b.id, users.owner.token));
    assert.equal(await count(), 1);
  });

  test('clear removes every marker and their image files, and writes one room.cleared entry', async () => {
    const room = await createRoomWithMembers(t.app, users);
    const other = await createRoom(t.app, users.owner);
    const first = await uploadImage(t, room, users.owner.token, photoA);
    const second = await uploadImage(t, room, users.owner.token, photoB);
    const survivor = await uploadImage(t, other, users.owner.token, photoA);
    const otherMarker = await createMarker(other, users.owner.token, { imageKey: survivor.imageKey, thumbnailKey: survivor.thumbnailKey });
    const ids = [
      (await createMarker(room, users.owner.token, { imageKey: first.imageKey, thumbnailKey: first.thumbnailKey })).id,
      (await createMarker(room, users.editor.token, { imageKey: first.imageKey, thumbnailKey: first.thumbnailKey })).id,
      (await createMarker(room, users.editor.token, { imageKey: second.imageKey, thumbnailKey: second.thumbnailKey })).id,
      (await createMarker(room, users.editor.token, { title: 'no image' })).id,
    ];
    const before = await history(room);

    const body = assertOk(await call(t.app, 'POST', `/api/rooms/${room}/clear`, { auth: users.owner.token }));
    assert.equal(body.success, true);
    assert.equal(body.removed.markers, 4);

    assert.deepEqual(assertOk(await call(t.app, 'GET', `/api/rooms/${room}/markers`, { auth: users.owner.token })), { count: 0, markers: [] });
    for (const id of ids) assertError(await getMarker(room, id, users.owner.token), 404, 'not_found');
    assert.equal(assertOk(await call(t.app, 'GET', `/api/rooms/${room}`, { auth: users.owner.token })).counts.markers, 0);
    await assertFilesGone(room, first);
    await assertFilesGone(room, second);
    // Another room's marker and image are untouched.
    await assertFilesPresent(other, survivor);
    assert.deepEqual(await stored(other, otherMarker.id), otherMarker);

    const after = await history(room);
    assert.equal(after.length, before.length + 1);
    assert.equal(after[0]!.type, 'room.cleared');
    assert.equal(after[0]!.objectType, 'room');
    assert.equal(after[0]!.objectId, room);
    assert.deepEqual(after[0]!.actor, { kind: 'user', id: users.owner.id });
    assert.deepEqual(after.slice(1), before);
  });
});
