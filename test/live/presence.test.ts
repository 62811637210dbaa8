import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import {
  addMember,
  assertError,
  assertOk,
  call,
  createRoom,
  followVerificationLink,
  issueToken,
  PASSWORD,
  scaffoldSuite,
  type TestUser,
  uniqueEmail,
} from '../helpers.js';
import { InProcessPresence } from '../../src/infra/presence.js';
import { RoomPresence } from '../../src/modules/live/room-presence.js';
import type { ActorNames } from '../../src/modules/users/actor-names.js';
import { LiveClient, type LiveMessage } from '../support/live-client.js';

/**
 * Presence: `GET /api/rooms/:roomId/presence` lists who has the room's live socket
 * open; the channel tells `presence.joined` / `presence.left` and relays `pointer` and `view`
 * messages to the room's other sockets (docs/decisions.md, "Presence").
 */

/** A member with a display name (the others have only their e-mail). */
let ann: TestUser;
const clients: LiveClient[] = [];

const s = scaffoldSuite({ rooms: [], listen: true }, async () => {
  const res = await call(s.t.app, 'POST', '/api/auth/signup', {
    body: { email: uniqueEmail('ann'), password: PASSWORD, name: 'Ann' },
  });
  const { token, user } = assertOk(res, 201);
  await followVerificationLink(s.t.app, user.email);
  ann = { token, id: user.id, email: user.email };
});
afterEach(() => {
  for (const client of clients.splice(0)) client.terminate();
});

async function freshRoom(body: object = {}) {
  const roomId = await createRoom(s.t.app, s.users.owner, undefined, body);
  await addMember(s.t.app, s.users.owner, roomId, ann, 'editor');
  await addMember(s.t.app, s.users.owner, roomId, s.users.viewer, 'viewer');
  return roomId;
}

/** A socket of the room that asked for presence news (or not), once it has been greeted. */
async function open(roomId: string, token?: string, news = true): Promise<LiveClient> {
  const query = new URLSearchParams({ ...(token && { access_token: token }), ...(news && { presence: 'true' }) });
  const client = new LiveClient(`${s.wsBase}/api/rooms/${roomId}/live?${query}`);
  clients.push(client);
  await client.at(0);
  return client;
}

const present = async (roomId: string, auth = s.users.owner.token) =>
  assertOk(await call(s.t.app, 'GET', `/api/rooms/${roomId}/presence`, { auth })).present as {
    kind: string;
    id: string;
    name: string;
    since: number;
  }[];

