/**
 * Layers with fields: an empty layer made with a geometry type and typed fields
 * (`POST /api/rooms/:roomId/layers` without geojson), and `GET/POST /api/layers/:layerId/fields`,
 * `PATCH/DELETE /api/layers/:layerId/fields/:name` on it and on an uploaded layer. Features
 * follow the fields: types, choices, required values, defaults; a rename or removal reaches
 * every feature and the layer's style.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  assertError,
  assertFieldError,
  assertOk,
  call,
  issueToken,
  roomHistory,
  scaffold,
  type TestApp,
  type Users,
} from '../helpers.js';
import { createInlineLayer, features, type Layer, squareFeature } from '../support/layers.js';

let t: TestApp;
let users: Users;
let room: string;

before(async () => {
  ({ t, users, room } = await scaffold());
});
after(async () => {
  await t?.close();
});

const SURVEY_FIELDS = [
  { name: 'name', type: 'text', required: true },
  { name: 'count', type: 'integer', default: 0 },
  { name: 'depth', type: 'real' },
  { name: 'seen', type: 'date' },
  { name: 'dry', type: 'boolean' },
  { name: 'kind', type: 'choice', choices: ['well', 'spring'], default: 'well' },
];

const surveyLayer = async (): Promise<Layer> =>
  assertOk(
    await call(t.app, 'POST', `/api/rooms/${room}/layers`, {
      auth: users.editor.token,
      body: { name: 'Survey', geometryType: 'Point', fields: SURVEY_FIELDS },
    }),
  ).layer;
const fieldsOf = async (layerId: string) =>
  assertOk(await call(t.app, 'GET', `/api/layers/${layerId}/fields`, { auth: users.viewer.token })).fields;
const addPoint = (layerId: string, properties: Record<string, unknown>, auth = users.editor.token) =>
  call(t.app, 'POST', `/api/layers/${layerId}/features`, {
    auth,
    body: { type: 'Feature', geometry: { type: 'Point', coordinates: [7.44, 46.95] }, properties },
  });

describe('an empty layer with fields', () => {
  test('is made without features, lists its fields, and takes points that follow them', async () => {
    const layer = await surveyLayer();
    assert.equal(layer.featureCount, 0);
    assert.equal(layer.geometryType, 'Point');
    assert.equal(layer.bbox, null);
    const expected = SURVEY_FIELDS.map((f) => ({ required: false, ...f }));
    assert.deepEqual(layer.fields, expected);
    assert.deepEqual(await fieldsOf(layer.id), expected);
    assert.deepEqual((await features(t.app, layer.id, users.viewer.token)).features, []);

    const created = assertOk(await addPoint(layer.id, { name: 'North well', depth: 12.5, seen: '2026-11-02' }), 201);
    assert.deepEqual(created.properties, {
      name: 'North well',
      depth: 12.5,
      seen: '2026-11-02',
      count: 0,
      kind: 'well',
    });
    const cases: [Record<string, unknown>, string][] = [
      [{ depth: 3 }, 'body.properties.name'],
      [{ name: null }, 'body.properties.name'],
      [{ name: 'x', kind: 'lake' }, 'body.properties.kind'],
      [{ name: 'x', seen: '2026-13-01' }, 'body.properties.seen'],
      [{ name: 'x', dry: 'no' }, 'body.properties.dry'],
      [{ name: 'x', count: 1.5 }, 'body.properties.count'],
    ];
    for (const [properties, field] of cases) assertFieldError(await addPoint(layer.id, properties), field);
    assertFieldError(
      await call(t.app, 'PATCH', `/api/layers/${layer.id}/features/${created.id}`, {
        auth: users.editor.token,
        body: { properties: { name: null } },
      }),
      'body.properties.name',
    );
    const [listed] = assertOk(
      await call(t.app, 'GET', `/api/layers/${room}`, { auth: users.viewer.token }),
    ).layers.filter((l: Layer) => l.id === layer.id);
    assert.equal(listed.featureCount, 1);
    assert.deepEqual(listed.bbox, [7.44, 46.95, 7.44, 46.95]);
    const created0 = (await roomHistory(t.app, room, users.owner.token)).find((e) => e.objectId === layer.id);
    assert.equal(created0!.type, 'layer.created');
  });

  test('a geometry type is needed, fields are checked, and fields go only with an empty layer', async () => {
    const post = (body: Record<string, unknown>) =>
      call(t.app, 'POST', `/api/rooms/${room}/layers`, { auth: users.editor.token, body: { name: 'L', ...body } });
    assertFieldError(await post({ fields: [] }), 'body.geometryType');
    assertFieldError(await post({ geometryType: 'Circle' }), 'body.geometryType');
    assertFieldError(
      await post({ geometryType: 'Point', fields: [{ name: 'k', type: 'choice' }] }),
      'body.fields[0].choices',
    );
    assertFieldError(
      await post({ geometryType: 'Point', fields: [{ name: 'k', type: 'text', choices: ['a'] }] }),
      'body.fields[0].choices',
    );
    assertFieldError(
      await post({ geometryType: 'Point', fields: [{ name: 'n', type: 'integer', default: 'one' }] }),
      'body.fields[0].default',
    );
    assertFieldError(
      await post({
        geometryType: 'Point',
        fields: [
          { name: 'n', type: 'text' },
          { name: 'n', type: 'real' },
        ],
      }),
      'body.fields[1].name',
    );
    assertFieldError(
      await post({ geometryType: 'Point', fields: [{ name: 'n', type: 'json' }] }),
      'body.fields.0.type',
    );
    assertFieldError(
      await post({ geometryType: 'Point', geojson: { type: 'FeatureCollection', features: [] } }),
      'body.geometryType',
    );
    const viewer = await call(t.app, 'POST', `/api/rooms/${room}/layers`, {
      auth: users.viewer.token,
      body: { name: 'L', geometryType: 'Point' },
    });
    assertError(viewer, 403, 'forbidden');
  });
});

describe('changing the fields of a layer', () => {
  test('an uploaded layer gets a field; its features take it', async () => {
    const layer = await createInlineLayer(t.app, room, users.owner.token);
    assert.deepEqual(await fieldsOf(layer.id), [{ name: 'name', type: 'text', required: false }]);
    const added = assertOk(
      await call(t.app, 'POST', `/api/layers/${layer.id}/fields`, {
        auth: users.editor.token,
        body: { name: 'owner', type: 'choice', choices: ['city', 'canton'] },
      }),
      201,
    );
    assert.deepEqual(added, { name: 'owner', type: 'choice', required: false, choices: ['city', 'canton'] });
    const id = (await features(t.app, layer.id, users.owner.token)).features[0]!.id;
    const patched = await call(t.app, 'PATCH', `/api/layers/${layer.id}/features/${id}`, {
      auth: users.editor.token,
      body: { properties: { owner: 'city' } },
    });
    assert.equal(assertOk(patched).properties.owner, 'city');
    assertError(
      await call(t.app, 'POST', `/api/layers/${layer.id}/fields`, {
        auth: users.editor.token,
        body: { name: 'owner', type: 'text' },
      }),
      409,
      'field_exists',
    );
    const entry = (await roomHistory(t.app, room, users.owner.token, 'limit=5')).find((e) => e.objectId === layer.id);
    assert.equal(entry!.type, 'layer.updated');
    assert.deepEqual(entry!.changes, { fields: { added: 'owner' } });
  });

  test('a rename reaches every feature (values and their types kept) and the style; a removal takes the values away', async () => {
    const geojson = {
      type: 'FeatureCollection',
      features: [
        squareFeature(7.44, 46.95, 0.01, { name: 'a', open: true, lots: 3 }),
        squareFeature(7.47, 46.95, 0.01, { name: 'b', open: false }),
      ],
    };
    const layer = await createInlineLayer(t.app, room, users.owner.token, { geojson });
    assertOk(
      await call(t.app, 'PATCH', `/api/rooms/${room}/layers/${layer.id}`, {
        auth: users.owner.token,
        body: { style: { labelField: 'open' } },
      }),
    );
    const renamed = await call(t.app, 'PATCH', `/api/layers/${layer.id}/fields/open`, {
      auth: users.editor.token,
      body: { name: 'is open', required: true },
    });
    assert.deepEqual(assertOk(renamed), { name: 'is open', type: 'boolean', required: true });
    const props = (await features(t.app, layer.id, users.owner.token)).features.map((f) => f.properties);
    assert.deepEqual(
      props.sort((x, y) => String(x.name).localeCompare(String(y.name))),
      [
        { name: 'a', 'is open': true, lots: 3 },
        { name: 'b', 'is open': false },
      ],
    );
    const listed = assertOk(await call(t.app, 'GET', `/api/layers/${room}`, { auth: users.viewer.token })).layers.find(
      (l: Layer) => l.id === layer.id,
    );
    assert.equal(listed.style.labelField, 'is open');
    assert.deepEqual(
      listed.fields.map((f: { name: string }) => f.name),
      ['name', 'is open', 'lots'],
    );

    const removed = await call(t.app, 'DELETE', `/api/layers/${layer.id}/fields/is%20open`, {
      auth: users.editor.token,
    });
    assert.equal(removed.statusCode, 204, removed.body);
    const after = (await features(t.app, layer.id, users.owner.token)).features.map((f) => f.properties);
    assert.ok(
      after.every((p) => !('is open' in p)),
      JSON.stringify(after),
    );
    const again = assertOk(await call(t.app, 'GET', `/api/layers/${room}`, { auth: users.viewer.token })).layers.find(
      (l: Layer) => l.id === layer.id,
    );
    assert.equal(again.style.labelField, null);
    assertError(
      await call(t.app, 'DELETE', `/api/layers/${layer.id}/fields/is%20open`, { auth: users.editor.token }),
      404,
      'not_found',
    );
  });

  test('changes are checked; readers may list but not change; a read token may not change', async () => {
    const layer = await surveyLayer();
    const patch = (name: string, body: unknown, auth = users.editor.token) =>
      call(t.app, 'PATCH', `/api/layers/${layer.id}/fields/${name}`, { auth, body });
    assertError(await patch('kind', {}), 400, 'empty_update');
    assertFieldError(await patch('kind', { default: 'lake' }), 'body.default');
    assertFieldError(await patch('count', { choices: ['a'] }), 'body.choices');
    assertFieldError(await patch('kind', { type: 'text' }), 'body');
    assertError(await patch('kind', { name: 'name' }), 409, 'field_exists');
    assertError(await patch('absent', { required: true }), 404, 'not_found');
    assert.deepEqual(assertOk(await patch('kind', { choices: ['well', 'spring', 'lake'], default: null })), {
      name: 'kind',
      type: 'choice',
      required: false,
      choices: ['well', 'spring', 'lake'],
    });
    assertError(await patch('kind', { required: true }, users.viewer.token), 403, 'forbidden');
    const reader = await issueToken(t.app, users.owner, room, ['read']);
    assert.equal((await fieldsOf(layer.id)).length, 6);
    assertError(
      await call(t.app, 'DELETE', `/api/layers/${layer.id}/fields/kind`, { auth: reader.token }),
      403,
      'forbidden',
    );
    assertError(
      await call(t.app, 'GET', `/api/layers/${layer.id}/fields`, { auth: users.stranger.token }),
      404,
      'not_found',
    );
  });
});
