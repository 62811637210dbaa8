/**
 * Editing a vector layer's features: `POST /api/layers/:layerId/features`,
 * `PATCH` and `DELETE /api/layers/:layerId/features/:featureId`, with `write` on the room.
 * Each edit is in every read at once (features, bbox reads, tiles, OGC items, the attribute
 * table), one history entry (`feature.*`, restorable) and a live change; versions refuse a
 * change based on an older one (409 `version_conflict` naming who changed it); properties are
 * checked against the layer's fields.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { VectorTile } from '@mapbox/vector-tile';
import { PbfReader } from 'pbf';
import {
  addMember,
  assertError,
  assertFieldError,
  assertOk,
  call,
  createRoom,
  followVerificationLink,
  issueToken,
  PASSWORD,
  roomHistory,
  scaffold,
  type TestApp,
  type TestUser,
  TOKEN_ERRORS,
  uniqueEmail,
  type Users,
} from '../helpers.js';
import { exported, ogrRows, scratch } from '../support/exports.js';
import { createInlineLayer, features, type Layer, listLayers, squareFeature, TWO_SQUARES } from '../support/layers.js';
import { LiveClient } from '../support/live-client.js';

let t: TestApp;
let users: Users;
let room: string;
let wsBase: string;
/** An editor with a name, which a 409 names. */
let edna: TestUser;

before(async () => {
  ({ t, users, room, wsBase } = await scaffold({ listen: true }));
  const email = uniqueEmail('edna');
  const signedUp = assertOk(
    await call(t.app, 'POST', '/api/auth/signup', { body: { email, password: PASSWORD, name: 'Edna' } }),
    201,
  );
  await followVerificationLink(t.app, email);
  edna = { token: signedUp.token, id: signedUp.user.id, email };
  await addMember(t.app, users.owner, room, edna, 'editor');
});
after(async () => {
  await t?.close();
});

/** A layer of two squares near Bern with fields `name` (text) and `lots` (integer). */
const newLayer = () =>
  createInlineLayer(t.app, room, users.owner.token, {
    geojson: {
      type: 'FeatureCollection',
      features: [
        squareFeature(7.44, 46.95, 0.01, { name: 'west', lots: 3 }),
        squareFeature(7.47, 46.95, 0.01, { name: 'east', lots: 5 }),
      ],
    },
  });
const featuresUrl = (layerId: string) => `/api/layers/${layerId}/features`;
const featureUrl = (layerId: string, id: number) => `/api/layers/${layerId}/features/${id}`;
/** A tiny square around (lon, lat): the test layers hold polygons. */
const spot = (lon: number, lat: number) => squareFeature(lon, lat, 0.0005).geometry;
const add = (layer: Layer, body: unknown, auth = users.editor.token) =>
  call(t.app, 'POST', featuresUrl(layer.id), { auth, body });
const patch = (layer: Layer, id: number, body: unknown, auth = users.editor.token) =>
  call(t.app, 'PATCH', featureUrl(layer.id, id), { auth, body });
const remove = (layer: Layer, id: number, auth = users.editor.token) =>
  call(t.app, 'DELETE', featureUrl(layer.id, id), { auth });
const idOf = async (layer: Layer, name: string) =>
  (await features(t.app, layer.id, users.owner.token)).features.find((f) => f.properties.name === name)!.id;

/** The features of the tile at zoom 12 holding (lon, lat), by name. */
async function tileNames(layer: Layer, lon: number, lat: number): Promise<string[]> {
  const z = 12;
  const x = Math.floor(((lon + 180) / 360) * 2 ** z);
  const rad = (lat * Math.PI) / 180;
  const y = Math.floor(((1 - Math.log(Math.tan(rad) + 1 / Math.cos(rad)) / Math.PI) / 2) * 2 ** z);
  const res = await call(t.app, 'GET', `/api/layers/${layer.id}/tiles/${z}/${x}/${y}.mvt`, {
    auth: users.viewer.token,
  });
  if (res.statusCode === 204) return [];
  assert.equal(res.statusCode, 200, res.body);
  const decoded = new VectorTile(new PbfReader(new Uint8Array(res.rawPayload))).layers.features!;
  return Array.from({ length: decoded.length }, (_, i) => String(decoded.feature(i).properties.name)).sort();
}

