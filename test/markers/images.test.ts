/**
 * Markers over HTTP: a marker's image and its provenance, the image files' lifetime, and
 * room counts and clear.
 * Contract: docs/http-interface.md (Marker, Markers, Events, Errors) and docs/contract-decisions.md.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertError, assertOk, call, createRoom, createRoomWithMembers, scaffoldSuite } from '../helpers.js';
import { markerCalls, makePhotos, type Photos } from '../support/markers.js';

let photos: Photos;
const s = scaffoldSuite({ rooms: ['room', 'otherRoom'] }, async () => {
  photos = await makePhotos();
});
const {
  uploadImage,
  createMarker,
  getMarker,
  patchMarker,
  deleteMarker,
  stored,
  history,
  assertFilesPresent,
  assertFilesGone,
} = markerCalls(() => ({ ...s, photos }));

describe('marker images and their provenance', () => {
  test('imageMeta is the upload exif; a new image replaces it entirely; both null removes image and imageMeta', async () => {
    const first = await uploadImage(s.t, s.room, s.users.editor.token, photos.photoA);
    const second = await uploadImage(s.t, s.room, s.users.editor.token, photos.photoB);
    // The fixtures differ as intended.
    assert.deepEqual(first.exif.camera, { make: 'Canon', model: 'Canon EOS R5' });
    assert.notEqual(first.exif.gps, null);
    assert.deepEqual(second.exif.camera, { make: 'Fujifilm', model: null });
    assert.equal(second.exif.gps, null);
    assert.notEqual(second.exif.takenAt, first.exif.takenAt);

    const marker = await createMarker(s.room, s.users.editor.token, { title: 'Photo' });
    assert.equal(marker.imageMeta, null);
    const set = assertOk(
      await patchMarker(
        s.room,
        marker.id,
        { imageKey: first.imageKey, thumbnailKey: first.thumbnailKey },
        s.users.editor.token,
      ),
    );
    assert.deepEqual(set.marker.imageMeta, first.exif);
    assert.deepEqual((await stored(s.room, marker.id)).imageMeta, first.exif);

    const replaced = assertOk(
      await patchMarker(
        s.room,
        marker.id,
        { imageKey: second.imageKey, thumbnailKey: second.thumbnailKey },
        s.users.editor.token,
      ),
    );
    const now = await stored(s.room, marker.id);
    assert.deepEqual(replaced.marker.imageMeta, second.exif);
    assert.deepEqual(now.imageMeta, second.exif);
    assert.equal(now.imageMeta?.camera?.model, null);
    assert.equal(now.imageMeta.gps, null);
    assert.ok(!JSON.stringify(now).includes('Canon'));
    assert.equal(now.imageKey, second.imageKey);
    assert.equal(now.thumbnailKey, second.thumbnailKey);
    // The first image is referenced by no marker any more.
    await assertFilesGone(s.room, first);
    await assertFilesPresent(s.room, second);

    // Changing something else leaves image and provenance alone.
    assertOk(await patchMarker(s.room, marker.id, { title: 'Still a photo' }, s.users.editor.token));
    assert.deepEqual((await stored(s.room, marker.id)).imageMeta, second.exif);

    const removed = assertOk(
      await patchMarker(s.room, marker.id, { imageKey: null, thumbnailKey: null }, s.users.editor.token),
    );
    assert.equal(removed.marker.imageKey, null);
    assert.equal(removed.marker.imageMeta, null);
    const after = await stored(s.room, marker.id);
    assert.equal(after.imageKey, null);
    assert.equal(after.thumbnailKey, null);
    assert.equal(after.imageMeta, null);
    assert.equal(after.title, 'Still a photo');
    await assertFilesGone(s.room, second);
  });

  test('replaced images stay while another marker references them and go with the last reference', async () => {
    const shared = await uploadImage(s.t, s.room, s.users.owner.token, photos.photoA);
    const next = await uploadImage(s.t, s.room, s.users.owner.token, photos.photoB);
    const pair = { imageKey: shared.imageKey, thumbnailKey: shared.thumbnailKey };
    const a = await createMarker(s.room, s.users.owner.token, pair);
    const b = await createMarker(s.room, s.users.owner.token, pair);
    assert.deepEqual(a.imageMeta, shared.exif);

    assertOk(
      await patchMarker(
        s.room,
        a.id,
        { imageKey: next.imageKey, thumbnailKey: next.thumbnailKey },
        s.users.owner.token,
      ),
    );
    await assertFilesPresent(s.room, shared); // b still uses it
    assert.equal((await stored(s.room, b.id)).imageKey, shared.imageKey);
    assert.deepEqual((await stored(s.room, b.id)).imageMeta, shared.exif);

    assertOk(await patchMarker(s.room, b.id, { imageKey: null, thumbnailKey: null }, s.users.owner.token));
    await assertFilesGone(s.room, shared);
    await assertFilesPresent(s.room, next);
  });

  test('DELETE of a marker removes its images unless another marker references them', async () => {
    const shared = await uploadImage(s.t, s.room, s.users.owner.token, photos.photoA);
    const own = await uploadImage(s.t, s.room, s.users.owner.token, photos.photoB);
    const sharedPair = { imageKey: shared.imageKey, thumbnailKey: shared.thumbnailKey };
    const a = await createMarker(s.room, s.users.owner.token, sharedPair);
    const b = await createMarker(s.room, s.users.owner.token, sharedPair);
    const c = await createMarker(s.room, s.users.owner.token, {
      imageKey: own.imageKey,
      thumbnailKey: own.thumbnailKey,
    });

    assertOk(await deleteMarker(s.room, c.id, s.users.owner.token));
    await assertFilesGone(s.room, own);

    assertOk(await deleteMarker(s.room, a.id, s.users.owner.token));
    await assertFilesPresent(s.room, shared);
    assertOk(await deleteMarker(s.room, b.id, s.users.owner.token));
    await assertFilesGone(s.room, shared);
  });

  test('an image key of another room, or one never uploaded, is 400 and changes nothing', async () => {
    const foreign = await uploadImage(s.t, s.otherRoom, s.users.owner.token, photos.photoA);
    const mine = await uploadImage(s.t, s.room, s.users.owner.token, photos.photoB);
    const marker = await createMarker(s.room, s.users.owner.token, {
      imageKey: mine.imageKey,
      thumbnailKey: mine.thumbnailKey,
    });
    const bodies = [
      { imageKey: foreign.imageKey, thumbnailKey: foreign.thumbnailKey },
      { imageKey: mine.imageKey, thumbnailKey: foreign.thumbnailKey },
      { imageKey: foreign.imageKey, thumbnailKey: mine.thumbnailKey },
      {
        imageKey: `markers/${s.room}/00000000-0000-4000-8000-000000000000.jpg`,
        thumbnailKey: `markers/${s.room}/00000000-0000-4000-8000-000000000000_thumb.jpg`,
      },
      // The pair swapped: an image key where the thumbnail goes.
      { imageKey: mine.thumbnailKey, thumbnailKey: mine.imageKey },
    ];
    for (const body of bodies) {
      assertError(await patchMarker(s.room, marker.id, body, s.users.owner.token), 400, 'validation_error');
      assertError(
        await call(s.t.app, 'POST', `/api/rooms/${s.room}/markers`, {
          auth: s.users.owner.token,
          body: { latitude: 1, longitude: 1, ...body },
        }),
        400,
        'validation_error',
      );
    }
    assert.deepEqual(await stored(s.room, marker.id), marker);
    await assertFilesPresent(s.otherRoom, foreign);
    await assertFilesPresent(s.room, mine);
  });
});

describe('room counts and clear', () => {
  test('counts.markers follows creates and deletes', async () => {
    const room = await createRoomWithMembers(s.t.app, s.users);
    const count = async () =>
      assertOk(await call(s.t.app, 'GET', `/api/rooms/${room}`, { auth: s.users.owner.token })).counts.markers;
    assert.equal(await count(), 0);
    const a = await createMarker(room, s.users.owner.token);
    const b = await createMarker(room, s.users.editor.token);
    await createMarker(room, s.users.editor.token);
    assert.equal(await count(), 3);
    assertOk(await deleteMarker(room, a.id, s.users.owner.token));
    assert.equal(await count(), 2);
    assertError(await deleteMarker(room, a.id, s.users.owner.token), 404, 'not_found');
    assert.equal(await count(), 2);
    assertOk(await deleteMarker(room, b.id, s.users.owner.token));
    assert.equal(await count(), 1);
  });

  test('clear removes every marker and their image files, and writes one room.cleared entry', async () => {
    const room = await createRoomWithMembers(s.t.app, s.users);
    const other = await createRoom(s.t.app, s.users.owner);
    const first = await uploadImage(s.t, room, s.users.owner.token, photos.photoA);
    const second = await uploadImage(s.t, room, s.users.owner.token, photos.photoB);
    const survivor = await uploadImage(s.t, other, s.users.owner.token, photos.photoA);
    const otherMarker = await createMarker(other, s.users.owner.token, {
      imageKey: survivor.imageKey,
      thumbnailKey: survivor.thumbnailKey,
    });
    const ids = [
      (await createMarker(room, s.users.owner.token, { imageKey: first.imageKey, thumbnailKey: first.thumbnailKey }))
        .id,
      (await createMarker(room, s.users.editor.token, { imageKey: first.imageKey, thumbnailKey: first.thumbnailKey }))
        .id,
      (await createMarker(room, s.users.editor.token, { imageKey: second.imageKey, thumbnailKey: second.thumbnailKey }))
        .id,
      (await createMarker(room, s.users.editor.token, { title: 'no image' })).id,
    ];
    const before = await history(room);

    const body = assertOk(await call(s.t.app, 'POST', `/api/rooms/${room}/clear`, { auth: s.users.owner.token }));
    assert.equal(body.success, true);
    assert.equal(body.removed.markers, 4);

    assert.deepEqual(
      assertOk(await call(s.t.app, 'GET', `/api/rooms/${room}/markers`, { auth: s.users.owner.token })),
      {
        count: 0,
        markers: [],
      },
    );
    for (const id of ids) assertError(await getMarker(room, id, s.users.owner.token), 404, 'not_found');
    assert.equal(
      assertOk(await call(s.t.app, 'GET', `/api/rooms/${room}`, { auth: s.users.owner.token })).counts.markers,
      0,
    );
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
    assert.deepEqual(after[0]!.actor, { kind: 'user', id: s.users.owner.id, name: s.users.owner.email });
    assert.deepEqual(after.slice(1), before);
  });
});
