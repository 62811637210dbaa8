import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Comment, Drawing, Layer, LiveChange, Marker, RasterLayer, Room, Slide } from '../../web/src/api/types.js';
import {
  applyChange,
  hasDetails,
  markersOfFeed,
  type RoomState,
  withLayerAnswer,
  withMarkerDetails,
  withRasterAnswer,
} from '../../web/src/room/room-state.js';

/**
 * How the web application's RoomModel applies the live channel's changes (the pure step in
 * web/src/room/room-state.ts): per kind created, updated and deleted; changes it has already
 * seen (a duplicate, or one older than the state) ignored; a cleared or imported room loaded
 * again. The objects are the service's LiveEvent shapes, from the generated types.
 */

const marker = (id: string, title: string): Marker => ({ id, title, latitude: 1, longitude: 2 });
const drawing = (id: string, label: string): Drawing => ({
  id,
  geometry: { type: 'Point', coordinates: [0, 0] },
  label,
  style: null,
  createdBy: 'user-a',
  createdAt: 1,
  updatedAt: 1,
});
const slide = (id: string, position: number): Slide =>
  ({ id, position, title: id, createdBy: 'user-a', createdAt: 1, updatedAt: 1 }) as Slide;
const comment = (id: string, replies: Comment['replies'] = []): Comment => ({
  id,
  objectId: 'marker-a',
  objectType: 'marker',
  objectName: null,
  body: `about ${id}`,
  lat: null,
  lng: null,
  resolved: false,
  author: { kind: 'user', id: 'user-a' },
  createdAt: 1,
  updatedAt: 1,
  replies,
});
const reply = (id: string, commentId: string) => ({
  id,
  commentId,
  body: id,
  author: { kind: 'user' as const, id: 'user-a' },
  createdAt: 2,
});

function state(version = 10): RoomState {
  return {
    room: { roomId: 'room-a', name: 'Old name', isPublic: false } as Room,
    markers: new Map([['marker-a', marker('marker-a', 'A')]]),
    icons: [],
    layers: [{ id: 'layer-a', name: 'A' } as Layer],
    rasters: [{ id: 'raster-a', name: 'A' } as RasterLayer],
    drawings: new Map([['drawing-a', drawing('drawing-a', 'A')]]),
    slides: [slide('slide-a', 0), slide('slide-b', 1)],
    comments: [comment('comment-a', [reply('reply-a', 'comment-a')])],
    version,
  };
}

type RoomSettings = Extract<LiveChange, { type: 'room.updated' }>['data'];

/** A change as the live channel sends it, at the given version. */
const at = (version: number, change: Omit<LiveChange, 'version' | 'at' | 'actor'>) =>
  ({ ...change, version, at: 1000, actor: { kind: 'user', id: 'user-other' } }) as LiveChange;

function applied(before: RoomState, change: LiveChange): RoomState {
  const after = applyChange(before, change);
  assert.ok(after, `${change.type} is applied in place`);
  assert.equal(after.version, change.version, 'the state takes the change’s version');
  return after;
}

