/**
 * Markers over HTTP: PATCH rules 1-8 and concurrent PATCHes of one marker.
 * Contract: docs/http-interface.md (Marker, Markers, Events, Errors) and docs/contract-decisions.md.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import {
  assertError,
  assertOk,
  assertValidation,
  call,
  createRoomWithMembers,
  issueToken,
  scaffoldSuite,
  TOKEN_ERRORS,
} from '../helpers.js';
import { MARKER_KEYS, markerCalls, markerUrl, makePhotos, type Photos } from '../support/markers.js';

let photos: Photos;
const s = scaffoldSuite({}, async () => {
  photos = await makePhotos();
});
const { uploadImage, createMarker, getMarker, patchMarker, stored, history, assertFilesPresent, registerIcon } =
  markerCalls(() => ({ ...s, photos }));

describe('PATCH /api/rooms/:roomId/markers/:markerId', () => {
  let iconId: string;
  let full: Record<string, unknown>;
  before(async () => {
    iconId = await registerIcon(s.room, s.users.owner.token);
    const upload = await uploadImage(s.t, s.room, s.users.owner.token);
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
    const original = await createMarker(s.room, s.users.owner.token, full);
    const cases: Record<string, unknown>[] = [
      { title: 'Renamed' },
      { latitude: -1.5 },
      { tags: ['three'] },
      { color: '#fff', mediaSize: 'sm' },
    ];
    let expected = original;
    for (const body of cases) {
      const res = assertOk(await patchMarker(s.room, original.id, body, s.users.editor.token));
      assert.equal(res.success, true);
      expected = { ...expected, ...body };
      const now = await stored(s.room, original.id);
      assert.deepEqual(without(now, 'updatedAt'), without(expected, 'updatedAt'));
      assert.deepEqual(res.marker, now);
      assert.equal(now.createdBy, s.users.owner.id);
      assert.equal(now.createdAt, original.createdAt);
    }
  });

  test('rule 2: null clears a field; "" stores an empty string', async () => {
    const original = await createMarker(s.room, s.users.owner.token, full);
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
    assertOk(await patchMarker(s.room, original.id, clear, s.users.owner.token));
    const cleared = await stored(s.room, original.id);
    for (const key of Object.keys(clear)) assert.equal(cleared[key], null, key);
    assert.equal(cleared.imageMeta, null);
    for (const key of ['latitude', 'longitude', 'title', 'color']) assert.equal(cleared[key], original[key], key);

    assertOk(await patchMarker(s.room, original.id, { description: '' }, s.users.owner.token));
    const empty = await stored(s.room, original.id);
    assert.equal(empty.description, '');
    assert.notEqual(empty.description, null);
    const listed = assertOk(
      await call(s.t.app, 'GET', `/api/rooms/${s.room}/markers`, { auth: s.users.owner.token }),
    ).markers.find((m: { id: string }) => m.id === original.id);
    assert.equal(listed.description, '');
  });

  test('rule 3: latitude, longitude, title and color cannot be cleared with null', async () => {
    const original = await createMarker(s.room, s.users.owner.token, full);
    for (const field of ['latitude', 'longitude', 'title', 'color']) {
      assertValidation(await patchMarker(s.room, original.id, { [field]: null }, s.users.owner.token), field);
      // Not even beside a valid change: the whole PATCH is refused.
      assertValidation(
        await patchMarker(s.room, original.id, { description: 'other', [field]: null }, s.users.owner.token),
        field,
      );
    }
    assert.deepEqual(await stored(s.room, original.id), original);
    // They can be changed.
    const changed = { latitude: 1, longitude: 2, title: 'New title', color: '#000000' };
    assertOk(await patchMarker(s.room, original.id, changed, s.users.owner.token));
    assert.deepEqual(
      without(await stored(s.room, original.id), 'updatedAt'),
      without({ ...original, ...changed }, 'updatedAt'),
    );
  });

  test('rule 5: an empty body, no body and a blank JSON body are 400 empty_update', async () => {
    const original = await createMarker(s.room, s.users.owner.token, full);
    assertError(await patchMarker(s.room, original.id, {}, s.users.owner.token), 400, 'empty_update');
    assertError(
      await call(s.t.app, 'PATCH', markerUrl(s.room, original.id), { auth: s.users.owner.token }),
      400,
      'empty_update',
    );
    assertError(
      await call(s.t.app, 'PATCH', markerUrl(s.room, original.id), {
        auth: s.users.owner.token,
        body: '',
        headers: { 'content-type': 'application/json' },
      }),
      400,
      'empty_update',
    );
    assert.deepEqual(await stored(s.room, original.id), original);
  });

  test('rule 6: an unknown field is 400 unknown_field:<key>, read-only fields included', async () => {
    const original = await createMarker(s.room, s.users.owner.token, full);
    assertError(await patchMarker(s.room, original.id, { foo: 1 }, s.users.owner.token), 400, 'unknown_field:foo');
    assertError(
      await patchMarker(s.room, original.id, { title: 'ignored', foo: 'bar' }, s.users.owner.token),
      400,
      'unknown_field:foo',
    );
    const readOnly: Record<string, unknown> = {
      id: 'marker-other',
      createdBy: s.users.editor.id,
      createdAt: 1,
      updatedAt: 2,
      imageMeta: { camera: { make: 'Forged', model: null } },
    };
    for (const [key, value] of Object.entries(readOnly)) {
      assertError(
        await patchMarker(s.room, original.id, { [key]: value }, s.users.owner.token),
        400,
        `unknown_field:${key}`,
      );
      assertError(
        await patchMarker(s.room, original.id, { title: 'ignored', [key]: value }, s.users.owner.token),
        400,
        `unknown_field:${key}`,
      );
    }
    assert.deepEqual(await stored(s.room, original.id), original);
  });

  test('rule 7: a title with a newline is refused', async () => {
    const original = await createMarker(s.room, s.users.owner.token, full);
    for (const title of ['line\nbreak', 'carriage\rreturn', 'both\r\n', '\n']) {
      assertValidation(await patchMarker(s.room, original.id, { title }, s.users.owner.token), 'title');
    }
    assertValidation(await patchMarker(s.room, original.id, { title: 'T'.repeat(201) }, s.users.owner.token), 'title');
    assert.deepEqual(await stored(s.room, original.id), original);
  });

  test('value rules apply to PATCH too', async () => {
    const original = await createMarker(s.room, s.users.owner.token, full);
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
      assertValidation(await patchMarker(s.room, original.id, { [field]: value }, s.users.owner.token), field);
    }
    assert.deepEqual(await stored(s.room, original.id), original);
  });

  test('rule 4: imageKey and thumbnailKey go together', async () => {
    const original = await createMarker(s.room, s.users.owner.token, full);
    const other = await uploadImage(s.t, s.room, s.users.owner.token, photos.photoB);
    for (const body of [
      { imageKey: other.imageKey },
      { thumbnailKey: other.thumbnailKey },
      { imageKey: null },
      { thumbnailKey: null },
      { imageKey: null, thumbnailKey: other.thumbnailKey },
      { imageKey: other.imageKey, thumbnailKey: null },
    ]) {
      const res = await patchMarker(s.room, original.id, body, s.users.owner.token);
      assertError(res, 400, 'validation_error');
      assert.match(res.json().message + JSON.stringify(res.json().details ?? ''), /imageKey|thumbnailKey/);
    }
    assert.deepEqual(await stored(s.room, original.id), original);
    await assertFilesPresent(s.room, other);
  });

  test('rule 8: a token with write but not read gets back only id and the fields it sent', async () => {
    const original = await createMarker(s.room, s.users.owner.token, full);
    const writeOnly = await issueToken(s.t.app, s.users.owner, s.room, ['write']);
    const read = await issueToken(s.t.app, s.users.owner, s.room, ['read']);

    const one = assertOk(await patchMarker(s.room, original.id, { title: 'From a script' }, writeOnly.token));
    assert.deepEqual(one, { success: true, marker: { id: original.id, title: 'From a script' } });

    const two = assertOk(await patchMarker(s.room, original.id, { latitude: 3.5, description: null }, writeOnly.token));
    assert.deepEqual(two, { success: true, marker: { id: original.id, latitude: 3.5, description: null } });

    const seen = assertOk(await getMarker(s.room, original.id, read.token)).marker;
    assert.deepEqual(Object.keys(seen).sort(), MARKER_KEYS);
    assert.deepEqual(
      without(seen, 'updatedAt'),
      without({ ...original, title: 'From a script', latitude: 3.5, description: null }, 'updatedAt'),
    );
    // The write-only token cannot read the marker itself.
    assertError(await getMarker(s.room, original.id, writeOnly.token), 403, 'forbidden', TOKEN_ERRORS.lacksRead);

    // A token with read and write gets the whole stored marker.
    const both = await issueToken(s.t.app, s.users.owner, s.room, ['read', 'write']);
    const full3 = assertOk(await patchMarker(s.room, original.id, { title: 'Both' }, both.token)).marker;
    assert.deepEqual(full3, await stored(s.room, original.id));
    assert.equal(full3.longitude, original.longitude);
  });
});

describe('concurrent PATCHes of one marker', () => {
  test('20 concurrent PATCHes leave title, color and description from one and the same request', async () => {
    const room = await createRoomWithMembers(s.t.app, s.users);
    const marker = await createMarker(room, s.users.owner.token, {
      title: 'start',
      color: '#000',
      description: 'start',
    });
    const values = (i: number) => ({
      title: `title ${i}`,
      color: `#${(0x100000 + i * 0x010101).toString(16)}`,
      description: `description ${i}`,
    });
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        patchMarker(room, marker.id, values(i), i % 2 ? s.users.owner.token : s.users.editor.token),
      ),
    );
    responses.forEach((res, i) => {
      const body = assertOk(res);
      // Each answer is its own write, untorn.
      assert.deepEqual(
        { title: body.marker.title, color: body.marker.color, description: body.marker.description },
        values(i),
      );
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