/** Waits until presence lists exactly these ids (a socket is listed before its hello; leaving takes a moment). */
async function waitForPresent(roomId: string, ids: string[]) {
  // A guard against hangs on a loaded machine, not a timing assertion.
  for (const started = Date.now(); Date.now() - started < 20_000; ) {
    const list = await present(roomId);
    if (JSON.stringify(list.map((p) => p.id)) === JSON.stringify(ids)) return list;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.deepEqual(
    (await present(roomId)).map((p) => p.id),
    ids,
  );
  return [];
}

const ofType = (client: LiveClient, type: string) => client.messages.filter((m: LiveMessage) => m.type === type);

test('presence lists who has the room open, by name, e-mail or token name, and tells joins and leaves', async () => {
  const roomId = await freshRoom();
  const owner = await open(roomId, s.users.owner.token);
  await waitForPresent(roomId, [s.users.owner.id]);
  const annSocket = await open(roomId, ann.token);
  const joined = await owner.waitUntil((m) => m.type === 'presence.joined' && m.id === ann.id, 'Ann joined');
  assert.deepEqual(Object.keys(joined).sort(), ['id', 'kind', 'name', 'since', 'type']);
  assert.equal(joined.name, 'Ann');

  const { token, id: tokenId } = await issueToken(s.t.app, s.users.owner, roomId, ['read']);
  await open(roomId, token);
  const list = await waitForPresent(roomId, [s.users.owner.id, ann.id, tokenId]);
  assert.deepEqual(
    list.map((p) => [p.kind, p.id, p.name]).sort(),
    [
      ['token', tokenId, 'token read'],
      ['user', ann.id, 'Ann'],
      ['user', s.users.owner.id, s.users.owner.email],
    ].sort(),
  );

  annSocket.ws.close();
  const left = await owner.waitUntil((m) => m.type === 'presence.left' && m.id === ann.id, 'Ann left');
  assert.deepEqual(left, { type: 'presence.left', kind: 'user', id: ann.id, name: 'Ann' });
  await waitForPresent(roomId, [s.users.owner.id, tokenId]);
});

test('room tokens learn no member\'s e-mail: a user without a name is "Member" to them, by e-mail to members', async () => {
  const roomId = await freshRoom();
  const { token, id: tokenId } = await issueToken(s.t.app, s.users.owner, roomId, ['read']);
  const owner = await open(roomId, s.users.owner.token);
  const script = await open(roomId, token);
  await waitForPresent(roomId, [s.users.owner.id, tokenId]);
  const viewer = await open(roomId, s.users.viewer.token);
  // Joins: the token hears "Member", the owner (a member) the e-mail.
  const heardByToken = await script.waitUntil(
    (m) => m.type === 'presence.joined' && m.id === s.users.viewer.id,
    'joined',
  );
  assert.equal(heardByToken.name, 'Member');
  const heardByOwner = await owner.waitUntil(
    (m) => m.type === 'presence.joined' && m.id === s.users.viewer.id,
    'joined',
  );
  assert.equal(heardByOwner.name, s.users.viewer.email);
  // The list: the same.
  const names = (list: { id: string; name: string }[]) => Object.fromEntries(list.map((p) => [p.id, p.name]));
  await waitForPresent(roomId, [s.users.owner.id, tokenId, s.users.viewer.id]);
  assert.deepEqual(names(await present(roomId, token)), {
    [s.users.owner.id]: 'Member',
    [tokenId]: 'token read',
    [s.users.viewer.id]: 'Member',
  });
  assert.deepEqual(names(await present(roomId, s.users.viewer.token)), {
    [s.users.owner.id]: s.users.owner.email,
    [tokenId]: 'token read',
    [s.users.viewer.id]: s.users.viewer.email,
  });
  // Pointers and leaving: the same.
  viewer.send({ type: 'pointer', lng: 7, lat: 46 });
  const pointed = await script.waitUntil((m) => m.type === 'pointer', 'a pointer');
  assert.deepEqual(pointed.from, { kind: 'user', id: s.users.viewer.id, name: 'Member' });
  assert.equal((await owner.waitUntil((m) => m.type === 'pointer', 'a pointer')).from.name, s.users.viewer.email);
  viewer.ws.close();
  assert.equal((await script.waitUntil((m) => m.type === 'presence.left', 'left')).name, 'Member');
  assert.equal((await owner.waitUntil((m) => m.type === 'presence.left', 'left')).name, s.users.viewer.email);
  assert.ok(!JSON.stringify(script.messages).includes('@'), 'no e-mail reached the token');
});

test('a second socket of the same person is listed once; they leave with their last socket', async () => {
  const roomId = await freshRoom();
  const owner = await open(roomId, s.users.owner.token);
  await waitForPresent(roomId, [s.users.owner.id]); // the owner's socket hears who joins after it
  const first = await open(roomId, ann.token);
  await owner.waitUntil((m) => m.type === 'presence.joined' && m.id === ann.id, 'Ann joined');
  const second = await open(roomId, ann.token);
  const list = await waitForPresent(roomId, [s.users.owner.id, ann.id]);
  assert.equal(list.length, 2);

  first.ws.close();
  await first.closed;
  // A change sent after the close reaches the owner after any presence news about it.
  assertOk(
    await call(s.t.app, 'POST', `/api/rooms/${roomId}/markers`, {
      auth: s.users.owner.token,
      body: { latitude: 1, longitude: 1 },
    }),
    201,
  );
  await owner.waitUntil((m) => m.type === 'marker.created', 'the marker');
  await owner.settled();
  assert.equal(ofType(owner, 'presence.joined').filter((m) => m.id === ann.id).length, 1, 'joined once');
  assert.equal(ofType(owner, 'presence.left').length, 0, 'still there with the second socket');
  await waitForPresent(roomId, [s.users.owner.id, ann.id]);

  second.ws.close();
  await owner.waitUntil((m) => m.type === 'presence.left' && m.id === ann.id, 'Ann left with her last socket');
});

test('pointer and view messages are relayed to the others, with who sent them; bad ones are ignored', async () => {
  const roomId = await freshRoom();
  const owner = await open(roomId, s.users.owner.token);
  const viewer = await open(roomId, s.users.viewer.token);
  await waitForPresent(roomId, [s.users.owner.id, s.users.viewer.id]);

  // A viewer (read only) may point: pointers need read, not write.
  viewer.send({ type: 'pointer', lng: 7.44, lat: 46.95 });
  const pointer = await owner.waitUntil((m) => m.type === 'pointer', 'the pointer');
  assert.deepEqual(pointer, {
    type: 'pointer',
    lng: 7.44,
    lat: 46.95,
    from: { kind: 'user', id: s.users.viewer.id, name: s.users.viewer.email },
  });
  viewer.send('not json');
  viewer.send({ type: 'pointer', lng: 7, lat: 91 });
  viewer.send({ type: 'pointer', lng: 7, lat: 46, secret: 'x' });
  viewer.send({ type: 'marker.created', objectId: 'marker-x' });
  viewer.send({ type: 'view', lng: 7.5, lat: 47, zoom: 12, bearing: 30 });
  const view = await owner.waitUntil((m) => m.type === 'view', 'the view');
  assert.deepEqual(view.from, { kind: 'user', id: s.users.viewer.id, name: s.users.viewer.email });
  assert.equal(view.zoom, 12);
  await owner.settled();
  assert.equal(ofType(owner, 'pointer').length, 1, 'the bad messages were not relayed');
  assert.equal(ofType(owner, 'marker.created').length, 0);
  await viewer.settled();
  assert.equal(ofType(viewer, 'pointer').length + ofType(viewer, 'view').length, 0, 'not echoed to the sender');
  assert.equal(viewer.ws.readyState, viewer.ws.OPEN, 'bad messages do not close the socket');
});

test('the feature a member edits is relayed to the others, and its end (null); bad ones are ignored', async () => {
  const roomId = await freshRoom();
  const owner = await open(roomId, s.users.owner.token);
  const editor = await open(roomId, ann.token);
  await waitForPresent(roomId, [s.users.owner.id, ann.id]);
  editor.send({ type: 'editing', feature: { layerId: 'layer-x', featureId: -1 } });
  editor.send({ type: 'editing', feature: { layerId: 'layer-x', featureId: 3, extra: 1 } });
  editor.send({ type: 'editing', feature: { layerId: 'layer-x', featureId: 3 } });
  const editing = await owner.waitUntil((m) => m.type === 'editing', 'the feature edited');
  assert.deepEqual(editing, {
    type: 'editing',
    feature: { layerId: 'layer-x', featureId: 3 },
    from: { kind: 'user', id: ann.id, name: 'Ann' },
  });
  editor.send({ type: 'editing', feature: null });
  await owner.waitUntil((m) => m.type === 'editing' && m.feature === null, 'the end of the editing');
  assert.equal(ofType(owner, 'editing').length, 2, 'the bad messages were not relayed');
});

test('pointers are throttled: one of each type per 50 ms per person or token is relayed at once', async () => {
  // RoomPresence on its own, with a clock of the test's: no wall-clock time is involved.
  let now = 1_000;
  const names = { one: async (actor: { id: string }) => `name of ${actor.id}` } as unknown as ActorNames;
  const presence = new RoomPresence(new InProcessPresence(), names, undefined, () => now);
  const heard: { type: string; lng: number }[] = [];
  await presence.enter('throttled1', { kind: 'user', id: 'user-listener' }, (text) => heard.push(JSON.parse(text)));
  const sender = await presence.enter('throttled1', { kind: 'user', id: 'user-sender' });
  heard.length = 0; // the sender's joining
  const point = (lng: number) => sender.received(JSON.stringify({ type: 'pointer', lng, lat: 0 }));
  point(1);
  point(2);
  now += 49;
  point(3);
  sender.received(JSON.stringify({ type: 'view', lng: 4, lat: 0, zoom: 3 }));
  now += 1;
  point(5);
  assert.deepEqual(
    heard.map((m) => [m.type, m.lng]),
    [
      ['pointer', 1],
      ['view', 4],
      ['pointer', 5],
    ],
  );
  await presence.close();
});

test('the last pointer and view within the 50 ms are relayed when they are up, never after a newer one', async () => {
  let now = 1_000;
  const names = { one: async (actor: { id: string }) => `name of ${actor.id}` } as unknown as ActorNames;
  const presence = new RoomPresence(new InProcessPresence(), names, undefined, () => now);
  const heard: { type: string; lng: number }[] = [];
  await presence.enter('trailing1', { kind: 'user', id: 'user-listener' }, (text) => heard.push(JSON.parse(text)));
  const sender = await presence.enter('trailing1', { kind: 'user', id: 'user-sender' });
  heard.length = 0;
  const send = (type: 'pointer' | 'view', lng: number) =>
    sender.received(JSON.stringify({ type, lng, lat: 0, ...(type === 'view' && { zoom: 3 }) }));
  send('pointer', 1);
  send('view', 10);
  now += 10;
  send('pointer', 2);
  send('view', 20);
  send('pointer', 3); // replaces 2, which is never relayed
  send('view', 30);
  const moved = () => heard.filter((m) => m.type === 'pointer' || m.type === 'view').map((m) => [m.type, m.lng]);
  assert.deepEqual(moved(), [
    ['pointer', 1],
    ['view', 10],
  ]);
  // The stop: what waited goes at the end of the 50 ms (a follower's map ends where the followed one stopped).
  now += 40;
  await new Promise((resolve) => setTimeout(resolve, 80));
  assert.deepEqual(moved().slice(2).sort(), [
    ['pointer', 3],
    ['view', 30],
  ]);
  // One that waits is dropped when a newer one goes first: no older position after a newer one.
  now += 10;
  send('pointer', 4); // 10 ms after 3 went: it waits
  now += 50;
  send('pointer', 5); // the 50 ms are up: it goes, and 4 never does
  await new Promise((resolve) => setTimeout(resolve, 80));
  assert.deepEqual(moved().slice(4), [['pointer', 5]]);
  await presence.close();
});

test("the throttle is the person's or token's, not the socket's: more sockets do not relay more", async () => {
  let now = 1_000;
  const names = { one: async (actor: { id: string }) => `name of ${actor.id}` } as unknown as ActorNames;
  const presence = new RoomPresence(new InProcessPresence(), names, undefined, () => now);
  const heard: { type: string; lng: number }[] = [];
  for (const room of ['throttled2', 'throttled3'])
    await presence.enter(room, { kind: 'user', id: 'user-listener' }, (text) => heard.push(JSON.parse(text)));
  const sockets = await Promise.all(
    [1, 2, 3].map(() => presence.enter('throttled2', { kind: 'token', id: 'token-many' })),
  );
  // The same token in another room has a throttle of its own.
  const elsewhere = await presence.enter('throttled3', { kind: 'token', id: 'token-many' });
  heard.length = 0;
  const point = (socket: (typeof sockets)[number], lng: number) =>
    socket.received(JSON.stringify({ type: 'pointer', lng, lat: 0 }));
  sockets.forEach((socket, i) => point(socket, i + 1));
  point(elsewhere, 9);
  now += 50;
  point(sockets[2], 4);
  point(sockets[0], 5);
  // Its sockets leave one by one; the last one's leaving forgets the throttle, a new socket starts afresh.
  for (const socket of sockets) await socket.leave();
  const again = await presence.enter('throttled2', { kind: 'token', id: 'token-many' });
  point(again, 6);
  assert.deepEqual(
    heard.filter((m) => m.type === 'pointer').map((m) => m.lng),
    [1, 9, 4, 6],
  );
  await presence.close();
});

test('presence is among members and tokens: anonymous and non-member readers of a public room are not listed nor told', async () => {
  const roomId = await freshRoom({ isPublic: true });
  const anonymous = await open(roomId);
  const stranger = await open(roomId, s.users.stranger.token);
  const owner = await open(roomId, s.users.owner.token);
  await waitForPresent(roomId, [s.users.owner.id]);
  owner.send({ type: 'pointer', lng: 1, lat: 1 });
  stranger.send({ type: 'pointer', lng: 2, lat: 2 });
  // A change after the pointers: each socket has had whatever it was going to get before it.
  assertOk(
    await call(s.t.app, 'POST', `/api/rooms/${roomId}/markers`, {
      auth: s.users.owner.token,
      body: { latitude: 1, longitude: 1 },
    }),
    201,
  );
  for (const client of [anonymous, stranger, owner]) {
    await client.waitUntil((m) => m.type === 'marker.created', 'the marker');
    await client.settled();
  }
  for (const client of [anonymous, stranger]) {
    assert.deepEqual(
      client.messages.map((m) => m.type),
      ['hello', 'marker.created'],
      'no presence news nor pointers for readers who are not members',
    );
  }
  assert.equal(ofType(owner, 'pointer').length, 0, "a non-member's pointer is not relayed");

  assertError(await call(s.t.app, 'GET', `/api/rooms/${roomId}/presence`), 401, 'unauthorized');
  assertError(
    await call(s.t.app, 'GET', `/api/rooms/${roomId}/presence`, { auth: s.users.stranger.token }),
    403,
    'forbidden',
  );
  assert.deepEqual(
    (await present(roomId, s.users.viewer.token)).map((p) => p.id),
    [s.users.owner.id],
  );
});

test('a socket that did not ask for presence news is listed, gets none, and may still point', async () => {
  const roomId = await freshRoom();
  const owner = await open(roomId, s.users.owner.token);
  await waitForPresent(roomId, [s.users.owner.id]); // the owner's socket hears who joins after it
  const quiet = await open(roomId, ann.token, false);
  await waitForPresent(roomId, [s.users.owner.id, ann.id]);
  await owner.waitUntil((m) => m.type === 'presence.joined' && m.id === ann.id, 'Ann joined');
  quiet.send({ type: 'pointer', lng: 3, lat: 4 });
  await owner.waitUntil((m) => m.type === 'pointer' && m.from.id === ann.id, "Ann's pointer");
  owner.send({ type: 'pointer', lng: 5, lat: 6 });
  owner.ws.close();
  await waitForPresent(roomId, [ann.id]);
  await quiet.settled();
  assert.deepEqual(
    quiet.messages.map((m) => m.type),
    ['hello'],
  );
});

test('a member whose access ends leaves presence', async () => {
  const roomId = await freshRoom();
  const owner = await open(roomId, s.users.owner.token);
  const annSocket = await open(roomId, ann.token);
  await waitForPresent(roomId, [s.users.owner.id, ann.id]);
  assertOk(await call(s.t.app, 'DELETE', `/api/rooms/${roomId}/members/${ann.id}`, { auth: s.users.owner.token }));
  await annSocket.closedWithin();
  await owner.waitUntil((m) => m.type === 'presence.left' && m.id === ann.id, 'Ann left when removed');
  await waitForPresent(roomId, [s.users.owner.id]);
});