describe('RoomModel.apply: markers and drawings', () => {
  test('marker created, updated and deleted', () => {
    let s = applied(
      state(),
      at(11, { type: 'marker.created', objectType: 'marker', objectId: 'marker-b', data: marker('marker-b', 'B') }),
    );
    assert.deepEqual([...s.markers.keys()], ['marker-a', 'marker-b']);
    s = applied(
      s,
      at(12, { type: 'marker.updated', objectType: 'marker', objectId: 'marker-a', data: marker('marker-a', 'A2') }),
    );
    assert.equal(s.markers.get('marker-a')?.title, 'A2');
    s = applied(s, at(13, { type: 'marker.deleted', objectType: 'marker', objectId: 'marker-a', data: null }));
    assert.deepEqual([...s.markers.keys()], ['marker-b']);
  });

  test('a change never edits the state it was given (components compare collections by identity)', () => {
    const before = state();
    const after = applied(
      before,
      at(11, { type: 'marker.deleted', objectType: 'marker', objectId: 'marker-a', data: null }),
    );
    assert.ok(before.markers.has('marker-a'));
    assert.notEqual(after.markers, before.markers);
    assert.equal(after.drawings, before.drawings, 'untouched collections stay the same object');
  });

  test('drawing created, updated and deleted', () => {
    let s = applied(
      state(),
      at(11, {
        type: 'drawing.created',
        objectType: 'drawing',
        objectId: 'drawing-b',
        data: drawing('drawing-b', 'B'),
      }),
    );
    s = applied(
      s,
      at(12, {
        type: 'drawing.updated',
        objectType: 'drawing',
        objectId: 'drawing-a',
        data: drawing('drawing-a', 'A2'),
      }),
    );
    assert.equal(s.drawings.get('drawing-a')?.label, 'A2');
    s = applied(s, at(13, { type: 'drawing.deleted', objectType: 'drawing', objectId: 'drawing-b', data: null }));
    assert.deepEqual([...s.drawings.keys()], ['drawing-a']);
  });
});

describe('RoomModel.apply: layers, rasters, icons, slides', () => {
  test('layers and rasters: created, updated, deleted, each in its own list', () => {
    const layerB = { id: 'layer-b', name: 'B' } as Layer;
    let s = applied(state(), at(11, { type: 'layer.created', objectType: 'layer', objectId: 'layer-b', data: layerB }));
    s = applied(
      s,
      at(12, {
        type: 'layer.updated',
        objectType: 'layer',
        objectId: 'layer-a',
        data: { id: 'layer-a', name: 'A2' } as Layer,
      }),
    );
    assert.deepEqual(
      s.layers.map((l) => [l.id, l.name]),
      [
        ['layer-a', 'A2'],
        ['layer-b', 'B'],
      ],
    );
    const rasterB = { id: 'raster-b', name: 'B' } as RasterLayer;
    s = applied(
      s,
      at(13, { type: 'rasterLayer.created', objectType: 'rasterLayer', objectId: 'raster-b', data: rasterB }),
    );
    s = applied(
      s,
      at(14, { type: 'rasterLayer.deleted', objectType: 'rasterLayer', objectId: 'raster-a', data: null }),
    );
    s = applied(s, at(15, { type: 'layer.deleted', objectType: 'layer', objectId: 'layer-a', data: null }));
    assert.deepEqual(
      s.layers.map((l) => l.id),
      ['layer-b'],
    );
    assert.deepEqual(
      s.rasters.map((r) => r.id),
      ['raster-b'],
    );
  });

  test('an icon created joins the list once', () => {
    const icon = {
      iconId: 'icon-api-a',
      name: 'pin',
      size: 32,
      contentType: 'image/png' as const,
      createdAt: 1,
      createdBy: 'user-a',
    };
    const change = at(11, { type: 'icon.created', objectType: 'icon', objectId: icon.iconId, data: icon });
    const s = applied(state(), change);
    assert.deepEqual(s.icons, [icon]);
    assert.deepEqual(applied(s, { ...change, version: 12 }).icons, [icon]);
  });

  test('slides: created in position order, updated, deleted, and reordered by the deck', () => {
    let s = applied(
      state(),
      at(11, { type: 'slide.created', objectType: 'slide', objectId: 'slide-c', data: slide('slide-c', 2) }),
    );
    s = applied(
      s,
      at(12, {
        type: 'slide.updated',
        objectType: 'slide',
        objectId: 'slide-a',
        data: { ...slide('slide-a', 0), title: 'First' },
      }),
    );
    assert.deepEqual(
      s.slides.map((x) => [x.id, x.title]),
      [
        ['slide-a', 'First'],
        ['slide-b', 'slide-b'],
        ['slide-c', 'slide-c'],
      ],
    );
    s = applied(
      s,
      at(13, {
        type: 'presentation.updated',
        objectType: 'presentation',
        objectId: 'room-a',
        data: { slideIds: ['slide-c', 'slide-a', 'slide-b'] },
      }),
    );
    assert.deepEqual(
      s.slides.map((x) => [x.id, x.position]),
      [
        ['slide-c', 0],
        ['slide-a', 1],
        ['slide-b', 2],
      ],
    );
    s = applied(s, at(14, { type: 'slide.deleted', objectType: 'slide', objectId: 'slide-a', data: null }));
    assert.deepEqual(
      s.slides.map((x) => x.id),
      ['slide-c', 'slide-b'],
    );
  });
});

