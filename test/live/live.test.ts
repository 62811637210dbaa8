import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import {
  assertOk,
  call,
  issueToken,
  scaffold,
  type TestApp,
  TOKEN_ERRORS,
  type Users,
  uniqueRoomId,
} from '../helpers.js';
import { LiveClient, type LiveMessage, refusedUpgrade as refusedUpgradeOf } from '../support/live-client.js';

/**
 * The live channel (decisions: "Live channel"): a WebSocket at /api/rooms/:roomId/live that
 * first sends `{type:'hello', roomId, version}`, replays what a client missed since `?since=`,
 * then sends each change as `{type, objectType, objectId, data, version, at}`.
 */

let t: TestApp;
let wsBase: string;
let users: Users;
let room: string;
let otherRoom: string;
let publicRoom: string;
const clients: LiveClient[] = [];

function connect(roomId: string, query: Record<string, string | number> = {}): LiveClient {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
  const client = new LiveClient(`${wsBase}/api/rooms/${roomId}/live${qs ? `?${qs}` : ''}`);
  clients.push(client);
  return client;
}

/** Opens a socket that the server must refuse at the upgrade; returns the HTTP status and JSON body. */
const refusedUpgrade = (path: string) => refusedUpgradeOf(`${wsBase}${path}`);

async function createMarker(
  roomId: string,
  body: object = { latitude: 46.5, longitude: 6.6, title: 'A marker' },
  auth = users.owner.token,
) {
  return assertOk(await call(t.app, 'POST', `/api/rooms/${roomId}/markers`, { auth, body }), 201).marker;
}

async function patchMarker(roomId: string, markerId: string, body: object) {
  return assertOk(
    await call(t.app, 'PATCH', `/api/rooms/${roomId}/markers/${markerId}`, { auth: users.owner.token, body }),
  ).marker;
}

async function deleteMarker(roomId: string, markerId: string) {
  assertOk(await call(t.app, 'DELETE', `/api/rooms/${roomId}/markers/${markerId}`, { auth: users.owner.token }));
}

/** The room's history, newest first. */
async function history(roomId: string, limit = 50) {
  return assertOk(await call(t.app, 'GET', `/api/rooms/${roomId}/history?limit=${limit}`, { auth: users.owner.token }))
    .events as any[];
}

/** The room's current version, as history tells it (0 before any change). */
async function currentVersion(roomId: string): Promise<number> {
  const [newest] = await history(roomId, 1);
  return newest ? newest.version : 0;
}

function assertHello(message: LiveMessage, roomId: string, version: number) {
  assert.deepEqual(message, { type: 'hello', roomId, version });
}

/** Asserts one change event with exactly the documented keys; `actor`, when given, is who made it. */
function assertEvent(
  message: LiveMessage,
  expected: { type: string; objectType: string; objectId: string; data: unknown; version: number },
  actor?: { kind: 'user' | 'token'; id: string },
) {
  assert.deepEqual(
    Object.keys(message).sort(),
    ['actor', 'at', 'data', 'objectId', 'objectType', 'type', 'version'],
    JSON.stringify(message),
  );
  const { at, actor: made, ...rest } = message;
  assert.deepEqual(rest, expected);
  assert.ok(['user', 'token'].includes(made.kind) && typeof made.id === 'string', JSON.stringify(made));
  if (actor) assert.deepEqual(made, actor);
  assert.equal(typeof at, 'number');
  assert.ok(Number.isInteger(at) && at > 1_600_000_000_000, `at is epoch milliseconds: ${at}`);
}

before(async () => {
  ({ t, users, room, otherRoom, publicRoom, wsBase } = await scaffold({
    rooms: ['room', 'otherRoom', 'publicRoom'],
    listen: true,
  }));
});

afterEach(() => {
  for (const client of clients.splice(0)) client.terminate();
});

after(async () => {
  for (const client of clients.splice(0)) client.terminate();
  await t?.close();
});

