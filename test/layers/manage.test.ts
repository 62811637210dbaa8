/**
 * Making and changing vector layers: the inline `POST /api/rooms/:roomId/layers` (good and bad
 * FeatureCollections), `PATCH /api/rooms/:roomId/layers/:layerId` (name, description, style),
 * `DELETE /api/layers/:layerId` (owner or editor sessions; the layer's own tables dropped),
 * each through history and the live channel (`layer.created|updated|deleted`).
 * Contract: docs/http-interface.md ("Layers and uploads"), docs/contract-decisions.md ("Vector layers
 * in detail", "Drawings, presentation, history, live changes").
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  assertError,
  assertFieldError,
  assertOk,
  call,
  issueToken,
  labelled,
  roomCounts,
  roomHistory,
  scaffold,
  type TestApp,
  TOKEN_ERRORS,
  type Users,
} from '../helpers.js';
import {
  createInlineLayer,
  DEFAULT_STYLE,
  features,
  LAYER_KEYS,
  listLayers,
  squareFeature,
  storageKeyOf,
  storedState,
  tablesOfKey,
  TWO_SQUARES,
  uploadLayers,
} from '../support/layers.js';
import { LiveClient } from '../support/live-client.js';
import { makeVectorFixtures } from '../vector-fixtures.js';

let t: TestApp;
let users: Users;
let room: string;
let otherRoom: string;
let wsBase: string;
let fixtures: ReturnType<typeof makeVectorFixtures>;

before(async () => {
  fixtures = makeVectorFixtures();
  ({ t, users, room, otherRoom, wsBase } = await scaffold({ rooms: ['room', 'otherRoom'], listen: true }));
});
after(async () => {
  await t?.close();
  fixtures?.remove();
});

const layersUrl = (roomId: string) => `/api/rooms/${roomId}/layers`;
const layerUrl = (roomId: string, layerId: string) => `/api/rooms/${roomId}/layers/${layerId}`;
const history = (roomId = room) => roomHistory(t.app, roomId, users.owner.token);

/** A live client of the room, as the viewer; resolves once it has said hello. */
async function listen(roomId = room) {
  const live = new LiveClient(`${wsBase}/api/rooms/${roomId}/live?access_token=${users.viewer.token}`);
  assert.equal((await live.at(0)).type, 'hello');
  return live;
}