describe("RoomModel.apply: edits of a layer's features", () => {
  test("a feature change marks its layer's tiles stale with the change's version; another layer's is unknown here", () => {
    const feature = { type: 'Feature' as const, id: 4, version: 2, geometry: null, properties: {} };
    const data = { id: 'layer-a:4', layerId: 'layer-a', name: 'Feature 4', feature };
    const start = state();
    start.layers[0]!.featureCount = 5;
    let s = applied(start, at(11, { type: 'feature.updated', objectType: 'feature', objectId: 'layer-a:4', data }));
    assert.equal(s.layers[0]!.editedAt, 11);
    assert.equal(s.layers[0]!.featureCount, 5);
    s = applied(s, at(12, { type: 'feature.deleted', objectType: 'feature', objectId: 'layer-a:4', data }));
    assert.equal(s.layers[0]!.editedAt, 12);
    assert.equal(s.layers[0]!.featureCount, 4, 'one fewer');
    s = applied(s, at(13, { type: 'feature.created', objectType: 'feature', objectId: 'layer-a:5', data }));
    assert.equal(s.layers[0]!.featureCount, 5, 'one more');
    const other = applied(
      s,
      at(13, {
        type: 'feature.created',
        objectType: 'feature',
        objectId: 'layer-z:1',
        data: { ...data, layerId: 'layer-z' },
      }),
    );
    assert.deepEqual(other.layers, s.layers);
  });

  test('a change of its settings keeps the tiles an edit made stale; a refresh of its source makes them stale again', () => {
    const start = state();
    let s = applied(
      start,
      at(11, {
        type: 'feature.updated',
        objectType: 'feature',
        objectId: 'layer-a:4',
        data: {
          id: 'layer-a:4',
          layerId: 'layer-a',
          name: 'Feature 4',
          feature: { type: 'Feature', id: 4, version: 2, geometry: null, properties: {} },
        },
      }),
    );
    const layer = s.layers[0]!;
    const { editedAt: _, ...restyled } = {
      ...layer,
      style: { ...layer.style, color: '00ff00' },
      updatedAt: layer.updatedAt + 1,
    };
    s = applied(s, at(12, { type: 'layer.updated', objectType: 'layer', objectId: layer.id, data: restyled }));
    assert.equal(s.layers[0]!.editedAt, 11, 'the address after the edit stays');
    assert.equal(s.layers[0]!.style.color, '00ff00');
    const source = { url: 'https://example.org/a.geojson', refreshMinutes: 60, lastError: null };
    s = applied(
      s,
      at(13, {
        type: 'layer.updated',
        objectType: 'layer',
        objectId: layer.id,
        data: { ...restyled, source: { ...source, lastRefreshAt: 1 } },
      }),
    );
    s = applied(
      s,
      at(14, {
        type: 'layer.updated',
        objectType: 'layer',
        objectId: layer.id,
        data: { ...restyled, source: { ...source, lastRefreshAt: 2 } },
      }),
    );
    assert.equal(s.layers[0]!.editedAt, 14, 'read again from its source: new tiles');
  });
});

