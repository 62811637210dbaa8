/**
 * The presentation over HTTP: the snapshot (only what the slides show); the public deck of a
 * private room (and nothing else of that room), and who publishes it.
 * Contract: docs/http-interface.md (GET /presentation, PATCH /presentation/public, States) and
 * docs/contract-decisions.md ("Drawings, presentation, history, live changes"; Rooms).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertError, assertFieldError, assertOk, call, issueToken, labelled, scaffoldSuite } from '../helpers.js';
import { ids, PRESENTATION_KEYS, slideCalls, slidesUrl, sorted, VIEW } from '../support/slides.js';

const s = scaffoldSuite({ rooms: [] });
const { newRoom, postSlide, getPresentation, publishDeck, createSlide, createMarker, createDrawing } = slideCalls(
  () => s,
);

describe('GET /api/rooms/:roomId/presentation', () => {
  test('answers exactly {slides, markers, layers, rasterLayers, drawings} with only what the slides show', async () => {
    const roomId = await newRoom({ name: 'Secret room', description: 'Not for the deck', defaultTheme: 'dark' });
    const [m1, m2, m3] = [
      await createMarker(roomId, 'shown 1'),
      await createMarker(roomId, 'shown 2'),
      await createMarker(roomId, 'hidden'),
    ];
    const [d1, d2] = [await createDrawing(roomId, 'shown'), await createDrawing(roomId, 'hidden')];
    await call(s.t.app, 'POST', `/api/rooms/${roomId}/comments`, {
      auth: s.users.owner.token,
      body: { objectId: m1.id, objectType: 'marker', body: 'a private remark' },
    });
    const s1 = await createSlide(roomId, s.users.owner.token, {
      title: 'one',
      markerIds: [m1.id, m2.id],
      drawingIds: [d1.id],
    });
    const s2 = await createSlide(roomId, s.users.owner.token, { title: 'two', markerIds: [m2.id] });

    const deck = assertOk(await getPresentation(roomId, s.users.owner.token));
    assert.deepEqual(Object.keys(deck).sort(), PRESENTATION_KEYS);
    assert.deepEqual(deck.slides, [s1, s2]);
    assert.deepEqual(sorted(ids(deck.markers)), sorted([m1.id, m2.id]));
    assert.deepEqual(
      deck.markers.find((m: { id: string }) => m.id === m1.id),
      m1,
    );
    assert.deepEqual(
      deck.markers.find((m: { id: string }) => m.id === m2.id),
      m2,
    );
    assert.deepEqual(ids(deck.drawings), [d1.id]);
    assert.deepEqual(deck.drawings[0], d1);
    assert.deepEqual(deck.layers, []);
    assert.deepEqual(deck.rasterLayers, []);
    const text = JSON.stringify(deck);
    for (const secret of [
      m3.id,
      d2.id,
      'hidden',
      'Secret room',
      'Not for the deck',
      'a private remark',
      s.users.viewer.email,
      s.users.editor.id,
    ]) {
      assert.ok(!text.includes(secret), `the deck must not expose ${secret}`);
    }

    // A referenced marker deleted later simply drops out; so does a drawing.
    assertOk(await call(s.t.app, 'DELETE', `/api/rooms/${roomId}/markers/${m1.id}`, { auth: s.users.owner.token }));
    assertOk(await call(s.t.app, 'DELETE', `/api/rooms/${roomId}/drawings/${d1.id}`, { auth: s.users.owner.token }));
    const after = assertOk(await getPresentation(roomId, s.users.owner.token));
    assert.deepEqual(Object.keys(after).sort(), PRESENTATION_KEYS);
    assert.deepEqual(ids(after.markers), [m2.id]);
    assert.deepEqual(after.drawings, []);
    assert.deepEqual(ids(after.slides), [s1.id, s2.id]);
  });

  test('an empty deck shows nothing of the room', async () => {
    const roomId = await newRoom();
    await createMarker(roomId, 'not shown');
    await createDrawing(roomId, 'not shown');
    assert.deepEqual(assertOk(await getPresentation(roomId, s.users.viewer.token)), {
      slides: [],
      markers: [],
      layers: [],
      rasterLayers: [],
      drawings: [],
    });
  });

  test('a private room with a published deck: anonymous reads the deck and nothing else', async () => {
    const roomId = await newRoom({ name: 'Private', isPublic: false });
    const marker = await createMarker(roomId, 'on the deck');
    const hidden = await createMarker(roomId, 'off the deck');
    const drawing = await createDrawing(roomId, 'on the deck');
    const slide = await createSlide(roomId, s.users.owner.token, {
      title: 'Public talk',
      markerIds: [marker.id],
      drawingIds: [drawing.id],
    });

    // Before publishing: anonymous 401, stranger 403.
    assertError(await getPresentation(roomId), 401, 'unauthorized');
    assertError(await getPresentation(roomId, s.users.stranger.token), 403, 'forbidden');

    const published = assertOk(await publishDeck(roomId, true, s.users.editor.token));
    assert.deepEqual(published, { success: true, presentationIsPublic: true });

    const deck = assertOk(await getPresentation(roomId));
    assert.deepEqual(Object.keys(deck).sort(), PRESENTATION_KEYS);
    assert.deepEqual(deck.slides, [slide]);
    assert.deepEqual(deck.markers, [marker]);
    assert.deepEqual(deck.drawings, [drawing]);
    assert.deepEqual(assertOk(await getPresentation(roomId, s.users.stranger.token)), deck);

    // Nothing else of the room is open to anonymous callers.
    for (const url of [
      `/api/rooms/${roomId}`,
      `/api/rooms/${roomId}/markers`,
      `/api/rooms/${roomId}/markers/${marker.id}`,
      `/api/rooms/${roomId}/markers/${hidden.id}`,
      `/api/rooms/${roomId}/comments`,
      `/api/rooms/${roomId}/drawings`,
      `/api/rooms/${roomId}/presentation/slides`,
      `/api/rooms/${roomId}/history`,
    ]) {
      const res = await call(s.t.app, 'GET', url);
      labelled(url, () => assertError(res, 401, 'unauthorized'));
    }
    const info = assertOk(await call(s.t.app, 'GET', `/api/rooms/${roomId}/info`));
    assert.equal(info.requiresAuth, true);
    assert.ok(!JSON.stringify(info).includes('Private'), 'info must not expose the room name');
    // A signed-in stranger is likewise kept out of the rest.
    assertError(
      await call(s.t.app, 'GET', `/api/rooms/${roomId}/markers`, { auth: s.users.stranger.token }),
      403,
      'forbidden',
    );
    assertError(
      await call(s.t.app, 'GET', `/api/rooms/${roomId}/presentation/slides`, { auth: s.users.stranger.token }),
      403,
      'forbidden',
    );
    // Publishing the deck does not publish the room.
    assert.equal(
      assertOk(await call(s.t.app, 'GET', `/api/rooms/${roomId}`, { auth: s.users.owner.token })).isPublic,
      false,
    );
    assert.equal(
      assertOk(await call(s.t.app, 'GET', `/api/rooms/${roomId}/info`, { auth: s.users.owner.token }))
        .presentationIsPublic,
      true,
    );

    // Unpublished again: 401 for anonymous, 403 for a stranger; members still read it.
    assert.deepEqual(assertOk(await publishDeck(roomId, false, s.users.owner.token)), {
      success: true,
      presentationIsPublic: false,
    });
    assertError(await getPresentation(roomId), 401, 'unauthorized');
    assertError(await getPresentation(roomId, s.users.stranger.token), 403, 'forbidden');
    assert.deepEqual(assertOk(await getPresentation(roomId, s.users.viewer.token)), deck);
  });

  test('only an owner or editor session publishes the deck', async () => {
    const roomId = await newRoom();
    const token = await issueToken(s.t.app, s.users.owner, roomId, ['read', 'write', 'upload']);
    assertError(await publishDeck(roomId, true, s.users.viewer.token), 403, 'forbidden');
    assertError(await publishDeck(roomId, true, s.users.stranger.token), 403, 'forbidden');
    assertError(await publishDeck(roomId, true, token.token), 403, 'api_token_not_allowed');
    assertError(
      await call(s.t.app, 'PATCH', `/api/rooms/${roomId}/presentation/public`, { body: { isPublic: true } }),
      401,
      'unauthorized',
    );
    assertError(await getPresentation(roomId), 401, 'unauthorized');
    assertFieldError(
      await call(s.t.app, 'PATCH', `/api/rooms/${roomId}/presentation/public`, {
        auth: s.users.owner.token,
        body: { isPublic: 'yes' },
      }),
      'body.isPublic',
    );
    assertOk(await publishDeck(roomId, true, s.users.owner.token));
    assertOk(await getPresentation(roomId));
  });

  test("a public room's deck is readable anonymously even when the deck is not published", async () => {
    const roomId = await newRoom({ isPublic: true });
    const marker = await createMarker(roomId, 'm');
    const slide = await createSlide(roomId, s.users.owner.token, { markerIds: [marker.id] });
    assert.equal(assertOk(await call(s.t.app, 'GET', `/api/rooms/${roomId}/info`)).presentationIsPublic, false);
    const deck = assertOk(await getPresentation(roomId));
    assert.deepEqual(deck.slides, [slide]);
    assert.deepEqual(deck.markers, [marker]);
    assert.deepEqual(assertOk(await call(s.t.app, 'GET', slidesUrl(roomId))), { slides: [slide] });
    assertError(await postSlide(roomId, { title: 'x', view: VIEW }), 401, 'unauthorized');
  });
});
