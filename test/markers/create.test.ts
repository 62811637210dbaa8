/**
 * Markers over HTTP: create with every validation rule, list and read, and the 404 of a
 * marker that is not there.
 * Contract: docs/http-interface.md (Marker, Markers, Events, Errors) and docs/contract-decisions.md.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import {
  assertError,
  assertOk,
  assertValidation,
  call,
  createRoom,
  createRoomWithMembers,
  scaffoldSuite,
} from '../helpers.js';
import { MARKER_ID, MARKER_KEYS, markerCalls, makePhotos, type Photos } from '../support/markers.js';

let photos: Photos;
const s = scaffoldSuite({ rooms: [] }, async () => {
  photos = await makePhotos();
});
const { uploadImage, createMarker, getMarker, patchMarker, deleteMarker, stored, history, registerIcon, markerCount } =
  markerCalls(() => ({ ...s, photos }));

describe('POST /api/rooms/:roomId/markers', () => {
  let room: string;
  before(async () => {
    room = await createRoomWithMembers(s.t.app, s.users);
  });

  test('only latitude and longitude are required: 201 with the new marker, the rest null', async () => {
    const res = await call(s.t.app, 'POST', `/api/rooms/${room}/markers`, {
      auth: s.users.editor.token,
      body: { latitude: -33.5, longitude: 151.25 },
    });
    const body = assertOk(res, 201);
    assert.deepEqual(Object.keys(body).sort(), ['marker', 'success']);
    assert.equal(body.success, true);
    const { marker } = body;
    assert.match(marker.id, MARKER_ID);
    assert.deepEqual(Object.keys(marker).sort(), MARKER_KEYS);
    assert.equal(marker.latitude, -33.5);
    assert.equal(marker.longitude, 151.25);
    for (const key of [
      'title',
      'description',
      'color',
      'tags',
      'eventDate',
      'markerIconId',
      'markerIconSize',
      'imageKey',
      'thumbnailKey',
      'imageMeta',
      'embeddedMediaUrl',
      'mediaSize',
    ]) {
      assert.equal(marker[key], null, key);
    }
    assert.equal(marker.createdBy, s.users.editor.id);
    assert.ok(Number.isInteger(marker.createdAt));
    assert.deepEqual(await stored(room, marker.id), marker);
  });

  test('every field is stored as sent and read back the same', async () => {
    const iconId = await registerIcon(room, s.users.owner.token);
    const upload = await uploadImage(s.t, room, s.users.owner.token);
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
    const marker = await createMarker(room, s.users.owner.token, input);
    for (const [key, value] of Object.entries(input)) assert.deepEqual(marker[key], value, key);
    assert.deepEqual(marker.imageMeta, upload.exif);
    assert.deepEqual(await stored(room, marker.id), marker);
    // The other boundaries of each range are accepted too.
    for (const body of [
      { latitude: -90, longitude: 180 },
      { color: '#0a0B0c', markerIconSize: 8, mediaSize: 'sm', embeddedMediaUrl: 'http://example.org/a' },
      { color: '#0a0b0c0d', mediaSize: 'md', tags: [], eventDate: -1 },
    ])
      await createMarker(room, s.users.owner.token, body);
  });

  test('missing latitude or longitude is 400 naming it, and nothing is created', async () => {
    const before = await markerCount(room);
    for (const [body, field] of [
      [{ longitude: 1 }, 'latitude'],
      [{ latitude: 1 }, 'longitude'],
      [{ title: 'no position' }, 'latitude'],
      [{}, 'latitude'],
    ] as const) {
      assertValidation(
        await call(s.t.app, 'POST', `/api/rooms/${room}/markers`, { auth: s.users.owner.token, body }),
        field,
      );
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
      const res = await call(s.t.app, 'POST', `/api/rooms/${room}/markers`, {
        auth: s.users.owner.token,
        body: { latitude: 10, longitude: 10, [field]: value },
      });
      assert.equal(res.statusCode, 400, `${field}=${JSON.stringify(value).slice(0, 40)}: ${res.body}`);
      assertValidation(res, field);
    }
    assert.equal(await markerCount(room), before);
  });

  test('markerIconId must name an icon of this room', async () => {
    const otherRoom = await createRoom(s.t.app, s.users.owner);
    const foreignIcon = await registerIcon(otherRoom, s.users.owner.token);
    const before = await markerCount(room);
    for (const markerIconId of ['icon-api-doesnotexist0000', foreignIcon]) {
      assertValidation(
        await call(s.t.app, 'POST', `/api/rooms/${room}/markers`, {
          auth: s.users.owner.token,
          body: { latitude: 1, longitude: 1, markerIconId },
        }),
        'markerIconId',
      );
    }
    assert.equal(await markerCount(room), before);
  });

  test('an unknown or read-only field is 400 unknown_field:<key>', async () => {
    const before = await markerCount(room);
    for (const key of ['foo', 'id', 'createdBy', 'createdAt', 'updatedAt', 'imageMeta']) {
      const res = await call(s.t.app, 'POST', `/api/rooms/${room}/markers`, {
        auth: s.users.owner.token,
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
    room = await createRoomWithMembers(s.t.app, s.users);
    otherRoom = await createRoom(s.t.app, s.users.owner);
  });

  test('the list is {count, markers} with every marker of the room and none of another', async () => {
    const empty = assertOk(await call(s.t.app, 'GET', `/api/rooms/${room}/markers`, { auth: s.users.viewer.token }));
    assert.deepEqual(empty, { count: 0, markers: [] });
    const a = await createMarker(room, s.users.owner.token, { title: 'A' });
    const b = await createMarker(room, s.users.editor.token, { title: 'B', tags: ['x'] });
    await createMarker(otherRoom, s.users.owner.token, { title: 'elsewhere' });
    const body = assertOk(await call(s.t.app, 'GET', `/api/rooms/${room}/markers`, { auth: s.users.viewer.token }));
    assert.deepEqual(Object.keys(body).sort(), ['count', 'markers']);
    assert.equal(body.count, 2);
    assert.equal(body.markers.length, 2);
    const byId = new Map(body.markers.map((m: { id: string }) => [m.id, m]));
    assert.deepEqual(byId.get(a.id), a);
    assert.deepEqual(byId.get(b.id), b);
  });

  test('read-one answers {success: true, marker} without the creator e-mail', async () => {
    const created = await createMarker(room, s.users.editor.token, { title: 'One', description: 'desc' });
    const body = assertOk(await getMarker(room, created.id, s.users.viewer.token));
    assert.deepEqual(body, { success: true, marker: created });
    assert.ok(!JSON.stringify(body).includes(s.users.editor.email));
  });

  test('a missing id, a deleted marker and a marker of another room are 404 not_found for GET, PATCH and DELETE', async () => {
    const deleted = await createMarker(room, s.users.owner.token);
    assert.deepEqual(assertOk(await deleteMarker(room, deleted.id, s.users.owner.token)), {
      success: true,
      markerId: deleted.id,
    });
    const foreign = await createMarker(otherRoom, s.users.owner.token, { title: 'foreign' });
    const versionBefore = (await history(room))[0]!.version;
    for (const id of ['marker-doesnotexist', deleted.id, foreign.id]) {
      assertError(await getMarker(room, id, s.users.owner.token), 404, 'not_found');
      assertError(await patchMarker(room, id, { title: 'changed' }, s.users.owner.token), 404, 'not_found');
      assertError(await deleteMarker(room, id, s.users.owner.token), 404, 'not_found');
    }
    // The other room's marker is untouched; no history was written for any of these.
    assert.deepEqual(await stored(otherRoom, foreign.id), foreign);
    assert.equal((await history(room))[0]!.version, versionBefore);
  });
});