describe('RoomModel.apply: comments, replies, the room', () => {
  test('comments and replies: created, resolved, deleted, each reply in its own comment', () => {
    let s = applied(
      state(),
      at(11, { type: 'comment.created', objectType: 'comment', objectId: 'comment-b', data: comment('comment-b') }),
    );
    s = applied(
      s,
      at(12, { type: 'reply.created', objectType: 'reply', objectId: 'reply-b', data: reply('reply-b', 'comment-b') }),
    );
    assert.deepEqual(
      s.comments.map((c) => [c.id, c.replies.map((r) => r.id)]),
      [
        ['comment-a', ['reply-a']],
        ['comment-b', ['reply-b']],
      ],
    );
    s = applied(
      s,
      at(13, {
        type: 'comment.updated',
        objectType: 'comment',
        objectId: 'comment-b',
        data: { ...comment('comment-b', [reply('reply-b', 'comment-b')]), resolved: true },
      }),
    );
    assert.equal(s.comments[1]?.resolved, true);
    s = applied(s, at(14, { type: 'reply.deleted', objectType: 'reply', objectId: 'reply-a', data: null }));
    assert.deepEqual(s.comments[0]?.replies, []);
    s = applied(s, at(15, { type: 'comment.deleted', objectType: 'comment', objectId: 'comment-a', data: null }));
    assert.deepEqual(
      s.comments.map((c) => c.id),
      ['comment-b'],
    );
  });

  test('room.updated takes the settings into the room record, not the /info flag', () => {
    // Only the fields the test reads; the service sends every setting (RoomSettings).
    const settings = { roomId: 'room-a', name: 'New name', isPublic: true, requiresAuth: false } as RoomSettings;
    const s = applied(
      state(),
      at(11, { type: 'room.updated', objectType: 'room', objectId: 'room-a', data: settings }),
    );
    assert.equal(s.room.name, 'New name');
    assert.equal(s.room.isPublic, true);
    assert.ok(!('requiresAuth' in s.room));
  });

  test('a cleared or imported room is loaded again (null)', () => {
    const cleared = at(11, { type: 'room.cleared', objectType: 'room', objectId: 'room-a', data: null });
    assert.equal(applyChange(state(), cleared), null);
    const imported = at(11, {
      type: 'room.imported',
      objectType: 'room',
      objectId: 'room-a',
      data: { source: 'bulk-import', markers: 3 },
    });
    assert.equal(applyChange(state(), imported), null);
  });
});

describe('RoomModel.apply: order and catch-up', () => {
  test('a duplicate or older change is ignored, even one that would load the room again', () => {
    const before = state(10);
    const old = at(10, { type: 'marker.deleted', objectType: 'marker', objectId: 'marker-a', data: null });
    assert.equal(applyChange(before, old), before);
    assert.equal(applyChange(before, { ...old, version: 3 }), before);
    const oldClear = at(9, { type: 'room.cleared', objectType: 'room', objectId: 'room-a', data: null });
    assert.equal(applyChange(before, oldClear), before);
  });

  test('catching up: the missed changes applied in order give the current room; replayed again they change nothing', () => {
    const missed = [
      at(11, { type: 'marker.created', objectType: 'marker', objectId: 'marker-b', data: marker('marker-b', 'B') }),
      at(12, { type: 'marker.updated', objectType: 'marker', objectId: 'marker-b', data: marker('marker-b', 'B2') }),
      at(13, { type: 'marker.deleted', objectType: 'marker', objectId: 'marker-a', data: null }),
    ];
    const caughtUp = missed.reduce((s, change) => applied(s, change), state(10));
    assert.deepEqual(
      [...caughtUp.markers.values()].map((m) => [m.id, m.title]),
      [['marker-b', 'B2']],
    );
    assert.equal(caughtUp.version, 13);
    const again = missed.reduce((s, change) => applyChange(s, change) ?? s, caughtUp);
    assert.equal(again, caughtUp, 'a replay after a reconnect is ignored');
  });
});