/** The names of the layer's features in a small bbox around (lon, lat). */
async function namesNear(layer: Layer, lon: number, lat: number): Promise<string[]> {
  const bbox = `minLon=${lon - 0.001}&minLat=${lat - 0.001}&maxLon=${lon + 0.001}&maxLat=${lat + 0.001}`;
  return (await features(t.app, layer.id, users.viewer.token, bbox)).features.map((f) => String(f.properties.name));
}

describe('editing the features of a layer', () => {
  test('a created feature is in the features, bbox reads, tiles, OGC items and attribute table, with history and live', async () => {
    const layer = await newLayer();
    const live = new LiveClient(`${wsBase}/api/rooms/${room}/live?access_token=${users.viewer.token}`);
    try {
      assert.equal((await live.at(0)).type, 'hello');
      const res = await add(layer, {
        type: 'Feature',
        geometry: spot(7.6, 47.1),
        properties: { name: 'well', lots: 1 },
      });
      const created = assertOk(res, 201);
      assert.deepEqual(Object.keys(created).sort(), ['geometry', 'id', 'properties', 'type', 'version']);
      assert.equal(created.version, 1);
      const ids = (await features(t.app, layer.id, users.owner.token)).features.map((f) => f.id);
      assert.equal(created.id, Math.max(...ids), 'the id after the highest');
      assert.equal(new Set(ids).size, 3);

      const [listed] = (await listLayers(t.app, room, users.viewer.token)).filter((l) => l.id === layer.id);
      assert.equal(listed!.featureCount, 3);
      assert.ok(listed!.bbox![2] >= 7.6 && listed!.bbox![3] >= 47.1, `the layer's bbox grew: ${listed!.bbox}`);
      assert.ok(listed!.updatedAt > layer.updatedAt);
      assert.equal(listed!.geometryType, 'Polygon');
      assert.deepEqual(await namesNear(layer, 7.6, 47.1), ['well']);
      assert.deepEqual(await tileNames(layer, 7.6, 47.1), ['well']);

      const items = assertOk(
        await call(t.app, 'GET', `/api/rooms/${room}/ogc/collections/${layer.id}/items/${created.id}`, {
          auth: users.viewer.token,
        }),
      );
      assert.equal(items.properties.name, 'well');
      const table = assertOk(
        await call(t.app, 'GET', `/api/layers/${layer.id}/attributes?sort=lots&order=asc`, {
          auth: users.viewer.token,
        }),
      );
      assert.deepEqual(
        table.rows.map((f: { properties: { lots: number } }) => f.properties.lots),
        [1, 3, 5],
      );

      const event = await live.waitUntil((m) => m.type === 'feature.created', 'feature.created');
      assert.equal(event.objectId, `${layer.id}:${created.id}`);
      assert.deepEqual((event.data as { feature: unknown }).feature, created);
      const [entry] = await roomHistory(t.app, room, users.owner.token, 'limit=1');
      assert.equal(entry!.type, 'feature.created');
      assert.equal(entry!.objectName, 'well');
    } finally {
      live.terminate();
    }
  });

  test('a change replaces the properties given, null removes one, a new geometry moves it in every read', async () => {
    const layer = await newLayer();
    const id = await idOf(layer, 'west');
    const before = await tileNames(layer, 7.44, 46.95);
    assert.deepEqual(before, ['east', 'west']);
    const changed = assertOk(await patch(layer, id, { properties: { lots: 4 } }));
    assert.deepEqual(changed.properties, { name: 'west', lots: 4 });
    assert.equal(changed.version, 2);
    const moved = assertOk(
      await patch(layer, id, { geometry: spot(8.2, 46.5), properties: { lots: null }, ifVersion: 2 }),
    );
    assert.deepEqual(moved.properties, { name: 'west' });
    assert.deepEqual(moved.geometry, spot(8.2, 46.5));
    assert.equal(moved.version, 3);
    assert.deepEqual(await namesNear(layer, 8.2, 46.5), ['west']);
    assert.deepEqual(await namesNear(layer, 7.44, 46.95), []);
    assert.deepEqual(await tileNames(layer, 8.2, 46.5), ['west']);
    assert.deepEqual(await tileNames(layer, 7.44, 46.95), ['east']);
    const [entry] = await roomHistory(t.app, room, users.owner.token, 'limit=1');
    assert.equal(entry!.type, 'feature.updated');
    assert.deepEqual(entry!.changes, { properties: { lots: null }, geometry: true });
  });

  test('a change based on an older version is 409 version_conflict, naming who changed it and the version', async () => {
    const layer = await newLayer();
    const id = await idOf(layer, 'east');
    assertOk(await patch(layer, id, { properties: { lots: 6 }, ifVersion: 1 }, edna.token));
    const body = assertError(
      await patch(layer, id, { properties: { lots: 7 }, ifVersion: 1 }, users.owner.token),
      409,
      'version_conflict',
    );
    assert.deepEqual(body.details, { by: 'Edna', version: 2 });
    assert.equal(
      (await features(t.app, layer.id, users.owner.token)).features.find((f) => f.id === id)!.properties.lots,
      6,
    );
    // Without ifVersion the last change wins.
    assert.equal(assertOk(await patch(layer, id, { properties: { lots: 7 } }, users.owner.token)).version, 3);
  });

  test('a deleted feature leaves every read; restoring the deletion brings it back with its id', async () => {
    const layer = await newLayer();
    const id = await idOf(layer, 'east');
    const res = await remove(layer, id);
    assert.equal(res.statusCode, 204, res.body);
    assert.deepEqual(
      (await features(t.app, layer.id, users.owner.token)).features.map((f) => f.properties.name),
      ['west'],
    );
    assert.deepEqual(await tileNames(layer, 7.47, 46.95), ['west']);
    assert.equal((await listLayers(t.app, room, users.viewer.token)).find((l) => l.id === layer.id)!.featureCount, 1);
    assertError(await patch(layer, id, { properties: { lots: 1 } }), 404, 'not_found');
    assertError(await remove(layer, id), 404, 'not_found');
    // A feature created after the deletion takes a new row: both are read.
    const added = assertOk(
      await add(layer, { type: 'Feature', geometry: spot(7.5, 46.9), properties: { name: 'new' } }),
      201,
    );
    assert.ok(added.id > id);

    const [, deletion] = await roomHistory(t.app, room, users.owner.token, 'limit=2');
    assert.equal(deletion!.type, 'feature.deleted');
    assertOk(
      await call(t.app, 'POST', `/api/rooms/${room}/history/${deletion!.id}/restore`, { auth: users.owner.token }),
    );
    const back = (await features(t.app, layer.id, users.owner.token)).features;
    assert.deepEqual(back.map((f) => f.properties.name).sort(), ['east', 'new', 'west']);
    assert.equal(back.find((f) => f.properties.name === 'east')!.id, id);
    assert.deepEqual(
      await tileNames(layer, 7.47, 46.95),
      ['east', 'new', 'west'].filter((n) => n !== 'new'),
    );
    // Restored at the version after the deletion's.
    assertError(await patch(layer, id, { properties: { lots: 2 }, ifVersion: 1 }), 409, 'version_conflict');
    assert.equal(assertOk(await patch(layer, id, { properties: { lots: 2 }, ifVersion: 3 })).version, 4);
  });

  test('an export holds the layer as edited: a deletion leaves a gap, a created feature comes after the count', async () => {
    const roomId = await createRoom(t.app, users.owner);
    const layer = await createInlineLayer(t.app, roomId, users.owner.token, { name: 'Edited', geojson: TWO_SQUARES });
    const east = await idOf(layer, 'east');
    assert.equal((await remove(layer, east, users.owner.token)).statusCode, 204);
    const body = { type: 'Feature', geometry: spot(7.5, 46.9), properties: { name: 'new' } };
    assertOk(await add(layer, body, users.owner.token), 201);
    assertOk(await patch(layer, await idOf(layer, 'west'), { properties: { name: 'west 2' } }, users.owner.token));
    const files = scratch();
    try {
      await exported(t.app, roomId, users.owner.token, files.file('room.gpkg'));
      const rows = ogrRows(files.file('room.gpkg'), 'Edited');
      assert.deepEqual(rows.map((r) => r.properties.name).sort(), ['new', 'west 2']);
      const [[first]] = rows.find((r) => r.properties.name === 'new')!.geometry.coordinates;
      assert.ok(Math.abs(first[0] - 7.4995) < 1e-9 && Math.abs(first[1] - 46.8995) < 1e-9, `${first}`);
    } finally {
      files.remove();
    }
  });

  test('properties are checked against the fields; geometry and the body are checked', async () => {
    const layer = await newLayer();
    const id = await idOf(layer, 'west');
    const cases: [unknown, string][] = [
      [{ type: 'Feature', geometry: spot(7, 46), properties: { colour: 'red' } }, 'body.properties.colour'],
      [{ type: 'Feature', geometry: spot(7, 46), properties: { lots: 'many' } }, 'body.properties.lots'],
      [{ type: 'Feature', geometry: spot(7, 46), properties: { lots: 1.5 } }, 'body.properties.lots'],
      [{ type: 'Feature', geometry: spot(7, 46), properties: { name: 12 } }, 'body.properties.name'],
      [{ type: 'Feature', geometry: spot(200, 46) }, 'body.geometry'],
      [
        {
          type: 'Feature',
          geometry: {
            type: 'Polygon',
            coordinates: [
              [
                [7, 46],
                [8, 46],
                [8, 47],
              ],
            ],
          },
        },
        'body.geometry',
      ],
      [{ type: 'Feature', geometry: { type: 'Circle', coordinates: [7, 46] } }, 'body.geometry'],
      [{ type: 'Feature' }, 'body'],
      [{ type: 'Feature', geometry: spot(7, 46), id: 4 }, 'body'],
    ];
    for (const [body, field] of cases) assertFieldError(await add(layer, body), field);
    assertFieldError(await patch(layer, id, { properties: { lots: true } }), 'body.properties.lots');
    assertFieldError(await patch(layer, id, { ifVersion: 0, properties: {} }), 'body.ifVersion');
    assertError(await patch(layer, id, {}), 400, 'empty_update');
    assertError(await patch(layer, 999_999, { properties: { lots: 1 } }), 404, 'not_found');
    assertFieldError(await patch(layer, -1 as number, { properties: { lots: 1 } }), 'params.featureId');
    // The layer holds polygons: a point or a line is refused, a multi-polygon is taken.
    const pointBody = { type: 'Feature', geometry: { type: 'Point', coordinates: [7, 46] } };
    assert.match(assertFieldError(await add(layer, pointBody), 'body.geometry').message, /Polygon/);
    assertFieldError(
      await patch(layer, id, {
        geometry: {
          type: 'LineString',
          coordinates: [
            [7, 46],
            [7.1, 46],
          ],
        },
      }),
      'body.geometry',
    );
    const multi = { type: 'MultiPolygon', coordinates: [spot(7.1, 46.1).coordinates, spot(7.2, 46.2).coordinates] };
    assert.deepEqual(assertOk(await add(layer, { type: 'Feature', geometry: multi }), 201).geometry, multi);
    assert.equal((await features(t.app, layer.id, users.owner.token)).features.length, 3);
  });

  test('a multi-part line added to an empty line layer is in its tiles and bbox reads', async () => {
    const created = await call(t.app, 'POST', `/api/rooms/${room}/layers`, {
      auth: users.owner.token,
      body: { name: 'Trails', geometryType: 'LineString', fields: [{ name: 'name', type: 'text' }] },
    });
    const layer = assertOk(created, 200).layer as Layer;
    const geometry = {
      type: 'MultiLineString',
      coordinates: [
        [
          [7.44, 46.95],
          [7.445, 46.952],
        ],
        [
          [7.446, 46.953],
          [7.45, 46.95],
        ],
      ],
    };
    assertOk(await add(layer, { type: 'Feature', geometry, properties: { name: 'ridge' } }), 201);
    assert.deepEqual(await tileNames(layer, 7.445, 46.951), ['ridge']);
    assert.deepEqual(await namesNear(layer, 7.445, 46.952), ['ridge']);
  });

  test('viewers and read tokens may not edit; a write token may; another room cannot reach the layer', async () => {
    const layer = await newLayer();
    const id = await idOf(layer, 'west');
    const body = { type: 'Feature', geometry: spot(7, 46) };
    assertError(await add(layer, body, users.viewer.token), 403, 'forbidden');
    assertError(await patch(layer, id, { properties: { lots: 1 } }, users.viewer.token), 403, 'forbidden');
    assertError(await remove(layer, id, users.viewer.token), 403, 'forbidden');
    assertError(await add(layer, body, users.stranger.token), 404, 'not_found');
    assertError(await add(layer, body, ''), 404, 'not_found');
    const reader = await issueToken(t.app, users.owner, room, ['read']);
    assertError(await add(layer, body, reader.token), 403, 'forbidden', TOKEN_ERRORS.lacksWrite);
    const writer = await issueToken(t.app, users.owner, room, ['read', 'write']);
    assert.equal(assertOk(await add(layer, body, writer.token), 201).version, 1);
    assert.equal((await remove(layer, id, writer.token)).statusCode, 204);
    assertError(
      await call(t.app, 'POST', featuresUrl('layer-none'), { auth: users.owner.token, body }),
      404,
      'not_found',
    );
  });
});