describe('POST /api/rooms/:roomId/layers (inline GeoJSON)', () => {
  test('a layer with the style keys sent; history and live say layer.created', async () => {
    const live = await listen();
    try {
      const res = await call(t.app, 'POST', layersUrl(room), {
        auth: users.editor.token,
        body: {
          name: 'Plots',
          description: 'Two plots',
          geojson: TWO_SQUARES,
          color: 'ff8800',
          opacity: 0.8,
          strokeWeight: 3,
          visible: false,
        },
      });
      const body = assertOk(res);
      assert.deepEqual(Object.keys(body).sort(), ['layer', 'success']);
      const layer = body.layer;
      assert.deepEqual(Object.keys(layer).sort(), LAYER_KEYS);
      assert.equal(layer.name, 'Plots');
      assert.equal(layer.description, 'Two plots');
      assert.equal(layer.sourceFormat, 'inline');
      assert.equal(layer.sourceCrs, 'EPSG:4326');
      assert.equal(layer.featureCount, 2);
      assert.equal(layer.geometryType, 'Polygon');
      assert.deepEqual(layer.style, {
        ...DEFAULT_STYLE,
        color: 'ff8800',
        opacity: 0.8,
        strokeWeight: 3,
        visible: false,
      });
      assert.equal(layer.createdBy, users.editor.id);
      assert.deepEqual(
        (await features(t.app, layer.id, users.owner.token)).features.map((f) => f.properties.name).sort(),
        ['east', 'west'],
      );

      const [event] = await history();
      assert.equal(event!.type, 'layer.created');
      assert.equal(event!.objectType, 'layer');
      assert.equal(event!.objectId, layer.id);
      assert.deepEqual(event!.actor, { kind: 'user', id: users.editor.id, name: users.editor.email });
      const message = await live.waitUntil(
        (m) => m.type === 'layer.created' && m.objectId === layer.id,
        'layer.created',
      );
      assert.equal(message.objectType, 'layer');
      assert.deepEqual(message.data, layer);
      assert.equal(message.version, event!.version);
    } finally {
      live.terminate();
    }
  });

  test('points make a layer too (not markers): inline layers are layers', async () => {
    const geojson = {
      type: 'FeatureCollection',
      features: [
        { type: 'Feature', properties: { name: 'stop' }, geometry: { type: 'Point', coordinates: [7.44, 46.95] } },
      ],
    };
    const layer = await createInlineLayer(t.app, room, users.owner.token, { name: 'Stops', geojson });
    assert.equal(layer.geometryType, 'Point');
    assert.equal(layer.featureCount, 1);
  });

  test('bad bodies and bad GeoJSON are 400, and nothing is stored', async () => {
    const before = await storedState(t, room);
    const counts = await roomCounts(t.app, room, users.owner.token);
    const body = (extra: Record<string, unknown>) => ({ name: 'Bad', geojson: TWO_SQUARES, ...extra });
    const schemaCases: [string, unknown, string][] = [
      ['no name', { geojson: TWO_SQUARES }, 'body.name'],
      ['an empty name', body({ name: '' }), 'body.name'],
      ['no geojson', { name: 'Bad' }, 'body.geojson'],
      ['a Feature, not a FeatureCollection', body({ geojson: squareFeature(7, 46, 0.1) }), 'body.geojson'],
      ['features not a list', body({ geojson: { type: 'FeatureCollection', features: {} } }), 'body.geojson'],
      ['a colour with #', body({ color: '#ff0000' }), 'body.color'],
      ['opacity 1.5', body({ opacity: 1.5 }), 'body.opacity'],
      ['an unknown field', body({ style: { color: 'ff0000' } }), 'body.style'],
    ];
    for (const [name, sent, field] of schemaCases) {
      const res = await call(t.app, 'POST', layersUrl(room), { auth: users.owner.token, body: sent });
      labelled(name, () => assertFieldError(res, field));
    }
    const fileCases: [string, unknown, string][] = [
      ['a latitude of 95', { type: 'FeatureCollection', features: [squareFeature(7, 89.99, 5.1)] }, 'invalid_file'],
      [
        'projected metres',
        { type: 'FeatureCollection', features: [squareFeature(2600000, 1199700, 50)] },
        'unknown_crs',
      ],
      [
        'coordinates that are not numbers',
        {
          type: 'FeatureCollection',
          features: [
            {
              type: 'Feature',
              properties: {},
              geometry: {
                type: 'LineString',
                coordinates: [
                  ['a', 'b'],
                  [8, 47],
                ],
              },
            },
          ],
        },
        'invalid_file',
      ],
    ];
    for (const [name, geojson, code] of fileCases) {
      const res = await call(t.app, 'POST', layersUrl(room), { auth: users.owner.token, body: body({ geojson }) });
      labelled(name, () => assertError(res, 400, code));
    }
    const empty = await call(t.app, 'POST', layersUrl(room), {
      auth: users.owner.token,
      body: body({ geojson: { type: 'FeatureCollection', features: [] } }),
    });
    assertFieldError(empty, 'body.geojson');
    assert.deepEqual(await storedState(t, room), before);
    assert.deepEqual(await roomCounts(t.app, room, users.owner.token), counts);
  });

  test('needs write: a viewer 403, a read token 403, a token of another room 403', async () => {
    const reader = await issueToken(t.app, users.owner, room, ['read', 'upload']);
    const foreign = await issueToken(t.app, users.owner, otherRoom, ['read', 'write', 'upload']);
    const sent = { body: { name: 'x', geojson: TWO_SQUARES } };
    assertError(await call(t.app, 'POST', layersUrl(room), { auth: users.viewer.token, ...sent }), 403, 'forbidden');
    assertError(
      await call(t.app, 'POST', layersUrl(room), { auth: reader.token, ...sent }),
      403,
      'forbidden',
      TOKEN_ERRORS.lacksWrite,
    );
    assertError(
      await call(t.app, 'POST', layersUrl(room), { auth: foreign.token, ...sent }),
      403,
      'forbidden',
      TOKEN_ERRORS.wrongRoom,
    );
    assertError(await call(t.app, 'POST', layersUrl(room), sent), 401, 'unauthorized');
  });
});