describe('markers from the feed, then whole', () => {
  const whole = (id: string, title: string, updatedAt: number): Marker => ({
    ...marker(id, title),
    color: '#e53e3e',
    tags: ['t'],
    createdBy: 'user-a',
    createdAt: 1,
    updatedAt,
  });

  test("the feed's columns become markers with the fields it carries, colours and icons looked up", () => {
    const markers = markersOfFeed({
      count: 3,
      ids: ['marker-a', 'marker-b', 'marker-c'],
      latitudes: [1, 2, 3],
      longitudes: [4, 5, 6],
      colors: [1, null, 0],
      palette: ['#111111', '#222222'],
      icons: [null, 0, null],
      iconIds: ['icon-api-x'],
      iconSizes: [null, 48, null],
    });
    assert.deepEqual(
      [...markers.values()],
      [
        { id: 'marker-a', latitude: 1, longitude: 4, color: '#222222', markerIconId: null, markerIconSize: null },
        { id: 'marker-b', latitude: 2, longitude: 5, color: null, markerIconId: 'icon-api-x', markerIconSize: 48 },
        { id: 'marker-c', latitude: 3, longitude: 6, color: '#111111', markerIconId: null, markerIconSize: null },
      ],
    );
    assert.ok(![...markers.values()].some(hasDetails), 'none is whole yet');
  });

  test("whole markers read later fill in the feed's, without bringing back a deleted one or undoing a newer change", () => {
    const fed: RoomState = {
      ...state(),
      markers: new Map([
        ['marker-a', { id: 'marker-a', latitude: 1, longitude: 2, color: null }],
        ['marker-b', { id: 'marker-b', latitude: 1, longitude: 2, color: null }],
        ['marker-c', whole('marker-c', 'changed live', 50)],
      ]),
    };
    const read = [whole('marker-a', 'A', 10), whole('marker-c', 'C before the change', 40), whole('marker-d', 'D', 10)];
    const next = withMarkerDetails(fed, read);
    assert.notEqual(next.markers, fed.markers, 'a new collection');
    assert.deepEqual(next.markers.get('marker-a'), read[0]);
    assert.equal(hasDetails(next.markers.get('marker-b')!), false, 'not read yet');
    assert.equal(next.markers.get('marker-c')!.title, 'changed live', 'the newer state stays');
    assert.equal(next.markers.has('marker-d'), false, 'deleted meanwhile: stays deleted');
    assert.equal(withMarkerDetails(fed, [whole('marker-c', 'C again', 60)]).markers.get('marker-c')!.title, 'C again');
  });

  test("the answer to the page's own layer write does not undo a newer change that came live meanwhile", () => {
    const layer = (updatedAt: number, labelField?: string) =>
      ({ id: 'layer-a', name: 'parcels', updatedAt, style: { order: 1, ...(labelField && { labelField }) } }) as Layer;
    // The page saved the order (answered at 100); a script set the label field (live, at 120) before the answer came.
    const live = { ...state(), layers: [layer(120, 'kind')] };
    assert.equal(withLayerAnswer(live, layer(100)), live, 'the older answer is left out');
    assert.equal(withLayerAnswer(live, layer(130)).layers[0]!.updatedAt, 130, 'a newer answer replaces it');
    assert.deepEqual(
      withLayerAnswer({ ...state(), layers: [] }, layer(100)).layers,
      [layer(100)],
      'one not held is added',
    );
    const raster = (updatedAt: number, colormap: string) =>
      ({ id: 'raster-a', name: 'dem', updatedAt, display: { colormap } }) as unknown as RasterLayer;
    const shown = { ...state(), rasters: [raster(120, 'magma')] };
    assert.equal(withRasterAnswer(shown, raster(100, 'gray')), shown);
    assert.equal(
      (withRasterAnswer(shown, raster(130, 'viridis')).rasters[0] as unknown as { display: { colormap: string } })
        .display.colormap,
      'viridis',
    );
  });
});
