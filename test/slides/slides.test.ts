/**
 * Slides over HTTP: create, list, PATCH, DELETE and reorder the deck; access, history, counts
 * and clear.
 * Contract: docs/http-interface.md (States) and docs/contract-decisions.md ("Drawings, presentation, history, live
 * changes"; Rooms).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  assertError,
  assertFieldError,
  assertOk,
  call,
  createRoom,
  issueToken,
  labelled,
  scaffoldSuite,
  TOKEN_ERRORS,
} from '../helpers.js';
import { createInlineLayer } from '../support/layers.js';
import {
  assertDeck,
  BASE_LAYERS,
  SLIDE_KEYS,
  type Slide,
  slideCalls,
  slidesUrl,
  slideUrl,
  orderUrl,
  VIEW,
} from '../support/slides.js';

const s = scaffoldSuite({ rooms: [] });
const {
  newRoom,
  postSlide,
  patchSlide,
  deleteSlide,
  reorder,
  getPresentation,
  createSlide,
  list,
  createMarker,
  createDrawing,
  history,
  counts,
} = slideCalls(() => s);

describe('POST /api/rooms/:roomId/presentation/slides', () => {
  test('201 with the whole slide; slides are appended in order (positions 0, 1, 2)', async () => {
    const roomId = await newRoom();
    const marker = await createMarker(roomId, 'Bern');
    const drawing = await createDrawing(roomId, 'Old town');
    const layer = await createInlineLayer(s.t.app, roomId, s.users.owner.token);
    const res = await postSlide(
      roomId,
      {
        title: 'Welcome',
        body: 'The **old town** of Bern.',
        view: { lat: 46.948, lng: 7.447, zoom: 15.5, bearing: -20, pitch: 45 },
        baseLayer: 'swissimage',
        markerIds: [marker.id],
        layerIds: [layer.id],
        rasterLayerIds: [], // rasters/access.test.ts shows a slide with a raster
        drawingIds: [drawing.id],
      },
      s.users.owner.token,
    );
    const json = assertOk(res, 201);
    assert.deepEqual(Object.keys(json).sort(), ['slide', 'success']);
    assert.equal(json.success, true);
    const first = json.slide as Slide;
    assert.deepEqual(Object.keys(first).sort(), SLIDE_KEYS);
    assert.match(first.id, /^slide-.+/);
    assert.equal(first.position, 0);
    assert.equal(first.title, 'Welcome');
    assert.equal(first.body, 'The **old town** of Bern.');
    assert.deepEqual(first.view, { lat: 46.948, lng: 7.447, zoom: 15.5, bearing: -20, pitch: 45 });
    assert.equal(first.baseLayer, 'swissimage');
    assert.deepEqual(first.markerIds, [marker.id]);
    assert.deepEqual(first.layerIds, [layer.id]);
    assert.deepEqual(first.rasterLayerIds, []);
    assert.deepEqual(first.drawingIds, [drawing.id]);
    assert.equal(first.createdBy, s.users.owner.id);
    assert.ok(Number.isInteger(first.createdAt) && first.createdAt > 0);
    assert.ok(Number.isInteger(first.updatedAt) && first.updatedAt >= first.createdAt);

    const second = await createSlide(roomId, s.users.editor.token, { title: 'Second' });
    assert.equal(second.position, 1);
    assert.equal(second.body, null);
    assert.equal(second.baseLayer, null);
    assert.deepEqual(second.view, VIEW);
    for (const key of ['markerIds', 'layerIds', 'rasterLayerIds', 'drawingIds']) assert.deepEqual(second[key], []);
    assert.equal(second.createdBy, s.users.editor.id);
    const third = await createSlide(roomId, s.users.owner.token, { title: 'Third', body: null, baseLayer: null });
    assert.equal(third.position, 2);

    const listed = await list(roomId);
    assertDeck(listed, [first.id, second.id, third.id]);
    assert.deepEqual(listed, [first, second, third]);
  });

  test('title is required, 1 to 200 characters', async () => {
    const roomId = await newRoom();
    for (const [name, body] of [
      ['missing', { view: VIEW }],
      ['empty', { title: '', view: VIEW }],
      ['201 characters', { title: 't'.repeat(201), view: VIEW }],
      ['number', { title: 7, view: VIEW }],
      ['null', { title: null, view: VIEW }],
    ] as const) {
      const res = await postSlide(roomId, body, s.users.owner.token);
      labelled(name, () => assertFieldError(res, 'body.title'));
    }
    assert.equal((await createSlide(roomId, s.users.owner.token, { title: 't'.repeat(200) })).title.length, 200);
    assert.equal((await list(roomId)).length, 1);
  });

  test('view is required, with its ranges; unknown view keys are refused', async () => {
    const roomId = await newRoom();
    const cases: [string, unknown, string][] = [
      ['missing', undefined, 'body.view'],
      ['null', null, 'body.view'],
      ['lat 91', { ...VIEW, lat: 91 }, 'body.view.lat'],
      ['lat -90.5', { ...VIEW, lat: -90.5 }, 'body.view.lat'],
      ['lng 181', { ...VIEW, lng: 181 }, 'body.view.lng'],
      ['zoom 25', { ...VIEW, zoom: 25 }, 'body.view.zoom'],
      ['zoom -1', { ...VIEW, zoom: -1 }, 'body.view.zoom'],
      ['pitch 90', { ...VIEW, pitch: 90 }, 'body.view.pitch'],
      ['pitch -1', { ...VIEW, pitch: -1 }, 'body.view.pitch'],
      ['bearing 361', { ...VIEW, bearing: 361 }, 'body.view.bearing'],
      ['lat as string', { ...VIEW, lat: '46' }, 'body.view.lat'],
      ['zoom missing', { lat: 1, lng: 2 }, 'body.view.zoom'],
      ['unknown key', { ...VIEW, tilt: 3 }, 'body.view.tilt'],
    ];
    for (const [name, view, field] of cases) {
      const res = await postSlide(roomId, { title: 'x', ...(view !== undefined && { view }) }, s.users.owner.token);
      labelled(name, () => assertFieldError(res, field));
    }
    assert.deepEqual(await list(roomId), []);
    const edge = await createSlide(roomId, s.users.owner.token, {
      view: { lat: -90, lng: 180, zoom: 24, bearing: 360, pitch: 85 },
    });
    assert.deepEqual(edge.view, { lat: -90, lng: 180, zoom: 24, bearing: 360, pitch: 85 });
    const low = await createSlide(roomId, s.users.owner.token, {
      view: { lat: 90, lng: -180, zoom: 0, bearing: -360, pitch: 0 },
    });
    assert.deepEqual(low.view, { lat: 90, lng: -180, zoom: 0, bearing: -360, pitch: 0 });
  });

  test('layerIds and rasterLayerIds must name layers of this room, each of its kind (400 naming the field)', async () => {
    const roomId = await newRoom();
    const other = await newRoom();
    const layer = await createInlineLayer(s.t.app, roomId, s.users.owner.token);
    const foreign = await createInlineLayer(s.t.app, other, s.users.owner.token);
    const cases: [string, Record<string, unknown>, string][] = [
      ['unknown layer', { layerIds: ['layer-absent000000000000'] }, 'body.layerIds'],
      ["another room's layer", { layerIds: [foreign.id] }, 'body.layerIds'],
      ['a vector layer as a raster', { rasterLayerIds: [layer.id] }, 'body.rasterLayerIds'],
    ];
    for (const [name, ids, field] of cases) {
      const res = await postSlide(roomId, { title: 'x', view: VIEW, ...ids }, s.users.owner.token);
      labelled(name, () => assertFieldError(res, field));
    }
    assert.deepEqual(await list(roomId), []);
  });

  test('baseLayer is one of the room base layers or null; unknown fields are refused', async () => {
    const roomId = await newRoom();
    for (const baseLayer of BASE_LAYERS) {
      assert.equal((await createSlide(roomId, s.users.owner.token, { baseLayer })).baseLayer, baseLayer);
    }
    assert.equal((await createSlide(roomId, s.users.owner.token, { baseLayer: null })).baseLayer, null);
    for (const baseLayer of ['google', 'OSM', '', 3]) {
      assertFieldError(
        await postSlide(roomId, { title: 'x', view: VIEW, baseLayer }, s.users.owner.token),
        'body.baseLayer',
      );
    }
    assertFieldError(
      await postSlide(roomId, { title: 'x', view: VIEW, position: 0 }, s.users.owner.token),
      'body.position',
    );
    assertFieldError(
      await postSlide(roomId, { title: 'x', view: VIEW, markerIds: 'marker-1' }, s.users.owner.token),
      'body.markerIds',
    );
    assert.equal((await list(roomId)).length, BASE_LAYERS.length + 1);
  });

  test('markerIds and drawingIds must name objects of this room (400 otherwise)', async () => {
    const roomId = await newRoom();
    const other = await newRoom();
    const mine = await createMarker(roomId, 'mine');
    const theirs = await createMarker(other, 'theirs');
    const myDrawing = await createDrawing(roomId, 'mine');
    const theirDrawing = await createDrawing(other, 'theirs');
    const cases: [string, Record<string, unknown>, string][] = [
      ['marker of another room', { markerIds: [mine.id, theirs.id] }, 'markerIds'],
      ['unknown marker', { markerIds: ['marker-doesnotexist'] }, 'markerIds'],
      ['a drawing id as a marker', { markerIds: [myDrawing.id] }, 'markerIds'],
      ['drawing of another room', { drawingIds: [theirDrawing.id] }, 'drawingIds'],
      ['unknown drawing', { drawingIds: [myDrawing.id, 'drawing-nope'] }, 'drawingIds'],
      ['repeated id', { markerIds: [mine.id, mine.id] }, 'markerIds'],
    ];
    for (const [name, body, field] of cases) {
      const res = await postSlide(roomId, { title: 'x', view: VIEW, ...body }, s.users.owner.token);
      labelled(name, () => assertFieldError(res, field));
    }
    assert.deepEqual(await list(roomId), []);
    const ok = await createSlide(roomId, s.users.owner.token, { markerIds: [mine.id], drawingIds: [myDrawing.id] });
    assert.deepEqual(ok.markerIds, [mine.id]);
    assert.deepEqual(ok.drawingIds, [myDrawing.id]);
  });
});

describe('PATCH, DELETE and reorder', () => {
  test('PATCH: omitted fields stay, given ones change; empty body is 400 empty_update', async () => {
    const roomId = await newRoom();
    const marker = await createMarker(roomId, 'm');
    const slide = await createSlide(roomId, s.users.owner.token, {
      title: 'Before',
      body: 'text',
      baseLayer: 'osm',
      markerIds: [marker.id],
    });
    const json = assertOk(await patchSlide(roomId, slide.id, { title: 'After' }, s.users.editor.token));
    assert.deepEqual(Object.keys(json).sort(), ['slide', 'success']);
    assert.equal(json.success, true);
    assert.deepEqual(json.slide, { ...slide, title: 'After', updatedAt: json.slide.updatedAt });

    const layer = await createInlineLayer(s.t.app, roomId, s.users.owner.token);
    const changed = assertOk(
      await patchSlide(
        roomId,
        slide.id,
        { body: null, baseLayer: null, view: { lat: 1, lng: 2, zoom: 3 }, markerIds: [], layerIds: [layer.id] },
        s.users.owner.token,
      ),
    ).slide;
    assert.equal(changed.title, 'After');
    assert.equal(changed.body, null);
    assert.equal(changed.baseLayer, null);
    assert.deepEqual(changed.view, { lat: 1, lng: 2, zoom: 3 });
    assert.deepEqual(changed.markerIds, []);
    assert.deepEqual(changed.layerIds, [layer.id]);
    assert.equal(changed.position, 0);
    assert.equal(changed.createdBy, s.users.owner.id);
    assert.deepEqual((await list(roomId))[0], changed);

    assertError(await patchSlide(roomId, slide.id, {}, s.users.owner.token), 400, 'empty_update');
    assertError(
      await call(s.t.app, 'PATCH', slideUrl(roomId, slide.id), { auth: s.users.owner.token }),
      400,
      'empty_update',
    );
    assertFieldError(await patchSlide(roomId, slide.id, { title: '' }, s.users.owner.token), 'body.title');
    assertFieldError(
      await patchSlide(roomId, slide.id, { view: { ...VIEW, zoom: 30 } }, s.users.owner.token),
      'body.view.zoom',
    );
    assertFieldError(
      await patchSlide(roomId, slide.id, { markerIds: ['marker-unknown'] }, s.users.owner.token),
      'markerIds',
    );
    assertFieldError(await patchSlide(roomId, slide.id, { position: 3 }, s.users.owner.token), 'body.position');
    assert.deepEqual((await list(roomId))[0], changed);
  });

  test("PATCH or DELETE of an unknown slide, or of another room's, is 404", async () => {
    const roomId = await newRoom();
    const other = await newRoom();
    const theirs = await createSlide(other, s.users.owner.token, { title: 'theirs' });
    assertError(await patchSlide(roomId, theirs.id, { title: 'mine' }, s.users.owner.token), 404, 'not_found');
    assertError(await deleteSlide(roomId, theirs.id, s.users.owner.token), 404, 'not_found');
    assertError(await patchSlide(roomId, 'slide-unknown', { title: 'x' }, s.users.owner.token), 404, 'not_found');
    assertError(await deleteSlide(roomId, 'slide-unknown', s.users.owner.token), 404, 'not_found');
    assert.deepEqual(await list(other), [theirs]);
  });

  test('DELETE answers {success, slideId} and the rest close the gap (positions 0..n-1)', async () => {
    const roomId = await newRoom();
    const [a, b, c, d] = [
      await createSlide(roomId, s.users.owner.token, { title: 'a' }),
      await createSlide(roomId, s.users.owner.token, { title: 'b' }),
      await createSlide(roomId, s.users.owner.token, { title: 'c' }),
      await createSlide(roomId, s.users.owner.token, { title: 'd' }),
    ];
    assert.deepEqual(assertOk(await deleteSlide(roomId, b!.id, s.users.editor.token)), {
      success: true,
      slideId: b!.id,
    });
    assertDeck(await list(roomId), [a!.id, c!.id, d!.id]);
    assertError(await deleteSlide(roomId, b!.id, s.users.owner.token), 404, 'not_found');
    assertError(await patchSlide(roomId, b!.id, { title: 'back' }, s.users.owner.token), 404, 'not_found');

    assertOk(await deleteSlide(roomId, a!.id, s.users.owner.token));
    assertDeck(await list(roomId), [c!.id, d!.id]);
    const e = await createSlide(roomId, s.users.owner.token, { title: 'e' });
    assert.equal(e.position, 2);
    assertOk(await deleteSlide(roomId, e.id, s.users.owner.token));
    assertDeck(await list(roomId), [c!.id, d!.id]);
    assert.deepEqual(
      (await list(roomId)).map((s) => s.title),
      ['c', 'd'],
    );
  });

  test('PUT /slides/order reorders the deck: the answer and later lists follow', async () => {
    const roomId = await newRoom();
    const slides = [];
    for (const title of ['one', 'two', 'three', 'four'])
      slides.push(await createSlide(roomId, s.users.owner.token, { title }));
    const wanted = [slides[2]!.id, slides[0]!.id, slides[3]!.id, slides[1]!.id];
    const json = assertOk(await reorder(roomId, wanted, s.users.editor.token));
    assert.deepEqual(Object.keys(json).sort(), ['slides', 'success']);
    assert.equal(json.success, true);
    assertDeck(json.slides, wanted);
    assert.deepEqual(
      json.slides.map((s: Slide) => s.title),
      ['three', 'one', 'four', 'two'],
    );
    assertDeck(await list(roomId), wanted);
    assertDeck(assertOk(await getPresentation(roomId, s.users.owner.token)).slides, wanted);

    // A new slide goes to the end of the new order; a delete keeps the new order.
    const five = await createSlide(roomId, s.users.owner.token, { title: 'five' });
    assertDeck(await list(roomId), [...wanted, five.id]);
    assertOk(await deleteSlide(roomId, wanted[1]!, s.users.owner.token));
    assertDeck(await list(roomId), [wanted[0]!, wanted[2]!, wanted[3]!, five.id]);
  });

  test('an order that misses, repeats or invents a slide is 400, and the deck stays', async () => {
    const roomId = await newRoom();
    const other = await newRoom();
    const foreign = await createSlide(other, s.users.owner.token);
    const slides = [];
    for (const title of ['one', 'two', 'three']) slides.push(await createSlide(roomId, s.users.owner.token, { title }));
    const [a, b, c] = slides.map((s) => s.id) as [string, string, string];
    const cases: [string, unknown][] = [
      ['misses one', [c, a]],
      ['repeats one', [c, a, b, a]],
      ['repeats one, same length', [c, a, a]],
      ['unknown id', [c, a, b, 'slide-unknown']],
      ['unknown id instead of one', [c, a, 'slide-unknown']],
      ["another room's slide", [c, a, foreign.id]],
      ['empty', []],
      ['not a list', 'c,a,b'],
    ];
    for (const [name, slideIds] of cases) {
      const res = await reorder(roomId, slideIds, s.users.owner.token);
      labelled(name, () => assertFieldError(res, 'slideIds'));
    }
    assertFieldError(
      await call(s.t.app, 'PUT', orderUrl(roomId), { auth: s.users.owner.token, body: {} }),
      'body.slideIds',
    );
    assertDeck(await list(roomId), [a, b, c]);
    assertDeck(await list(other), [foreign.id]);
    // The current order is accepted as is.
    assertDeck(assertOk(await reorder(roomId, [a, b, c], s.users.owner.token)).slides, [a, b, c]);
  });
});

describe('access to slides', () => {
  test('a viewer reads but cannot create, patch, delete or reorder (403)', async () => {
    const roomId = await newRoom();
    const slide = await createSlide(roomId, s.users.owner.token);
    assert.deepEqual(await list(roomId, s.users.viewer.token), [slide]);
    assertError(await postSlide(roomId, { title: 'x', view: VIEW }, s.users.viewer.token), 403, 'forbidden');
    assertError(await patchSlide(roomId, slide.id, { title: 'x' }, s.users.viewer.token), 403, 'forbidden');
    assertError(await deleteSlide(roomId, slide.id, s.users.viewer.token), 403, 'forbidden');
    assertError(await reorder(roomId, [slide.id], s.users.viewer.token), 403, 'forbidden');
    assert.deepEqual(await list(roomId), [slide]);
  });

  test('a read token lists and reads the presentation but cannot write; a write token creates', async () => {
    const roomId = await newRoom();
    const read = await issueToken(s.t.app, s.users.owner, roomId, ['read']);
    const write = await issueToken(s.t.app, s.users.owner, roomId, ['write']);
    const slide = await createSlide(roomId, s.users.owner.token);
    assert.deepEqual(await list(roomId, read.token), [slide]);
    assert.deepEqual(assertOk(await getPresentation(roomId, read.token)).slides, [slide]);
    assertError(
      await postSlide(roomId, { title: 'x', view: VIEW }, read.token),
      403,
      'forbidden',
      TOKEN_ERRORS.lacksWrite,
    );
    assertError(
      await patchSlide(roomId, slide.id, { title: 'x' }, read.token),
      403,
      'forbidden',
      TOKEN_ERRORS.lacksWrite,
    );
    assertError(await deleteSlide(roomId, slide.id, read.token), 403, 'forbidden', TOKEN_ERRORS.lacksWrite);
    assertError(await reorder(roomId, [slide.id], read.token), 403, 'forbidden', TOKEN_ERRORS.lacksWrite);

    const byToken = await createSlide(roomId, write.token, { title: 'from a script' });
    assert.deepEqual(
      Object.keys(byToken).sort(),
      ['id', 'title', 'view'],
      'a write-only token hears only the id and what it sent',
    );
    assertError(
      await call(s.t.app, 'GET', slidesUrl(roomId), { auth: write.token }),
      403,
      'forbidden',
      TOKEN_ERRORS.lacksRead,
    );
    assertDeck(await list(roomId), [slide.id, byToken.id]);
    const stored = (await list(roomId)).find((s) => s.id === byToken.id)!;
    assert.equal(stored.createdBy, write.id);
    assert.equal(stored.position, 1);
  });

  test('a private room: stranger 403 and anonymous 401 on slides', async () => {
    const roomId = await newRoom();
    const slide = await createSlide(roomId, s.users.owner.token);
    assertError(await call(s.t.app, 'GET', slidesUrl(roomId), { auth: s.users.stranger.token }), 403, 'forbidden');
    assertError(await postSlide(roomId, { title: 'x', view: VIEW }, s.users.stranger.token), 403, 'forbidden');
    assertError(await call(s.t.app, 'GET', slidesUrl(roomId)), 401, 'unauthorized');
    assertError(await deleteSlide(roomId, slide.id), 401, 'unauthorized');
  });
});

describe('history, counts and clear', () => {
  test('slide.created, slide.updated, slide.deleted and presentation.updated (reorder) with their actors', async () => {
    const roomId = await newRoom();
    const token = await issueToken(s.t.app, s.users.owner, roomId, ['write']);
    const a = await createSlide(roomId, s.users.editor.token, { title: 'a' });
    const b = await createSlide(roomId, token.token, { title: 'b' });
    assertOk(await patchSlide(roomId, a.id, { title: 'A' }, token.token));
    assertOk(await reorder(roomId, [b.id, a.id], s.users.owner.token));
    assertOk(await deleteSlide(roomId, b.id, token.token));
    const events = (await history(roomId)).reverse();
    assert.deepEqual(
      events.map((e) => [e.type, e.objectType, e.objectId, e.actor.kind, e.actor.id]),
      [
        ['slide.created', 'slide', a.id, 'user', s.users.editor.id],
        ['slide.created', 'slide', b.id, 'token', token.id],
        ['slide.updated', 'slide', a.id, 'token', token.id],
        ['presentation.updated', 'presentation', roomId, 'user', s.users.owner.id],
        ['slide.deleted', 'slide', b.id, 'token', token.id],
      ],
    );
    assert.deepEqual(events[2]!.changes, { title: 'A' });
    assert.deepEqual(events[3]!.changes, { slideIds: [b.id, a.id] });
  });

  test('refused changes write no history', async () => {
    const roomId = await newRoom();
    const slide = await createSlide(roomId, s.users.owner.token);
    const before = await history(roomId);
    await postSlide(roomId, { title: '', view: VIEW }, s.users.owner.token);
    await patchSlide(roomId, slide.id, {}, s.users.owner.token);
    await reorder(roomId, [slide.id, slide.id], s.users.owner.token);
    await reorder(roomId, ['slide-unknown'], s.users.owner.token);
    await deleteSlide(roomId, slide.id, s.users.viewer.token);
    assert.deepEqual(await history(roomId), before);
  });

  test('counts.slides follows creates and deletes; clear removes every slide (removed.slides = n)', async () => {
    const roomId = await newRoom();
    const other = await createRoom(s.t.app, s.users.owner);
    const survivor = await createSlide(other, s.users.owner.token);
    assert.equal((await counts(roomId)).slides, 0);
    const a = await createSlide(roomId, s.users.owner.token);
    await createSlide(roomId, s.users.owner.token);
    await createSlide(roomId, s.users.editor.token);
    assert.equal((await counts(roomId)).slides, 3);
    assertOk(await deleteSlide(roomId, a.id, s.users.owner.token));
    assert.equal((await counts(roomId)).slides, 2);

    const body = assertOk(await call(s.t.app, 'POST', `/api/rooms/${roomId}/clear`, { auth: s.users.owner.token }));
    assert.equal(body.success, true);
    assert.equal(body.removed.slides, 2);
    assert.deepEqual(await list(roomId), []);
    assert.equal((await counts(roomId)).slides, 0);
    assert.deepEqual(assertOk(await getPresentation(roomId, s.users.owner.token)).slides, []);
    const [latest] = await history(roomId);
    assert.equal(latest!.type, 'room.cleared');
    assert.equal(latest!.changes!.slides, 2);
    assert.equal((await createSlide(roomId, s.users.owner.token)).position, 0);
    assert.deepEqual(await list(other), [survivor]);
  });
});