describe('PATCH /api/rooms/:roomId/layers/:layerId', () => {
  test('changes name, description and style (merged); history and live say layer.updated', async () => {
    const layer = await createInlineLayer(t.app, room, users.owner.token, { name: 'Before', description: 'old' });
    const live = await listen();
    try {
      const token = await issueToken(t.app, users.owner, room, ['read', 'write']);
      const res = await call(t.app, 'PATCH', layerUrl(room, layer.id), {
        auth: token.token,
        body: { name: 'After', style: { color: '112233', fillOpacity: 0.9 } },
      });
      const body = assertOk(res);
      assert.deepEqual(Object.keys(body).sort(), ['layer', 'success']);
      const changed = body.layer;
      assert.deepEqual(changed, {
        ...layer,
        name: 'After',
        style: { ...layer.style, color: '112233', fillOpacity: 0.9 },
        updatedAt: changed.updatedAt,
      });
      assert.ok(changed.updatedAt >= layer.updatedAt);
      assert.deepEqual(
        (await listLayers(t.app, room, users.owner.token)).find((l) => l.id === layer.id),
        changed,
      );

      const [event] = await history();
      assert.equal(event!.type, 'layer.updated');
      assert.equal(event!.objectId, layer.id);
      assert.deepEqual(event!.actor, { kind: 'token', id: token.id, name: 'token read+write' });
      assert.deepEqual(event!.changes, { name: 'After', style: { color: '112233', fillOpacity: 0.9 } });
      const message = await live.waitUntil(
        (m) => m.type === 'layer.updated' && m.objectId === layer.id,
        'layer.updated',
      );
      assert.deepEqual(message.data, changed);

      const cleared = assertOk(
        await call(t.app, 'PATCH', layerUrl(room, layer.id), {
          auth: users.editor.token,
          body: { description: null, style: { visible: false } },
        }),
      ).layer;
      assert.equal(cleared.description, null);
      assert.deepEqual(cleared.style, { ...changed.style, visible: false }, 'style keys not sent keep their value');
      assert.equal(cleared.name, 'After');
    } finally {
      live.terminate();
    }
  });

  test("an empty body is 400 empty_update; bad fields are 400; unknown layers and other rooms' layers 404; nothing changes", async () => {
    const layer = await createInlineLayer(t.app, room, users.owner.token, { name: 'Stays' });
    const theirs = await createInlineLayer(t.app, otherRoom, users.owner.token, { name: 'Theirs' });
    const before = await history();
    const patch = (layerId: string, body: unknown, roomId = room) =>
      call(t.app, 'PATCH', layerUrl(roomId, layerId), { auth: users.owner.token, body });
    assertError(await patch(layer.id, {}), 400, 'empty_update');
    const cases: [string, unknown, string][] = [
      ['an empty name', { name: '' }, 'body.name'],
      ['a name of 201', { name: 'n'.repeat(201) }, 'body.name'],
      ['a colour with #', { style: { color: '#fff' } }, 'body.style.color'],
      ['an unknown style key', { style: { dashArray: '4 2' } }, 'body.style'],
      ['opacity -0.1', { style: { opacity: -0.1 } }, 'body.style.opacity'],
      ['a read-only field', { featureCount: 3 }, 'body.featureCount'],
    ];
    for (const [name, body, field] of cases) {
      const res = await patch(layer.id, body);
      labelled(name, () => assertFieldError(res, field));
    }
    assertError(await patch('layer-doesnotexist00', { name: 'x' }), 404, 'not_found');
    assertError(await patch(theirs.id, { name: 'x' }), 404, 'not_found');
    assert.deepEqual(await history(), before);
    assert.deepEqual(
      (await listLayers(t.app, room, users.owner.token)).find((l) => l.id === layer.id),
      layer,
    );
    assert.equal(
      (await listLayers(t.app, otherRoom, users.owner.token)).find((l) => l.id === theirs.id)!.name,
      'Theirs',
    );
  });

  test('style by data: categories, graduated classes, fill colour, label field and order are stored, merged and cleared', async () => {
    const layer = await createInlineLayer(t.app, room, users.owner.token, { name: 'By data' });
    const patch = (style: unknown) =>
      call(t.app, 'PATCH', layerUrl(room, layer.id), { auth: users.editor.token, body: { style } });
    const categories = {
      type: 'categories',
      field: 'kind',
      categories: [
        { value: 'a', color: 'ff0000' },
        { value: '2', color: '00ff00' },
      ],
      otherColor: '999999',
    };
    const set = assertOk(
      await patch({ classify: categories, labelField: 'name', fillColor: 'abcdef', order: 3 }),
    ).layer;
    assert.deepEqual(set.style, {
      ...layer.style,
      classify: categories,
      labelField: 'name',
      fillColor: 'abcdef',
      order: 3,
    });
    const graduated = {
      type: 'graduated',
      field: 'area',
      method: 'quantile',
      ramp: 'viridis',
      breaks: [10, 20],
      colors: ['440154', '21918c', 'fde725'],
    };
    const regraded = assertOk(await patch({ classify: graduated })).layer;
    assert.deepEqual(regraded.style, { ...set.style, classify: graduated }, 'the other new keys stay');
    const listed = (await listLayers(t.app, room, users.owner.token)).find((l) => l.id === layer.id)!;
    assert.deepEqual(listed.style, regraded.style);
    const cleared = assertOk(await patch({ classify: null, labelField: null })).layer;
    assert.equal(cleared.style.classify, null);
    assert.equal(cleared.style.labelField, null);
    assert.equal(cleared.style.order, 3);

    const before = await history();
    const bad: [string, unknown, string][] = [
      ['an unknown rule type', { classify: { ...categories, type: 'heatmap' } }, 'body.style.classify'],
      ['a category colour with #', { classify: { ...categories, otherColor: '#999' } }, 'body.style.classify'],
      [
        '101 categories',
        { classify: { ...categories, categories: Array(101).fill({ value: 'x', color: '000' }) } },
        'body.style.classify',
      ],
      ['no breaks', { classify: { ...graduated, breaks: [] } }, 'body.style.classify'],
      ['an unknown method', { classify: { ...graduated, method: 'jenks' } }, 'body.style.classify'],
      ['an empty label field', { labelField: '' }, 'body.style.labelField'],
      ['a negative order', { order: -1 }, 'body.style.order'],
      ['a fractional order', { order: 1.5 }, 'body.style.order'],
    ];
    for (const [name, style, field] of bad) {
      const res = await patch(style);
      labelled(name, () => assert.equal(res.statusCode, 400, res.body));
      labelled(name, () => assert.ok(res.body.includes(field), res.body));
    }
    assert.deepEqual(await history(), before, 'nothing refused is stored');
  });

  test('needs write: a viewer 403, a read token 403, anonymous 401', async () => {
    const layer = await createInlineLayer(t.app, room, users.owner.token);
    const reader = await issueToken(t.app, users.owner, room, ['read', 'upload']);
    const body = { name: 'x' };
    assertError(
      await call(t.app, 'PATCH', layerUrl(room, layer.id), { auth: users.viewer.token, body }),
      403,
      'forbidden',
    );
    assertError(
      await call(t.app, 'PATCH', layerUrl(room, layer.id), { auth: reader.token, body }),
      403,
      'forbidden',
      TOKEN_ERRORS.lacksWrite,
    );
    assertError(await call(t.app, 'PATCH', layerUrl(room, layer.id), { body }), 401, 'unauthorized');
  });

  test('a write-only token hears back the id and only the style keys it sent, not the stored others', async () => {
    const layer = await createInlineLayer(t.app, room, users.owner.token, {
      description: 'stored text',
      color: 'abcdef',
      opacity: 0.5,
    });
    const writer = await issueToken(t.app, users.owner, room, ['write']);
    const answer = assertOk(
      await call(t.app, 'PATCH', layerUrl(room, layer.id), {
        auth: writer.token,
        body: { style: { color: '112233' } },
      }),
    );
    assert.deepEqual(answer, { success: true, layer: { id: layer.id, style: { color: '112233' } } });
    const stored = (await call(t.app, 'GET', `/api/layers/${room}`, { auth: users.owner.token }))
      .json()
      .layers.find((l: { id: string }) => l.id === layer.id);
    assert.deepEqual(
      [stored.style.color, stored.style.opacity, stored.description],
      ['112233', 0.5, 'stored text'],
      'the merge itself is whole',
    );
  });
});