describe('live channel: receiving changes', () => {
  test('session JWT in the query: hello with the current version, then marker.updated and marker.deleted; another room never leaks in', async () => {
    const marker = await createMarker(room);
    const elsewhere = await createMarker(otherRoom);
    const version = await currentVersion(room);
    assert.ok(version >= 1, 'creating a marker advanced the room version');

    const client = connect(room, { access_token: users.viewer.token });
    assertHello(await client.at(0), room, version);

    // A change in another room first: were it delivered, it would arrive before ours.
    await patchMarker(otherRoom, elsewhere.id, { title: 'Elsewhere' });
    const updated = await patchMarker(room, marker.id, { title: 'Renamed', tags: ['x', 'y'], description: null });
    assertEvent(
      await client.at(1),
      {
        type: 'marker.updated',
        objectType: 'marker',
        objectId: marker.id,
        data: updated,
        version: version + 1,
      },
      { kind: 'user', id: users.owner.id },
    );
    // data is the full stored marker, not only the changed fields.
    const stored = assertOk(
      await call(t.app, 'GET', `/api/rooms/${room}/markers/${marker.id}`, { auth: users.owner.token }),
    ).marker;
    assert.deepEqual(client.messages[1]!.data, stored);
    assert.equal(client.messages[1]!.data.latitude, 46.5);
    assert.deepEqual(client.messages[1]!.data.tags, ['x', 'y']);

    await deleteMarker(otherRoom, elsewhere.id);
    await deleteMarker(room, marker.id);
    assertEvent(await client.at(2), {
      type: 'marker.deleted',
      objectType: 'marker',
      objectId: marker.id,
      data: null,
      version: version + 2,
    });

    // A last change in this room: the next message is it, nothing from the other room came between.
    const sentinel = await createMarker(room);
    assertEvent(await client.at(3), {
      type: 'marker.created',
      objectType: 'marker',
      objectId: sentinel.id,
      data: sentinel,
      version: version + 3,
    });
    assert.equal(client.messages.length, 4, JSON.stringify(client.messages));
    assert.ok(client.messages.every((m) => m.objectId !== elsewhere.id));
  });

  test("a room token with read in the query receives the room's changes and nothing of another room", async () => {
    const { token } = await issueToken(t.app, users.owner, room, ['read']);
    const marker = await createMarker(room);
    const elsewhere = await createMarker(otherRoom);
    const version = await currentVersion(room);

    const client = connect(room, { access_token: token });
    assertHello(await client.at(0), room, version);
    await patchMarker(otherRoom, elsewhere.id, { color: '#00ff00' });
    const updated = await patchMarker(room, marker.id, { color: '#ff0000' });
    assertEvent(await client.at(1), {
      type: 'marker.updated',
      objectType: 'marker',
      objectId: marker.id,
      data: updated,
      version: version + 1,
    });
    await deleteMarker(otherRoom, elsewhere.id);
    await deleteMarker(room, marker.id);
    assertEvent(await client.at(2), {
      type: 'marker.deleted',
      objectType: 'marker',
      objectId: marker.id,
      data: null,
      version: version + 2,
    });
    const sentinel = await createMarker(room);
    assert.equal((await client.at(3)).objectId, sentinel.id);
    assert.equal(client.messages.length, 4, JSON.stringify(client.messages));
  });

  test('the credential as first message opens a private room (session JWT and room token)', async () => {
    const marker = await createMarker(room);
    const version = await currentVersion(room);

    const bySession = connect(room);
    await bySession.opened;
    bySession.send({ type: 'auth', token: users.editor.token });
    assertHello(await bySession.at(0), room, version);

    const { token } = await issueToken(t.app, users.owner, room, ['read']);
    const byToken = connect(room);
    await byToken.opened;
    byToken.send({ type: 'auth', token });
    assertHello(await byToken.at(0), room, version);

    const updated = await patchMarker(room, marker.id, { title: 'After auth' });
    for (const client of [bySession, byToken]) {
      assertEvent(await client.at(1), {
        type: 'marker.updated',
        objectType: 'marker',
        objectId: marker.id,
        data: updated,
        version: version + 1,
      });
    }
  });

  test('anonymous callers listen to a public room without any credential', async () => {
    const marker = await createMarker(publicRoom);
    const version = await currentVersion(publicRoom);
    const client = connect(publicRoom);
    assertHello(await client.at(0), publicRoom, version);
    const updated = await patchMarker(publicRoom, marker.id, { title: 'Public change' });
    assertEvent(await client.at(1), {
      type: 'marker.updated',
      objectType: 'marker',
      objectId: marker.id,
      data: updated,
      version: version + 1,
    });
    await deleteMarker(publicRoom, marker.id);
    assertEvent(await client.at(2), {
      type: 'marker.deleted',
      objectType: 'marker',
      objectId: marker.id,
      data: null,
      version: version + 2,
    });
  });
});

