/**
 * Markers over HTTP: the history of their changes, the live event of each, and the 502 of a
 * change that cannot be broadcast.
 * Contract: docs/http-interface.md (Marker, Markers, Events, Errors) and docs/contract-decisions.md.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  assertError,
  assertOk,
  assertValidation,
  call,
  createRoom,
  type HistoryEvent,
  issueToken,
  type Response,
  scaffold,
  type TestApp,
  type TestUser,
  TOKEN_ERRORS,
  type Users,
} from '../helpers.js';
import { markerCalls, markerUrl, SwitchableLiveHub } from '../support/markers.js';

let t: TestApp;
let users: Users;
let hub: SwitchableLiveHub;
let room: string;
const { createMarker, patchMarker, deleteMarker, history } = markerCalls(() => ({ t, users }));

before(async () => {
  hub = new SwitchableLiveHub();
  ({ t, users, room } = await scaffold({ build: { liveHub: hub } }));
});
after(() => t?.close());

describe('GET /api/rooms/:roomId/history', () => {
  const KEYS = new Set(['id', 'version', 'type', 'objectType', 'objectId', 'actor', 'objectName', 'at', 'changes']);

  test('create, each PATCH and each DELETE write exactly one entry, newest first, with actor and changes', async () => {
    const start = await history(room);
    const token = await issueToken(t.app, users.owner, room, ['read', 'write']);
    const marker = await createMarker(room, users.editor.token, { title: 'History' });
    let events = await history(room);
    assert.equal(events.length, start.length + 1);
    assert.equal(events[0]!.type, 'marker.created');
    assert.equal(events[0]!.objectType, 'marker');
    assert.equal(events[0]!.objectId, marker.id);
    assert.deepEqual(events[0]!.actor, { kind: 'user', id: users.editor.id, name: users.editor.email });
    assert.equal(events[0]!.objectName, 'History');

    const sessionChange = { title: 'By session', tags: ['a', 'b'], description: null };
    assertOk(await patchMarker(room, marker.id, sessionChange, users.editor.token));
    events = await history(room);
    assert.equal(events.length, start.length + 2);
    const updated = events[0]!;
    assert.equal(updated.type, 'marker.updated');
    assert.equal(updated.objectType, 'marker');
    assert.equal(updated.objectId, marker.id);
    assert.deepEqual(updated.actor, { kind: 'user', id: users.editor.id, name: users.editor.email });
    assert.equal(updated.objectName, 'By session');
    assert.deepEqual(updated.changes, sessionChange);
    assert.equal(typeof updated.id, 'string');
    assert.ok(Number.isInteger(updated.at));
    assert.ok(updated.version > events[1]!.version);
    for (const key of Object.keys(updated)) assert.ok(KEYS.has(key), key);

    const tokenChange = { latitude: -5 };
    assertOk(await patchMarker(room, marker.id, tokenChange, token.token));
    events = await history(room);
    assert.equal(events.length, start.length + 3);
    assert.deepEqual(events[0]!.actor, { kind: 'token', id: token.id, name: 'token read+write' });
    assert.deepEqual(events[0]!.changes, tokenChange);
    assert.equal(events[0]!.type, 'marker.updated');

    assertOk(await deleteMarker(room, marker.id, token.token));
    events = await history(room);
    assert.equal(events.length, start.length + 4);
    assert.equal(events[0]!.type, 'marker.deleted');
    assert.equal(events[0]!.objectType, 'marker');
    assert.equal(events[0]!.objectId, marker.id);
    assert.deepEqual(events[0]!.actor, { kind: 'token', id: token.id, name: 'token read+write' });
    assert.equal(events[0]!.objectName, 'By session', 'a deletion is named as the object was');

    assert.deepEqual(
      events.slice(0, 4).map((e) => e.type),
      ['marker.deleted', 'marker.updated', 'marker.updated', 'marker.created'],
    );
    for (let i = 1; i < events.length; i++) assert.ok(events[i - 1]!.version > events[i]!.version);
    assert.equal(new Set(events.map((e) => e.id)).size, events.length);
  });

  test('a PATCH and a DELETE each send exactly one live event', async () => {
    const marker = await createMarker(room, users.owner.token);
    const mark = hub.published.length;
    assertOk(await patchMarker(room, marker.id, { title: 'live' }, users.owner.token));
    let sent = hub.published.slice(mark);
    assert.equal(sent.length, 1);
    assert.equal(sent[0]!.type, 'marker.updated');
    assert.equal(sent[0]!.objectId, marker.id);
    assert.equal(sent[0]!.roomId, room);
    assert.equal(sent[0]!.version, (await history(room))[0]!.version);
    assertOk(await deleteMarker(room, marker.id, users.owner.token));
    sent = hub.published.slice(mark + 1);
    assert.equal(sent.length, 1);
    assert.equal(sent[0]!.type, 'marker.deleted');
    assert.equal(sent[0]!.objectId, marker.id);
  });

  test('a refused PATCH or DELETE (400, 404, 403) writes no history', async () => {
    const marker = await createMarker(room, users.owner.token, { title: 'stable' });
    const before = await history(room);
    const refused: Response[] = [
      await patchMarker(room, marker.id, {}, users.owner.token),
      await patchMarker(room, marker.id, { foo: 1 }, users.owner.token),
      await patchMarker(room, marker.id, { title: null }, users.owner.token),
      await patchMarker(room, marker.id, { color: 'red' }, users.owner.token),
      await patchMarker(room, marker.id, { markerIconId: 'icon-api-nope0000000000' }, users.owner.token),
      await patchMarker(room, 'marker-missing', { title: 'x' }, users.owner.token),
      await deleteMarker(room, 'marker-missing', users.owner.token),
      await patchMarker(room, marker.id, { title: 'x' }, users.viewer.token),
      await deleteMarker(room, marker.id, users.viewer.token),
    ];
    assert.deepEqual(
      refused.map((r) => r.statusCode),
      [400, 400, 400, 400, 400, 404, 404, 403, 403],
    );
    assert.deepEqual(await history(room), before);
  });

  test('pages back with before=<version> and limit; limit 0 or 501 is 400', async () => {
    const pagingRoom = await createRoom(t.app, users.owner);
    const marker = await createMarker(pagingRoom, users.owner.token);
    for (let i = 0; i < 6; i++)
      assertOk(await patchMarker(pagingRoom, marker.id, { title: `v${i}` }, users.owner.token));
    const all = await history(pagingRoom);
    assert.equal(all.length, 7);
    assert.deepEqual(
      all.map((e) => e.changes?.title ?? null),
      ['v5', 'v4', 'v3', 'v2', 'v1', 'v0', null],
    );

    const pages: HistoryEvent[][] = [];
    let query = 'limit=3';
    for (;;) {
      const page = await history(pagingRoom, query);
      pages.push(page);
      if (page.length === 0) break;
      query = `limit=3&before=${Math.min(...page.map((e) => e.version))}`;
    }
    assert.deepEqual(
      pages.map((p) => p.length),
      [3, 3, 1, 0],
    );
    assert.deepEqual(pages.flat(), all);
    // before is exclusive: the entry with that version is not in the page.
    const middle = all[3]!;
    const older = await history(pagingRoom, `before=${middle.version}`);
    assert.deepEqual(older, all.slice(4));
    // Without limit, up to the default page size (more than these 7).
    assert.deepEqual(await history(pagingRoom, ''), all);
    assert.deepEqual(await history(pagingRoom, 'limit=1'), [all[0]]);

    for (const limit of ['0', '501', '-1', 'abc']) {
      assertValidation(
        await call(t.app, 'GET', `/api/rooms/${pagingRoom}/history?limit=${limit}`, { auth: users.owner.token }),
        'limit',
      );
    }
    assertOk(await call(t.app, 'GET', `/api/rooms/${pagingRoom}/history?limit=500`, { auth: users.owner.token }));
  });

  test('history needs read: read token, member or anonymous on a public room; 401/403 otherwise', async () => {
    const read = await issueToken(t.app, users.owner, room, ['read']);
    const writeOnly = await issueToken(t.app, users.owner, room, ['write']);
    const otherRoom = await createRoom(t.app, users.owner);
    const foreign = await issueToken(t.app, users.owner, otherRoom, ['read', 'write']);
    const url = `/api/rooms/${room}/history`;
    const expected = await history(room);
    assert.ok(expected.length > 0);
    for (const auth of [users.viewer.token, users.editor.token]) {
      assert.deepEqual(assertOk(await call(t.app, 'GET', `${url}?limit=500`, { auth })).events, expected);
    }
    // A token reads the same history, but people are named by e-mail only to member sessions.
    const emails = new Set([users.owner.email, users.editor.email, users.viewer.email]);
    assert.ok(expected.some((event: { actor: { name?: string } }) => emails.has(event.actor.name ?? '')));
    const byToken = expected.map((event: { actor: { kind: string; id: string; name?: string } }) => {
      const { name, ...actor } = event.actor;
      return { ...event, actor: name === undefined || emails.has(name) ? actor : { ...actor, name } };
    });
    assert.deepEqual(assertOk(await call(t.app, 'GET', `${url}?limit=500`, { auth: read.token })).events, byToken);
    assertError(await call(t.app, 'GET', url), 401, 'unauthorized');
    assertError(await call(t.app, 'GET', url, { auth: users.stranger.token }), 403, 'forbidden');
    assertError(await call(t.app, 'GET', url, { auth: writeOnly.token }), 403, 'forbidden', TOKEN_ERRORS.lacksRead);
    assertError(await call(t.app, 'GET', url, { auth: foreign.token }), 403, 'forbidden', TOKEN_ERRORS.wrongRoom);

    const publicRoom = await createRoom(t.app, users.owner, undefined, { isPublic: true });
    const m = await createMarker(publicRoom, users.owner.token);
    const anonymous = assertOk(await call(t.app, 'GET', `/api/rooms/${publicRoom}/history`));
    assert.equal(anonymous.events[0].objectId, m.id);
    assert.equal(anonymous.events[0].type, 'marker.created');
  });
});

describe('a change that cannot be broadcast', () => {
  let failApp: TestApp;
  let failHub: SwitchableLiveHub;
  let owner: TestUser;
  let room: string;
  before(async () => {
    failHub = new SwitchableLiveHub();
    ({
      t: failApp,
      users: { owner },
    } = await scaffold({ build: { liveHub: failHub }, users: ['owner'], rooms: [] }));
    room = await createRoom(failApp.app, owner);
  });
  after(() => failApp.close());

  const events = async () =>
    assertOk(await call(failApp.app, 'GET', `/api/rooms/${room}/history?limit=500`, { auth: owner.token }))
      .events as HistoryEvent[];
  const read = (markerId: string) => call(failApp.app, 'GET', markerUrl(room, markerId), { auth: owner.token });

  test('PATCH answers 502 broadcast_failed, but the change is saved and in history', async () => {
    const res = await call(failApp.app, 'POST', `/api/rooms/${room}/markers`, {
      auth: owner.token,
      body: { latitude: 1, longitude: 2, title: 'before' },
    });
    const marker = assertOk(res, 201).marker;
    const before = await events();
    failHub.failing = true;
    try {
      const change = { title: 'after', color: '#abcdef' };
      const patched = await call(failApp.app, 'PATCH', markerUrl(room, marker.id), { auth: owner.token, body: change });
      assertError(patched, 502, 'broadcast_failed');
      assert.ok(!patched.body.includes('live hub unreachable'));
      const now = assertOk(await read(marker.id)).marker;
      assert.equal(now.title, 'after');
      assert.equal(now.color, '#abcdef');
      const after = await events();
      assert.equal(after.length, before.length + 1);
      assert.equal(after[0]!.type, 'marker.updated');
      assert.equal(after[0]!.objectId, marker.id);
      assert.deepEqual(after[0]!.changes, change);
      assert.deepEqual(after[0]!.actor, { kind: 'user', id: owner.id, name: owner.email });
    } finally {
      failHub.failing = false;
    }
  });

  test('DELETE answers 502 broadcast_failed, but the marker is gone and marker.deleted is in history', async () => {
    const res = await call(failApp.app, 'POST', `/api/rooms/${room}/markers`, {
      auth: owner.token,
      body: { latitude: 1, longitude: 2 },
    });
    const marker = assertOk(res, 201).marker;
    const before = await events();
    failHub.failing = true;
    try {
      assertError(
        await call(failApp.app, 'DELETE', markerUrl(room, marker.id), { auth: owner.token }),
        502,
        'broadcast_failed',
      );
      assertError(await read(marker.id), 404, 'not_found');
      const after = await events();
      assert.equal(after.length, before.length + 1);
      assert.equal(after[0]!.type, 'marker.deleted');
      assert.equal(after[0]!.objectId, marker.id);
      // Gone for good: a second DELETE is 404 (and writes nothing, so nothing to broadcast).
      assertError(
        await call(failApp.app, 'DELETE', markerUrl(room, marker.id), { auth: owner.token }),
        404,
        'not_found',
      );
      assert.equal((await events()).length, after.length);
    } finally {
      failHub.failing = false;
    }
  });
});
