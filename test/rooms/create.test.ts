import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  assertError,
  assertOk,
  call,
  createRoom,
  issueToken,
  scaffoldSuite,
  uniqueEmail,
  uniqueRoomId,
} from '../helpers.js';
import { INFO_FIELDS, NEW_ROOM_INFO, pick, roomCalls } from '../support/rooms.js';

/**
 * Rooms: creation, and the metadata a room answers with.
 * Contract: docs/http-interface.md (Room, States, Rooms endpoints, Authentication) and
 * docs/contract-decisions.md (Errors, Rooms, Room API tokens).
 */

const s = scaffoldSuite({ rooms: [] });
const { roomWithMembers, info, metadata } = roomCalls(() => s);

// ---------------------------------------------------------------------------------------
describe('POST /api/rooms/:roomId (create)', () => {
  test('with no body creates the room and makes the caller owner', async () => {
    const roomId = uniqueRoomId();
    const body = assertOk(await call(s.t.app, 'POST', `/api/rooms/${roomId}`, { auth: s.users.owner.token }));
    assert.equal(body.success, true);
    assert.equal(body.isNewRoom, true);
    assert.equal(body.room.roomId, roomId);
    assert.equal(body.room.createdBy, s.users.owner.id);
    assert.equal(typeof body.room.createdAt, 'number');
    assert.ok(Number.isInteger(body.room.createdAt));

    const meta = await metadata(roomId, s.users.owner.token);
    assert.equal(meta.userRole, 'owner');
    assert.equal(meta.hasAccess, true);
    assert.equal(meta.createdBy, s.users.owner.id);
    assert.equal(meta.createdAt, body.room.createdAt);
    assert.equal(meta.isPublic, false);
    assert.equal(meta.counts.members, 1);

    const list = assertOk(await call(s.t.app, 'GET', '/api/rooms', { auth: s.users.owner.token }));
    const entry = list.rooms.find((r: { roomId: string }) => r.roomId === roomId);
    assert.ok(entry, "the new room is in the creator's list");
    assert.equal(entry.role, 'owner');
  });

  test('with {} creates the room with defaults', async () => {
    const roomId = uniqueRoomId();
    const body = assertOk(
      await call(s.t.app, 'POST', `/api/rooms/${roomId}`, { auth: s.users.editor.token, body: {} }),
    );
    assert.equal(body.success, true);
    assert.equal(body.isNewRoom, true);
    assert.deepEqual(Object.keys(body.room).sort(), ['createdAt', 'createdBy', 'roomId']);
    assert.equal(body.room.roomId, roomId);
    assert.equal(body.room.createdBy, s.users.editor.id);
    assert.equal(typeof body.room.createdAt, 'number');

    const i = await info(roomId, s.users.editor.token);
    assert.equal(i.requiresAuth, false);
    assert.deepEqual(pick(i, INFO_FIELDS), NEW_ROOM_INFO);
  });

  test('stores name, description, isPublic, defaultView, defaultTheme and defaultBaseLayer', async () => {
    const roomId = uniqueRoomId();
    const settings = {
      name: 'Alpine survey',
      description: 'Huts and trails',
      isPublic: true,
      defaultView: { lat: 46.5, lng: 7.25, zoom: 11 },
      defaultTheme: 'dark',
      defaultBaseLayer: 'swisstopo',
    };
    const created = assertOk(
      await call(s.t.app, 'POST', `/api/rooms/${roomId}`, { auth: s.users.owner.token, body: settings }),
    );
    assert.equal(created.isNewRoom, true);

    const i = await info(roomId, s.users.owner.token);
    assert.equal(i.roomId, roomId);
    assert.equal(i.requiresAuth, false);
    assert.deepEqual(pick(i, INFO_FIELDS), {
      isPublic: true,
      presentationIsPublic: false,
      autoZoomEnabled: true,
      defaultViewLat: 46.5,
      defaultViewLng: 7.25,
      defaultViewZoom: 11,
      defaultTheme: 'dark',
      defaultBaseLayer: 'swisstopo',
    });

    const meta = await metadata(roomId, s.users.owner.token);
    assert.equal(meta.name, 'Alpine survey');
    assert.equal(meta.description, 'Huts and trails');
    assert.equal(meta.isPublic, true);
    assert.equal(meta.defaultViewLat, 46.5);
    assert.equal(meta.defaultViewLng, 7.25);
    assert.equal(meta.defaultViewZoom, 11);
    assert.equal(meta.defaultTheme, 'dark');
    assert.equal(meta.defaultBaseLayer, 'swisstopo');
  });

  test('accepts every base layer and both themes, and null for each', async () => {
    for (const [theme, baseLayer] of [
      ['light', 'osm'],
      ['dark', 'carto'],
      ['light', 'voyager'],
      ['dark', 'satellite'],
      ['light', 'swisstopo'],
      ['dark', 'swissimage'],
      [null, null],
    ] as const) {
      const roomId = uniqueRoomId();
      const res = await call(s.t.app, 'POST', `/api/rooms/${roomId}`, {
        auth: s.users.owner.token,
        body: { defaultTheme: theme, defaultBaseLayer: baseLayer, defaultView: null },
      });
      assert.equal(assertOk(res).isNewRoom, true);
      const i = await info(roomId, s.users.owner.token);
      assert.equal(i.defaultTheme, theme);
      assert.equal(i.defaultBaseLayer, baseLayer);
      assert.equal(i.defaultViewLat, null);
    }
  });

  test('invalid values are 400 validation_error and create nothing', async () => {
    const invalid: object[] = [
      { defaultTheme: 'blue' },
      { defaultBaseLayer: 'google' },
      { defaultView: { lat: 91, lng: 0, zoom: 3 } },
      { defaultView: { lat: 0, lng: -181, zoom: 3 } },
      { defaultView: { lat: 0, lng: 0, zoom: -1 } },
      { defaultView: { lat: 0, lng: 0 } },
      { isPublic: 'yes' },
      { name: 42 },
      { owner: 'someone-else' },
    ];
    for (const body of invalid) {
      const roomId = uniqueRoomId();
      const res = await call(s.t.app, 'POST', `/api/rooms/${roomId}`, { auth: s.users.owner.token, body });
      assertError(res, 400, 'validation_error');
      assertError(await call(s.t.app, 'GET', `/api/rooms/${roomId}`, { auth: s.users.owner.token }), 404, 'not_found');
    }
  });

  test('a room id that is not exactly 10 characters of [A-Za-z0-9_-] is 400', async () => {
    for (const roomId of ['short', 'elevenchars', 'bad.char!!']) {
      assertError(
        await call(s.t.app, 'POST', `/api/rooms/${roomId}`, { auth: s.users.owner.token, body: {} }),
        400,
        'validation_error',
      );
    }
  });

  test('a second call by a member answers isNewRoom false and changes nothing', async () => {
    const roomId = await roomWithMembers({ name: 'Original', defaultTheme: 'light', defaultBaseLayer: 'osm' });
    const before = await metadata(roomId, s.users.owner.token);
    const beforeInfo = await info(roomId, s.users.owner.token);

    for (const member of [s.users.owner, s.users.editor, s.users.viewer]) {
      const res = await call(s.t.app, 'POST', `/api/rooms/${roomId}`, {
        auth: member.token,
        body: {
          name: 'Hijacked',
          description: 'changed',
          isPublic: true,
          defaultView: { lat: 1, lng: 2, zoom: 3 },
          defaultTheme: 'dark',
          defaultBaseLayer: 'satellite',
        },
      });
      const body = assertOk(res);
      assert.equal(body.success, true);
      assert.equal(body.isNewRoom, false);
      assert.deepEqual(body.room, { roomId, createdBy: s.users.owner.id, createdAt: before.createdAt });
    }

    assert.deepEqual(await info(roomId, s.users.owner.token), beforeInfo);
    const afterMeta = await metadata(roomId, s.users.owner.token);
    assert.equal(afterMeta.name, 'Original');
    assert.equal(afterMeta.description, before.description);
    assert.equal(afterMeta.isPublic, false);
    assert.equal(afterMeta.createdBy, s.users.owner.id);
    // Nobody's role changed: the editor is still an editor, the owner the owner.
    assert.equal((await metadata(roomId, s.users.editor.token)).userRole, 'editor');
    assert.equal(afterMeta.userRole, 'owner');
    assert.equal(afterMeta.counts.members, 3);
  });

  test('a second call by a non-member on a private room is 403 forbidden and grants nothing', async () => {
    const roomId = await createRoom(s.t.app, s.users.owner);
    const res = await call(s.t.app, 'POST', `/api/rooms/${roomId}`, {
      auth: s.users.stranger.token,
      body: { isPublic: true },
    });
    assertError(res, 403, 'forbidden');
    assertError(await call(s.t.app, 'GET', `/api/rooms/${roomId}`, { auth: s.users.stranger.token }), 403, 'forbidden');
    assert.equal((await info(roomId, s.users.owner.token)).isPublic, false);
  });

  test('a second call by anyone on a public room is 200 isNewRoom false and does not make them a member', async () => {
    const roomId = await createRoom(s.t.app, s.users.owner, uniqueRoomId(), { isPublic: true, name: 'Open map' });
    const body = assertOk(
      await call(s.t.app, 'POST', `/api/rooms/${roomId}`, { auth: s.users.stranger.token, body: { name: 'Mine now' } }),
    );
    assert.equal(body.success, true);
    assert.equal(body.isNewRoom, false);
    assert.equal(body.room.roomId, roomId);
    assert.equal(body.room.createdBy, s.users.owner.id);

    const meta = await metadata(roomId, s.users.stranger.token);
    assert.equal(meta.name, 'Open map');
    assert.equal(meta.userRole, undefined);
    assert.equal(meta.counts.members, 1);
  });

  test('anonymous is 401 unauthorized and creates nothing', async () => {
    const roomId = uniqueRoomId();
    assertError(await call(s.t.app, 'POST', `/api/rooms/${roomId}`, { body: {} }), 401, 'unauthorized');
    assertError(await call(s.t.app, 'GET', `/api/rooms/${roomId}`, { auth: s.users.owner.token }), 404, 'not_found');
  });

  test('a room token is 403 api_token_not_allowed, on its own room and on a new id', async () => {
    const roomId = await createRoom(s.t.app, s.users.owner);
    const { token } = await issueToken(s.t.app, s.users.owner, roomId, ['read', 'write', 'upload']);
    assertError(
      await call(s.t.app, 'POST', `/api/rooms/${roomId}`, { auth: token, body: {} }),
      403,
      'api_token_not_allowed',
    );
    const fresh = uniqueRoomId();
    assertError(
      await call(s.t.app, 'POST', `/api/rooms/${fresh}`, { auth: token, body: {} }),
      403,
      'api_token_not_allowed',
    );
    assertError(await call(s.t.app, 'GET', `/api/rooms/${fresh}`, { auth: s.users.owner.token }), 404, 'not_found');
  });
});