describe('live channel: refusals', () => {
  /** The socket gets one `{type:'error'}` message (no hello, no change) and is closed with `code`. */
  async function assertRefused(client: LiveClient, code: number, error: string) {
    const closed = await client.closedWithin();
    assert.equal(
      closed.code,
      code,
      `close code: ${JSON.stringify(closed)}; messages ${JSON.stringify(client.messages)}`,
    );
    assert.equal(client.messages.length, 1, JSON.stringify(client.messages));
    const [message] = client.messages;
    assert.equal(message!.type, 'error');
    assert.equal(message!.error, error);
    assert.equal(typeof message!.message, 'string');
    assert.ok(message!.message.length > 0);
  }

  test('a user who is not a member of a private room is refused with 4403 (credential as first message)', async () => {
    const client = connect(room);
    await client.opened;
    client.send({ type: 'auth', token: users.stranger.token });
    await assertRefused(client, 4403, 'forbidden');
  });

  test('a user who is not a member of a private room is refused with 4403 (credential in the query)', async () => {
    const client = connect(room, { access_token: users.stranger.token });
    await assertRefused(client, 4403, 'forbidden');
  });

  test('a room token without read is refused with 4403 (as first message)', async () => {
    const { token } = await issueToken(t.app, users.owner, room, ['write']);
    const client = connect(room);
    await client.opened;
    client.send({ type: 'auth', token });
    await assertRefused(client, 4403, 'forbidden');
    assert.equal(client.messages[0]!.message, TOKEN_ERRORS.lacksRead);
  });

  test('a room token without read is refused with 4403 (in the query)', async () => {
    const { token } = await issueToken(t.app, users.owner, room, ['write']);
    const client = connect(room, { access_token: token });
    await assertRefused(client, 4403, 'forbidden');
    assert.equal(client.messages[0]!.message, TOKEN_ERRORS.lacksRead);
  });

  test('anonymous on a private room: a first message that is not a credential gives 4401', async () => {
    for (const first of [
      'not json',
      JSON.stringify({ type: 'hello' }),
      JSON.stringify({ type: 'auth' }),
      JSON.stringify({ type: 'auth', token: 'garbage' }),
    ]) {
      const client = connect(room);
      await client.opened;
      client.send(first);
      await assertRefused(client, 4401, 'unauthorized');
    }
    // Changes made meanwhile never reached those sockets (each got only its error).
  });

  test("a stranger's refused socket never receives the room's changes", async () => {
    const marker = await createMarker(room);
    // A member's socket beside it shows when a change has been delivered to the room's listeners.
    const member = connect(room, { access_token: users.viewer.token });
    await member.at(0);
    const client = connect(room);
    await client.opened;
    const delivered = (title: string) =>
      member.waitUntil((m) => m.type === 'marker.updated' && m.data.title === title, `the change to "${title}"`);

    // Open but without a credential yet, the socket hears nothing of the room.
    await patchMarker(room, marker.id, { title: 'before the credential' });
    await delivered('before the credential');
    await client.settled();
    assert.equal(client.messages.length, 0, JSON.stringify(client.messages));

    // A change made while the refusal is under way does not reach it either.
    client.send({ type: 'auth', token: users.stranger.token });
    await patchMarker(room, marker.id, { title: 'secret' });
    await delivered('secret');
    await assertRefused(client, 4403, 'forbidden');
    assert.ok(
      client.messages.every((m) => m.type === 'error'),
      JSON.stringify(client.messages),
    );
  });

  test("the upgrade is refused over HTTP: invalid token 401, another room's token 403, unknown room 404, bad room id 400", async () => {
    const invalid = await refusedUpgrade(`/api/rooms/${room}/live?access_token=not-a-valid-token`);
    assert.equal(invalid.status, 401, JSON.stringify(invalid));
    assert.equal(invalid.body.error, 'unauthorized');

    const revokedLike = await refusedUpgrade(`/api/rooms/${room}/live?access_token=mrt_${'x'.repeat(40)}`);
    assert.equal(revokedLike.status, 401, JSON.stringify(revokedLike));
    assert.equal(revokedLike.body.message, TOKEN_ERRORS.invalid);

    const { token: otherToken } = await issueToken(t.app, users.owner, otherRoom, ['read']);
    const wrongRoom = await refusedUpgrade(`/api/rooms/${room}/live?access_token=${otherToken}`);
    assert.equal(wrongRoom.status, 403, JSON.stringify(wrongRoom));
    assert.equal(wrongRoom.body.message, TOKEN_ERRORS.wrongRoom);

    const unknown = await refusedUpgrade(`/api/rooms/${uniqueRoomId()}/live?access_token=${users.owner.token}`);
    assert.equal(unknown.status, 404, JSON.stringify(unknown));
    assert.equal(unknown.body.error, 'not_found');
    const unknownAnonymous = await refusedUpgrade(`/api/rooms/${uniqueRoomId()}/live`);
    assert.equal(unknownAnonymous.status, 404, JSON.stringify(unknownAnonymous));

    const badId = await refusedUpgrade(`/api/rooms/short/live?access_token=${users.owner.token}`);
    assert.equal(badId.status, 400, JSON.stringify(badId));
    assert.equal(badId.body.error, 'validation_error');

    const badSince = await refusedUpgrade(`/api/rooms/${room}/live?since=yesterday&access_token=${users.owner.token}`);
    assert.equal(badSince.status, 400, JSON.stringify(badSince));
    assert.equal(badSince.body.error, 'validation_error');

    // Every refusal before the upgrade is the JSON error body, never plain text.
    for (const refused of [invalid, revokedLike, wrongRoom, unknown, unknownAnonymous, badId, badSince]) {
      assert.deepEqual(
        Object.keys(refused.body)
          .sort()
          .filter((key) => key !== 'details'),
        ['error', 'message'],
        JSON.stringify(refused),
      );
    }
  });
});

