/**
 * OGC API – Features Part 4 on a room's layer collections: POST items (201, Location, ETag),
 * PUT and PATCH items/:featureId with If-Match (412 on a stale ETag), DELETE; through the same
 * write path as the feature routes (history, checks against the fields); markers and drawings
 * are not written here (405); writing needs `write`, with a Bearer token or HTTP Basic.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  assertError,
  assertFieldError,
  assertOk,
  basicAuthorization,
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

const items = (collectionId: string) => `/api/rooms/${room}/ogc/collections/${collectionId}/items`;
const square = (lon: number, lat: number) => squareFeature(lon, lat, 0.001).geometry;
/** A request with a GeoJSON body, as a GIS tool sends it. */
const send = (
  method: 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
  auth = users.editor.token,
) =>
  t.app.inject({
    method,
    url,
    headers: {
      authorization: `Bearer ${auth}`,
      ...(body !== undefined && {
        'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/geo+json',
      }),
      ...headers,
    },
    ...(body !== undefined && { payload: JSON.stringify(body) }),
  });
const newLayer = (): Promise<Layer> => createInlineLayer(t.app, room, users.owner.token);

describe('OGC API – Features Part 4', () => {
  test('the conformance names create-replace-delete, update and ETags', async () => {
    const { conformsTo } = assertOk(
      await call(t.app, 'GET', `/api/rooms/${room}/ogc/conformance`, { auth: users.viewer.token }),
    );
    for (const part of ['create-replace-delete', 'update', 'optimistic-locking-etags'])
      assert.ok(conformsTo.includes(`http://www.opengis.net/spec/ogcapi-features-4/1.0/conf/${part}`), part);
  });

  test('a created item answers 201 with its Location and ETag; it reads back the same, in history as the feature routes write', async () => {
    const layer = await newLayer();
    const res = await send('POST', items(layer.id), {
      type: 'Feature',
      id: 'ignored',
      geometry: square(7.5, 46.9),
      properties: { name: 'north' },
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.match(String(res.headers['content-type']), /application\/geo\+json/);
    const created = res.json();
    assert.equal(created.properties.name, 'north');
    assert.equal(res.headers.etag, '"1"');
    const location = String(res.headers.location);
    assert.ok(location.endsWith(`/api/rooms/${room}/ogc/collections/${layer.id}/items/${created.id}`), location);
    const read = await call(t.app, 'GET', new URL(location).pathname, { auth: users.viewer.token });
    assert.equal(read.statusCode, 200);
    assert.equal(read.headers.etag, '"1"');
    assert.equal(read.json().properties.name, 'north');
    const [entry] = await roomHistory(t.app, room, users.owner.token, 'limit=1');
    assert.equal(entry!.type, 'feature.created');
    assert.equal(entry!.objectId, `${layer.id}:${created.id}`);
  });

  test('PUT replaces every property, PATCH some; a stale If-Match is 412 naming who changed it', async () => {
    const layer = await newLayer();
    const id = (await features(t.app, layer.id, users.owner.token)).features[0]!.id;
    const url = `${items(layer.id)}/${id}`;
    const read = await call(t.app, 'GET', url, { auth: users.viewer.token });
    const etag = String(read.headers.etag);
    assert.equal(etag, '"1"');

    const patched = await send('PATCH', url, { properties: { name: 'renamed' } }, { 'if-match': etag });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.equal(patched.headers.etag, '"2"');
    assert.equal(patched.json().properties.name, 'renamed');

    const stale = await send(
      'PUT',
      url,
      { type: 'Feature', geometry: square(7.4, 46.9), properties: {} },
      { 'if-match': etag },
      users.owner.token,
    );
    const body = assertError(stale, 412, 'precondition_failed');
    assert.equal(body.details.version, 2);
    assert.equal(typeof body.details.by, 'string');

    const replaced = await send(
      'PUT',
      url,
      { type: 'Feature', geometry: square(7.4, 46.9), properties: {} },
      { 'if-match': '"2"' },
    );
    assert.equal(replaced.statusCode, 200, replaced.body);
    assert.deepEqual(replaced.json().properties, {});
    assert.equal(replaced.headers.etag, '"3"');
    assertError(await send('DELETE', url, undefined, { 'if-match': '"2"' }), 412, 'precondition_failed');
    assertError(await send('DELETE', url, undefined, { 'if-match': 'W/"3"' }), 412, 'precondition_failed');
    assert.equal((await send('DELETE', url, undefined, { 'if-match': '"3"' })).statusCode, 204);
    assertError(await call(t.app, 'GET', url, { auth: users.viewer.token }), 404, 'not_found');
    // Without If-Match the last write wins.
    const other = (await features(t.app, layer.id, users.owner.token)).features[0]!.id;
    assert.equal((await send('PATCH', `${items(layer.id)}/${other}`, { properties: { name: 'x' } })).statusCode, 200);
  });

  test('bad items are 400 naming the field; markers and drawings are 405; unknown items 404', async () => {
    const layer = await newLayer();
    assertFieldError(
      await send('POST', items(layer.id), { type: 'Feature', geometry: square(7, 46), properties: { colour: 1 } }),
      'body.properties.colour',
    );
    assertFieldError(
      await send('POST', items(layer.id), { type: 'Feature', geometry: { type: 'Point', coordinates: [7, 46] } }),
      'body.geometry',
    );
    assertFieldError(await send('POST', items(layer.id), { geometry: square(7, 46) }), 'body.type');
    const markers = await send('POST', items('markers'), {
      type: 'Feature',
      geometry: { type: 'Point', coordinates: [7, 46] },
    });
    assertError(markers, 405, 'method_not_allowed');
    assert.equal(markers.headers.allow, 'GET');
    assertError(await send('PATCH', `${items('drawings')}/drawing-x`, { properties: {} }), 405, 'method_not_allowed');
    const lines = await send('DELETE', `${items('drawings-lines')}/drawing-x`);
    assertError(lines, 405, 'method_not_allowed');
    assert.match(lines.json().message, /change drawings through \/api\/rooms\/:roomId\/drawings/);
    assertError(await send('DELETE', `${items(layer.id)}/999999`), 404, 'not_found');
    assertError(await send('DELETE', `${items(layer.id)}/abc`), 404, 'not_found');
    assertError(await send('PATCH', `${items('layer-absent')}/1`, { properties: {} }), 404, 'not_found');
  });

  test('writing needs write: a read token is refused; a write token works as HTTP Basic too', async () => {
    const layer = await newLayer();
    const body = { type: 'Feature', geometry: square(7.45, 46.95), properties: { name: 'by token' } };
    const reader = await issueToken(t.app, users.owner, room, ['read']);
    assertError(await send('POST', items(layer.id), body, {}, reader.token), 403, 'forbidden');
    assertError(await send('POST', items(layer.id), body, {}, users.viewer.token), 403, 'forbidden');
    const writer = await issueToken(t.app, users.owner, room, ['read', 'write']);
    const res = await t.app.inject({
      method: 'POST',
      url: items(layer.id),
      headers: { authorization: basicAuthorization('qgis', writer.token), 'content-type': 'application/geo+json' },
      payload: JSON.stringify(body),
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal((await features(t.app, layer.id, users.owner.token)).features.length, 3);
  });
});