// ---------------------------------------------------------------------------------------
describe('GET /api/rooms/:roomId (metadata)', () => {
  test('members get counts, userRole and hasAccess', async () => {
    const roomId = await roomWithMembers({ name: 'Team map' });
    // A pending invitation is not a member.
    assertOk(
      await call(s.t.app, 'POST', `/api/rooms/${roomId}/invite`, {
        auth: s.users.owner.token,
        body: { email: uniqueEmail('nobody-yet'), role: 'viewer' },
      }),
    );

    for (const [user, role] of [
      [s.users.owner, 'owner'],
      [s.users.editor, 'editor'],
      [s.users.viewer, 'viewer'],
    ] as const) {
      const meta = await metadata(roomId, user.token);
      assert.equal(meta.roomId, roomId);
      assert.equal(meta.name, 'Team map');
      assert.equal(meta.createdBy, s.users.owner.id);
      assert.equal(meta.userRole, role);
      assert.equal(meta.hasAccess, true);
      assert.deepEqual(meta.counts, {
        markers: 0,
        layers: 0,
        rasterLayers: 0,
        drawings: 0,
        comments: 0,
        members: 3,
        slides: 0,
      });
    }
  });

  test('members count follows removals', async () => {
    const roomId = await roomWithMembers();
    assert.equal((await metadata(roomId, s.users.owner.token)).counts.members, 3);
    assertOk(
      await call(s.t.app, 'DELETE', `/api/rooms/${roomId}/members/${s.users.viewer.id}`, { auth: s.users.owner.token }),
    );
    assert.equal((await metadata(roomId, s.users.owner.token)).counts.members, 2);
    assertError(await call(s.t.app, 'GET', `/api/rooms/${roomId}`, { auth: s.users.viewer.token }), 403, 'forbidden');
  });

  test('a read token gets the metadata without userRole or hasAccess', async () => {
    const roomId = await roomWithMembers({ name: 'Token room' });
    const { token } = await issueToken(s.t.app, s.users.owner, roomId, ['read']);
    const meta = await metadata(roomId, token);
    assert.equal(meta.roomId, roomId);
    assert.equal(meta.name, 'Token room');
    assert.equal(meta.counts.members, 3);
    assert.equal(meta.counts.markers, 0);
    assert.equal('userRole' in meta, false);
    assert.equal('hasAccess' in meta, false);
  });

  test('anonymous on a public room gets the metadata without userRole', async () => {
    const roomId = await createRoom(s.t.app, s.users.owner, uniqueRoomId(), { isPublic: true, name: 'Public map' });
    const meta = await metadata(roomId);
    assert.equal(meta.roomId, roomId);
    assert.equal(meta.name, 'Public map');
    assert.equal(meta.isPublic, true);
    assert.equal(meta.counts.members, 1);
    assert.equal('userRole' in meta, false);
    assert.equal('hasAccess' in meta, false);
  });

  test('a non-member user on a public room gets the metadata without userRole', async () => {
    const roomId = await createRoom(s.t.app, s.users.owner, uniqueRoomId(), { isPublic: true });
    const meta = await metadata(roomId, s.users.stranger.token);
    assert.equal(meta.roomId, roomId);
    assert.equal('userRole' in meta, false);
    assert.equal('hasAccess' in meta, false);
  });

  test('anonymous on a private room is 401 unauthorized', async () => {
    const roomId = await createRoom(s.t.app, s.users.owner);
    assertError(await call(s.t.app, 'GET', `/api/rooms/${roomId}`), 401, 'unauthorized');
  });

  test('a non-member user on a private room is 403 forbidden', async () => {
    const roomId = await createRoom(s.t.app, s.users.owner);
    assertError(await call(s.t.app, 'GET', `/api/rooms/${roomId}`, { auth: s.users.stranger.token }), 403, 'forbidden');
  });

  test('an unknown room is 404 not_found', async () => {
    const roomId = uniqueRoomId();
    assertError(await call(s.t.app, 'GET', `/api/rooms/${roomId}`, { auth: s.users.owner.token }), 404, 'not_found');
    assertError(await call(s.t.app, 'GET', `/api/rooms/${roomId}`), 404, 'not_found');
  });
});