describe('live channel: catching up', () => {
  test('?since=v replays exactly the missed changes in order, then live changes follow without gap or duplicate', async () => {
    const marker = await createMarker(room);
    const first = connect(room, { access_token: users.owner.token });
    const v = (await first.at(0)).version as number;
    first.ws.close();
    await first.closedWithin();

    // Three changes while disconnected.
    const patched = await patchMarker(room, marker.id, { title: 'Missed 1' });
    const created = await createMarker(room, { latitude: 1, longitude: 2, title: 'Missed 2' });
    await deleteMarker(room, marker.id);

    const again = connect(room, { access_token: users.owner.token, since: v });
    assertHello(await again.at(0), room, v + 3);
    assertEvent(await again.at(1), {
      type: 'marker.updated',
      objectType: 'marker',
      objectId: marker.id,
      data: patched,
      version: v + 1,
    });
    assertEvent(await again.at(2), {
      type: 'marker.created',
      objectType: 'marker',
      objectId: created.id,
      data: created,
      version: v + 2,
    });
    assertEvent(await again.at(3), {
      type: 'marker.deleted',
      objectType: 'marker',
      objectId: marker.id,
      data: null,
      version: v + 3,
    });

    const live = await patchMarker(room, created.id, { title: 'Live again' });
    assertEvent(await again.at(4), {
      type: 'marker.updated',
      objectType: 'marker',
      objectId: created.id,
      data: live,
      version: v + 4,
    });
    const sentinel = await createMarker(room);
    assert.equal((await again.at(5)).objectId, sentinel.id);
    assert.equal(again.messages.length, 6, JSON.stringify(again.messages));
    assert.deepEqual(
      again.messages.slice(1).map((m) => m.version),
      [v + 1, v + 2, v + 3, v + 4, v + 5],
    );
  });

  test('changes made while a client is catching up arrive exactly once, in version order', async () => {
    const v = await currentVersion(room);
    const a = await createMarker(room);
    const b = await createMarker(room);
    // Connect and change at once: the change may land before, during or after the replay.
    const client = connect(room, { access_token: users.owner.token, since: v });
    await Promise.all([patchMarker(room, a.id, { title: 'during' }), patchMarker(room, b.id, { title: 'during too' })]);
    const sentinel = await createMarker(room);
    const messages = await client.waitFor(1);
    // Wait until the sentinel (v + 5) has arrived.
    let count = 1;
    while (!messages.some((m) => m.objectId === sentinel.id)) await client.waitFor(++count);
    assert.equal(messages[0]!.type, 'hello');
    assert.ok(messages[0]!.version >= v + 2 && messages[0]!.version <= v + 5, JSON.stringify(messages[0]));
    assert.deepEqual(
      messages.slice(1).map((m) => m.version),
      [v + 1, v + 2, v + 3, v + 4, v + 5],
      JSON.stringify(messages),
    );
    assert.equal(messages.length, 6);
  });

  test('?since=<current version> replays nothing', async () => {
    const marker = await createMarker(room);
    const v = await currentVersion(room);
    const client = connect(room, { access_token: users.owner.token, since: v });
    assertHello(await client.at(0), room, v);
    const updated = await patchMarker(room, marker.id, { title: 'Only this' });
    assertEvent(await client.at(1), {
      type: 'marker.updated',
      objectType: 'marker',
      objectId: marker.id,
      data: updated,
      version: v + 1,
    });
    const sentinel = await createMarker(room);
    assert.equal((await client.at(2)).objectId, sentinel.id);
    assert.equal(client.messages.length, 3, JSON.stringify(client.messages));
  });
});

