import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Value } from 'typebox/value';
import { LiveEvent } from '../../src/modules/live/live-events.js';
import { assertOk, call, scaffold, type TestApp, type Users } from '../helpers.js';
import { LiveClient, type LiveMessage } from '../support/live-client.js';

/**
 * The live channel's messages are the `LiveEvent` union (src/modules/live/live-events.ts):
 * the OpenAPI document shows it, and what the channel really sends, live or replayed, is
 * valid against it, change type by change type.
 */

let t: TestApp;
let wsBase: string;
let users: Users;
let room: string;
const clients: LiveClient[] = [];

before(async () => {
  ({ t, users, room, wsBase } = await scaffold({ rooms: ['room'], listen: true }));
});

after(async () => {
  for (const client of clients.splice(0)) client.terminate();
  await t?.close();
});

function listen(query = ''): LiveClient {
  const client = new LiveClient(`${wsBase}/api/rooms/${room}/live?access_token=${users.owner.token}${query}`);
  clients.push(client);
  return client;
}

/** A write of the owner's on the room; answers 200 or 201. */
async function send(method: string, path: string, body?: object) {
  const res = await call(t.app, method, `/api/rooms/${room}${path}`, { auth: users.owner.token, body });
  assert.ok(res.statusCode === 200 || res.statusCode === 201, `${method} ${path}: ${res.statusCode} ${res.body}`);
  return res.json();
}

/** Each message valid against the schema, or the schema's complaint about it. */
function invalid(messages: LiveMessage[]) {
  return messages
    .filter((m) => !Value.Check(LiveEvent, m))
    .map((m) => ({ type: m.type, errors: [...Value.Errors(LiveEvent, m)].slice(0, 3).map((e) => e.message) }));
}

/** The writes of one story, and the change types they make, in order. */
async function story() {
  const { marker } = await send('POST', '/markers', { latitude: 46.5, longitude: 6.6, title: 'A' });
  await send('PATCH', `/markers/${marker.id}`, { title: 'B', tags: ['x'] });
  const { drawing } = await send('POST', '/drawings', { geometry: { type: 'Point', coordinates: [6, 46] } });
  await send('PATCH', `/drawings/${drawing.id}`, { label: 'here' });
  const { comment } = await send('POST', '/comments', { objectType: 'marker', objectId: marker.id, body: 'Hi' });
  const { reply } = await send('POST', `/comments/${comment.id}/replies`, { body: 'Hello' });
  await send('PATCH', `/comments/${comment.id}`, { resolved: true });
  await send('DELETE', `/comments/${comment.id}/replies/${reply.id}`);
  await send('DELETE', `/comments/${comment.id}`);
  const view = { lat: 46, lng: 6, zoom: 8 };
  const first = (await send('POST', '/presentation/slides', { title: 'One', view, markerIds: [marker.id] })).slide;
  const second = (await send('POST', '/presentation/slides', { title: 'Two', view })).slide;
  await send('PUT', '/presentation/slides/order', { slideIds: [second.id, first.id] });
  await send('DELETE', `/presentation/slides/${first.id}`);
  await send('PATCH', '', { name: 'Renamed' });
  await send('DELETE', `/drawings/${drawing.id}`);
  await send('DELETE', `/markers/${marker.id}`);
  await send('POST', '/clear');
  return [
    'marker.created',
    'marker.updated',
    'drawing.created',
    'drawing.updated',
    'comment.created',
    'reply.created',
    'comment.updated',
    'reply.deleted',
    'comment.deleted',
    'slide.created',
    'slide.created',
    'presentation.updated',
    'slide.deleted',
    'room.updated',
    'drawing.deleted',
    'marker.deleted',
    'room.cleared',
  ];
}

describe('live events', () => {
  test('the OpenAPI document shows the LiveEvent union: the channel messages and every change type', async () => {
    const document = assertOk(await call(t.app, 'GET', '/api/openapi.json'));
    const union = document.components.schemas.LiveEvent;
    const types = union.anyOf.map(
      (member: { properties: { type: { enum: string[] } } }) => member.properties.type.enum[0],
    );
    assert.deepEqual(types.slice(0, 3), ['hello', 'resync', 'error']);
    for (const type of ['marker.updated', 'layer.created', 'rasterLayer.deleted', 'room.imported', 'icon.created'])
      assert.ok(types.includes(type), type);
    assert.equal(new Set(types).size, types.length, 'one member per type');
    assert.match(document.paths['/api/rooms/{roomId}/live'].get.description, /LiveEvent/);
  });

  test('what the channel sends, live and replayed, is valid against the union', async () => {
    const live = listen();
    const hello = await live.at(0);
    const expected = await story();
    const messages = await live.waitFor(expected.length + 1);
    assert.deepEqual(
      messages.slice(1).map((m) => m.type),
      expected,
    );
    assert.deepEqual(invalid(messages), []);

    const replayed = listen(`&since=${hello.version}`);
    const caughtUp = await replayed.waitFor(expected.length + 1);
    assert.deepEqual(
      caughtUp.slice(1).map((m) => m.type),
      expected,
    );
    assert.deepEqual(invalid(caughtUp), []);
  });

  test('the schema tells a change with the wrong data from a right one', () => {
    const change = {
      type: 'marker.deleted',
      objectType: 'marker',
      objectId: 'marker-a',
      data: null,
      version: 1,
      at: 1,
      actor: { kind: 'user', id: 'user-a' },
    };
    assert.ok(Value.Check(LiveEvent, change));
    assert.ok(!Value.Check(LiveEvent, { ...change, actor: undefined }), 'a change says who made it');
    assert.ok(!Value.Check(LiveEvent, { ...change, data: { id: 'marker-a' } }), 'a deletion carries no object');
    assert.ok(!Value.Check(LiveEvent, { ...change, type: 'marker.removed' }), 'no such type');
    assert.ok(!Value.Check(LiveEvent, { ...change, type: 'marker.updated' }), 'an update carries the marker');
  });
});