describe('DELETE /api/layers/:layerId', () => {
  test('the owner deletes: the layer, its features and its own tables are gone; history and live say layer.deleted', async () => {
    const { layer } = await uploadLayers(t.app, room, fixtures.file('lv95.zip'), users.owner.token);
    const key = await storageKeyOf(t, layer.id);
    assert.ok((await tablesOfKey(t, key)).length > 0, 'the layer has tables of its own');
    const live = await listen();
    try {
      assert.deepEqual(assertOk(await call(t.app, 'DELETE', `/api/layers/${layer.id}`, { auth: users.owner.token })), {
        success: true,
        layerId: layer.id,
      });
      assert.ok(!(await listLayers(t.app, room, users.owner.token)).some((l) => l.id === layer.id));
      assertError(
        await call(t.app, 'GET', `/api/layers/${layer.id}/features`, { auth: users.owner.token }),
        404,
        'not_found',
      );
      assertError(
        await call(t.app, 'GET', `/api/layers/${layer.id}/tiles/0/0/0.mvt`, { auth: users.owner.token }),
        404,
        'not_found',
      );
      assert.deepEqual(await tablesOfKey(t, key), [], 'the feature table and its index are dropped');
      const chunkRows = await t.database.db
        .selectFrom('layer_chunks')
        .select('chunk_index')
        .where('layer_id', '=', layer.id)
        .execute();
      assert.deepEqual(chunkRows, []);
      const [event] = await history();
      assert.equal(event!.type, 'layer.deleted');
      assert.equal(event!.objectId, layer.id);
      assert.deepEqual(event!.actor, { kind: 'user', id: users.owner.id, name: users.owner.email });
      const message = await live.waitUntil(
        (m) => m.type === 'layer.deleted' && m.objectId === layer.id,
        'layer.deleted',
      );
      assert.equal(message.data, null);
      assertError(
        await call(t.app, 'DELETE', `/api/layers/${layer.id}`, { auth: users.owner.token }),
        404,
        'not_found',
      );
    } finally {
      live.terminate();
    }
  });

  test('an editor may delete', async () => {
    const layer = await createInlineLayer(t.app, room, users.owner.token);
    assertOk(await call(t.app, 'DELETE', `/api/layers/${layer.id}`, { auth: users.editor.token }));
    assert.ok(!(await listLayers(t.app, room, users.owner.token)).some((l) => l.id === layer.id));
  });

  test('a room token is 403 api_token_not_allowed, whatever its permissions; a stranger and anonymous hear 404', async () => {
    const layer = await createInlineLayer(t.app, room, users.owner.token);
    const all = await issueToken(t.app, users.owner, room, ['read', 'write', 'upload']);
    const foreign = await issueToken(t.app, users.owner, otherRoom, ['read', 'write', 'upload']);
    assertError(
      await call(t.app, 'DELETE', `/api/layers/${layer.id}`, { auth: all.token }),
      403,
      'api_token_not_allowed',
    );
    assertError(
      await call(t.app, 'DELETE', `/api/layers/${layer.id}`, { auth: foreign.token }),
      403,
      'api_token_not_allowed',
    );
    // The same for an id that names nothing: a token cannot tell which layers exist.
    assertError(
      await call(t.app, 'DELETE', '/api/layers/layer-absent000000000000', { auth: foreign.token }),
      403,
      'api_token_not_allowed',
    );
    assertError(
      await call(t.app, 'DELETE', `/api/layers/${layer.id}`, { auth: users.stranger.token }),
      404,
      'not_found',
    );
    assertError(await call(t.app, 'DELETE', `/api/layers/${layer.id}`), 404, 'not_found');
    assert.ok(
      (await listLayers(t.app, room, users.owner.token)).some((l) => l.id === layer.id),
      'the layer stays',
    );
  });

  // 404 only to those who may not know of the layer: a viewer reads the room, so hears why.
  test('a viewer, who sees the layer, is 403 forbidden', async () => {
    const layer = await createInlineLayer(t.app, room, users.owner.token);
    assertError(await call(t.app, 'DELETE', `/api/layers/${layer.id}`, { auth: users.viewer.token }), 403, 'forbidden');
    assert.ok(
      (await listLayers(t.app, room, users.owner.token)).some((l) => l.id === layer.id),
      'the layer stays',
    );
  });
});