describe('live channel: fan-out and history', () => {
  test('two clients of the same room each receive every event exactly once', async () => {
    const marker = await createMarker(room);
    const v = await currentVersion(room);
    const one = connect(room, { access_token: users.viewer.token });
    const two = connect(room, { access_token: users.editor.token });
    assertHello(await one.at(0), room, v);
    assertHello(await two.at(0), room, v);

    const updated = await patchMarker(room, marker.id, { title: 'Seen twice' });
    await deleteMarker(room, marker.id);
    const sentinel = await createMarker(room);
    for (const client of [one, two]) {
      await client.at(3);
      assertEvent(client.messages[1]!, {
        type: 'marker.updated',
        objectType: 'marker',
        objectId: marker.id,
        data: updated,
        version: v + 1,
      });
      assertEvent(client.messages[2]!, {
        type: 'marker.deleted',
        objectType: 'marker',
        objectId: marker.id,
        data: null,
        version: v + 2,
      });
      assertEvent(client.messages[3]!, {
        type: 'marker.created',
        objectType: 'marker',
        objectId: sentinel.id,
        data: sentinel,
        version: v + 3,
      });
    }
    // One more change reaches both once more; nothing was duplicated before it.
    await patchMarker(room, sentinel.id, { title: 'Last' });
    for (const client of [one, two]) {
      assert.equal((await client.at(4)).version, v + 4);
      assert.equal(client.messages.length, 5, JSON.stringify(client.messages));
    }
  });

  test('history and live agree: the same versions, types and objects', async () => {
    const client = connect(room, { access_token: users.owner.token });
    const v = (await client.at(0)).version as number;
    const m1 = await createMarker(room, { latitude: 10, longitude: 20, title: 'H1' });
    const m2 = await createMarker(room, { latitude: 11, longitude: 21, title: 'H2' });
    await patchMarker(room, m1.id, { title: 'H1 renamed' });
    await patchMarker(room, m2.id, { tags: ['t'] });
    await deleteMarker(room, m1.id);
    const live = (await client.waitFor(6)).slice(1);
    assert.equal(live.length, 5);

    const events = (await history(room, 5)).reverse();
    assert.deepEqual(
      events.map((e) => ({
        version: e.version,
        type: e.type,
        objectType: e.objectType,
        objectId: e.objectId,
        at: e.at,
      })),
      live.map((e) => ({ version: e.version, type: e.type, objectType: e.objectType, objectId: e.objectId, at: e.at })),
    );
    assert.deepEqual(
      live.map((e) => e.version),
      [v + 1, v + 2, v + 3, v + 4, v + 5],
    );
    assert.deepEqual(
      live.map((e) => e.type),
      ['marker.created', 'marker.created', 'marker.updated', 'marker.updated', 'marker.deleted'],
    );
    for (const event of events)
      assert.deepEqual(event.actor, { kind: 'user', id: users.owner.id, name: users.owner.email });
    // Nothing newer than the live stream in history.
    assert.equal(await currentVersion(room), v + 5);
  });
});

describe('live channel: as plain HTTP and in the API reference', () => {
  test('a plain HTTP request is 426 upgrade_required with the documented error body; a bad room id is 400', async () => {
    const res = await call(t.app, 'GET', `/api/rooms/${room}/live`, { auth: users.owner.token });
    assert.equal(res.statusCode, 426, res.body);
    assert.equal(res.headers.upgrade, 'websocket');
    assert.deepEqual(Object.keys(res.json()).sort(), ['error', 'message']);
    assert.equal(res.json().error, 'upgrade_required');
    assert.equal((await call(t.app, 'GET', '/api/rooms/short/live')).json().error, 'validation_error');
  });

  test('the OpenAPI document describes the channel: credential, messages and close codes', async () => {
    const doc = assertOk(await call(t.app, 'GET', '/api/openapi.json'));
    const live = doc.paths['/api/rooms/{roomId}/live']?.get;
    assert.ok(live, 'the live route is documented');
    for (const words of [
      'access_token',
      '"type":"auth"',
      'hello',
      'resync',
      '4401',
      '4403',
      '4404',
      'Before the upgrade',
      '426',
    ])
      assert.ok(live.description.includes(words), words);
    const query = live.parameters
      .filter((p: { in: string }) => p.in === 'query')
      .map((p: { name: string }) => p.name)
      .sort();
    assert.deepEqual(query, ['access_token', 'presence', 'since']);
    // The refusals before the upgrade are documented with the error body.
    for (const status of ['400', '401', '403', '404', '426']) {
      assert.ok(live.responses[status]?.content?.['application/json'], `${status} documented with the JSON error body`);
    }
  });
});
