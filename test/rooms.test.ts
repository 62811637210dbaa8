import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  assertError,
  assertOk,
  buildTestApp,
  createRoomWithMembers,
  signupAll,
  call,
  createRoom,
  issueToken,
  type TestApp,
  type TestUser,
  uniqueEmail,
  uniqueRoomId,
} from './helpers.js';

/**
 * Rooms: creation, metadata, info, visibility, camera and timeline settings, permission
 * checks, clear and delete, and the room-token authentication rules on these routes.
 * Contract: http-interface.md (Room, States, Rooms endpoints, Authentication) and
 * decisions.md (Errors, Rooms, Room API tokens).
 */

let t: TestApp;
let owner: TestUser;
let editor: TestUser;
let viewer: TestUser;
let stranger: TestUser;

before(async () => {
  t = await buildTestApp();
  ({ owner, editor, viewer, stranger } = await signupAll(t.app, 'owner', 'editor', 'viewer', 'stranger'));
});
after(() => t.close());

const TOKEN_NOT_ALLOWED = 'api_token_not_allowed';
const INVALID_TOKEN = 'Invalid or expired API token';
const NOT_SCOPED = 'API token is not scoped to this room';

/** The settings fields the interface lists for `GET /info`. */
const INFO_FIELDS = [
  'isPublic',
  'presentationIsPublic',
  'autoZoomEnabled',
  'defaultViewLat',
  'defaultViewLng',
  'defaultViewZoom',
  'defaultTheme',
  'defaultBaseLayer',
] as const;

/** The display settings of a new room, and of one whose defaults were all cleared. */
const NEW_ROOM_INFO = {
  isPublic: false,
  presentationIsPublic: false,
  autoZoomEnabled: true,
  defaultViewLat: null,
  defaultViewLng: null,
  defaultViewZoom: null,
  defaultTheme: null,
  defaultBaseLayer: null,
};

const ACTIONS = ['view', 'edit', 'delete', 'invite', 'manage_members', 'delete_room'] as const;
type Action = (typeof ACTIONS)[number];

const ZERO_CONTENT = { markers: 0, layers: 0, rasterLayers: 0, drawings: 0, comments: 0, slides: 0 };

function pick(body: Record<string, unknown>, keys: readonly string[]) {
  return Object.fromEntries(keys.map((k) => [k, body[k]]));
}

const roomWithMembers = (body: object = {}) => createRoomWithMembers(t.app, { owner, editor, viewer }, body);

const info = async (roomId: string, auth?: string) => assertOk(await call(t.app, 'GET', `/api/rooms/${roomId}/info`, { auth }));
const metadata = async (roomId: string, auth?: string) => assertOk(await call(t.app, 'GET', `/api/rooms/${roomId}`, { auth }));

async function permissions(roomId: string, auth: string) {
  const result: Record<string, { hasPermission: boolean; role: string }> = {};
  for (const action of ACTIONS) {
    result[action] = assertOk(await call(t.app, 'GET', `/api/rooms/${roomId}/permissions?action=${action}`, { auth }));
  }
  return result;
}

function matrix(role: string, allowed: Action[]) {
  return Object.fromEntries(ACTIONS.map((a) => [a, { hasPermission: allowed.includes(a), role }]));
}

// ---------------------------------------------------------------------------------------
describe('POST /api/rooms/:roomId (create)', () => {
  test('with no body creates the room and makes the caller owner', async () => {
    const roomId = uniqueRoomId();
    const body = assertOk(await call(t.app, 'POST', `/api/rooms/${roomId}`, { auth: owner.token }));
    assert.equal(body.success, true);
    assert.equal(body.isNewRoom, true);
    assert.equal(body.room.roomId, roomId);
    assert.equal(body.room.createdBy, owner.id);
    assert.equal(typeof body.room.createdAt, 'number');
    assert.ok(Number.isInteger(body.room.createdAt));

    const meta = await metadata(roomId, owner.token);
    assert.equal(meta.userRole, 'owner');
    assert.equal(meta.hasAccess, true);
    assert.equal(meta.createdBy, owner.id);
    assert.equal(meta.createdAt, body.room.createdAt);
    assert.equal(meta.isPublic, false);
    assert.equal(meta.counts.members, 1);

    const list = assertOk(await call(t.app, 'GET', '/api/rooms', { auth: owner.token }));
    const entry = list.rooms.find((r: { roomId: string }) => r.roomId === roomId);
    assert.ok(entry, 'the new room is in the creator\'s list');
    assert.equal(entry.role, 'owner');
  });

  test('with {} creates the room with defaults', async () => {
    const roomId = uniqueRoomId();
    const body = assertOk(await call(t.app, 'POST', `/api/rooms/${roomId}`, { auth: editor.token, body: {} }));
    assert.equal(body.success, true);
    assert.equal(body.isNewRoom, true);
    assert.deepEqual(Object.keys(body.room).sort(), ['createdAt', 'createdBy', 'roomId']);
    assert.equal(body.room.roomId, roomId);
    assert.equal(body.room.createdBy, editor.id);
    assert.equal(typeof body.room.createdAt, 'number');

    const i = await info(roomId, editor.token);
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
    const created = assertOk(await call(t.app, 'POST', `/api/rooms/${roomId}`, { auth: owner.token, body: settings }));
    assert.equal(created.isNewRoom, true);

    const i = await info(roomId, owner.token);
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

    const meta = await metadata(roomId, owner.token);
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
      const res = await call(t.app, 'POST', `/api/rooms/${roomId}`, {
        auth: owner.token,
        body: { defaultTheme: theme, defaultBaseLayer: baseLayer, defaultView: null },
      });
      assert.equal(assertOk(res).isNewRoom, true);
      const i = await info(roomId, owner.token);
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
      const res = await call(t.app, 'POST', `/api/rooms/${roomId}`, { auth: owner.token, body });
      assertError(res, 400, 'validation_error');
      assertError(await call(t.app, 'GET', `/api/rooms/${roomId}`, { auth: owner.token }), 404, 'not_found');
    }
  });

  test('a room id that is not exactly 10 characters of [A-Za-z0-9_-] is 400', async () => {
    for (const roomId of ['short', 'elevenchars', 'bad.char!!']) {
      assertError(await call(t.app, 'POST', `/api/rooms/${roomId}`, { auth: owner.token, body: {} }), 400, 'validation_error');
    }
  });

  test('a second call by a member answers isNewRoom false and changes nothing', async () => {
    const roomId = await roomWithMembers({ name: 'Original', defaultTheme: 'light', defaultBaseLayer: 'osm' });
    const before = await metadata(roomId, owner.token);
    const beforeInfo = await info(roomId, owner.token);

    for (const member of [owner, editor, viewer]) {
      const res = await call(t.app, 'POST', `/api/rooms/${roomId}`, {
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
      assert.deepEqual(body.room, { roomId, createdBy: owner.id, createdAt: before.createdAt });
    }

    assert.deepEqual(await info(roomId, owner.token), beforeInfo);
    const afterMeta = await metadata(roomId, owner.token);
    assert.equal(afterMeta.name, 'Original');
    assert.equal(afterMeta.description, before.description);
    assert.equal(afterMeta.isPublic, false);
    assert.equal(afterMeta.createdBy, owner.id);
    // Nobody's role changed: the editor is still an editor, the owner the owner.
    assert.equal((await metadata(roomId, editor.token)).userRole, 'editor');
    assert.equal(afterMeta.userRole, 'owner');
    assert.equal(afterMeta.counts.members, 3);
  });

  test('a second call by a non-member on a private room is 403 forbidden and grants nothing', async () => {
    const roomId = await createRoom(t.app, owner);
    const res = await call(t.app, 'POST', `/api/rooms/${roomId}`, { auth: stranger.token, body: { isPublic: true } });
    assertError(res, 403, 'forbidden');
    assertError(await call(t.app, 'GET', `/api/rooms/${roomId}`, { auth: stranger.token }), 403, 'forbidden');
    assert.equal((await info(roomId, owner.token)).isPublic, false);
  });

  test('a second call by anyone on a public room is 200 isNewRoom false and does not make them a member', async () => {
    const roomId = await createRoom(t.app, owner, uniqueRoomId(), { isPublic: true, name: 'Open map' });
    const body = assertOk(await call(t.app, 'POST', `/api/rooms/${roomId}`, { auth: stranger.token, body: { name: 'Mine now' } }));
    assert.equal(body.success, true);
    assert.equal(body.isNewRoom, false);
    assert.equal(body.room.roomId, roomId);
    assert.equal(body.room.createdBy, owner.id);

    const meta = await metadata(roomId, stranger.token);
    assert.equal(meta.name, 'Open map');
    assert.equal(meta.userRole, undefined);
    assert.equal(meta.counts.members, 1);
  });

  test('anonymous is 401 unauthorized and creates nothing', async () => {
    const roomId = uniqueRoomId();
    assertError(await call(t.app, 'POST', `/api/rooms/${roomId}`, { body: {} }), 401, 'unauthorized');
    assertError(await call(t.app, 'GET', `/api/rooms/${roomId}`, { auth: owner.token }), 404, 'not_found');
  });

  test('a room token is 403 api_token_not_allowed, on its own room and on a new id', async () => {
    const roomId = await createRoom(t.app, owner);
    const { token } = await issueToken(t.app, owner, roomId, ['read', 'write', 'upload']);
    assertError(await call(t.app, 'POST', `/api/rooms/${roomId}`, { auth: token, body: {} }), 403, TOKEN_NOT_ALLOWED);
    const fresh = uniqueRoomId();
    assertError(await call(t.app, 'POST', `/api/rooms/${fresh}`, { auth: token, body: {} }), 403, TOKEN_NOT_ALLOWED);
    assertError(await call(t.app, 'GET', `/api/rooms/${fresh}`, { auth: owner.token }), 404, 'not_found');
  });
});

// ---------------------------------------------------------------------------------------
describe('GET /api/rooms/:roomId (metadata)', () => {
  test('members get counts, userRole and hasAccess', async () => {
    const roomId = await roomWithMembers({ name: 'Team map' });
    // A pending invitation is not a member.
    assertOk(await call(t.app, 'POST', `/api/rooms/${roomId}/invite`, {
      auth: owner.token,
      body: { email: uniqueEmail('nobody-yet'), role: 'viewer' },
    }));

    for (const [user, role] of [[owner, 'owner'], [editor, 'editor'], [viewer, 'viewer']] as const) {
      const meta = await metadata(roomId, user.token);
      assert.equal(meta.roomId, roomId);
      assert.equal(meta.name, 'Team map');
      assert.equal(meta.createdBy, owner.id);
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
    assert.equal((await metadata(roomId, owner.token)).counts.members, 3);
    assertOk(await call(t.app, 'DELETE', `/api/rooms/${roomId}/members/${viewer.id}`, { auth: owner.token }));
    assert.equal((await metadata(roomId, owner.token)).counts.members, 2);
    assertError(await call(t.app, 'GET', `/api/rooms/${roomId}`, { auth: viewer.token }), 403, 'forbidden');
  });

  test('a read token gets the metadata without userRole or hasAccess', async () => {
    const roomId = await roomWithMembers({ name: 'Token room' });
    const { token } = await issueToken(t.app, owner, roomId, ['read']);
    const meta = await metadata(roomId, token);
    assert.equal(meta.roomId, roomId);
    assert.equal(meta.name, 'Token room');
    assert.equal(meta.counts.members, 3);
    assert.equal(meta.counts.markers, 0);
    assert.equal('userRole' in meta, false);
    assert.equal('hasAccess' in meta, false);
  });

  test('anonymous on a public room gets the metadata without userRole', async () => {
    const roomId = await createRoom(t.app, owner, uniqueRoomId(), { isPublic: true, name: 'Public map' });
    const meta = await metadata(roomId);
    assert.equal(meta.roomId, roomId);
    assert.equal(meta.name, 'Public map');
    assert.equal(meta.isPublic, true);
    assert.equal(meta.counts.members, 1);
    assert.equal('userRole' in meta, false);
    assert.equal('hasAccess' in meta, false);
  });

  test('a non-member user on a public room gets the metadata without userRole', async () => {
    const roomId = await createRoom(t.app, owner, uniqueRoomId(), { isPublic: true });
    const meta = await metadata(roomId, stranger.token);
    assert.equal(meta.roomId, roomId);
    assert.equal('userRole' in meta, false);
    assert.equal('hasAccess' in meta, false);
  });

  test('anonymous on a private room is 401 unauthorized', async () => {
    const roomId = await createRoom(t.app, owner);
    assertError(await call(t.app, 'GET', `/api/rooms/${roomId}`), 401, 'unauthorized');
  });

  test('a non-member user on a private room is 403 forbidden', async () => {
    const roomId = await createRoom(t.app, owner);
    assertError(await call(t.app, 'GET', `/api/rooms/${roomId}`, { auth: stranger.token }), 403, 'forbidden');
  });

  test('an unknown room is 404 not_found', async () => {
    const roomId = uniqueRoomId();
    assertError(await call(t.app, 'GET', `/api/rooms/${roomId}`, { auth: owner.token }), 404, 'not_found');
    assertError(await call(t.app, 'GET', `/api/rooms/${roomId}`), 404, 'not_found');
  });
});

// ---------------------------------------------------------------------------------------
describe('GET /api/rooms/:roomId/info', () => {
  const settings = {
    name: 'Info room',
    defaultView: { lat: -33.9, lng: 151.2, zoom: 9.5 },
    defaultTheme: 'light',
    defaultBaseLayer: 'voyager',
  };
  const expected = (isPublic: boolean) => ({
    isPublic,
    presentationIsPublic: false,
    autoZoomEnabled: true,
    defaultViewLat: -33.9,
    defaultViewLng: 151.2,
    defaultViewZoom: 9.5,
    defaultTheme: 'light',
    defaultBaseLayer: 'voyager',
  });

  test('members of a private room get the settings with requiresAuth false', async () => {
    const roomId = await roomWithMembers(settings);
    for (const user of [owner, editor, viewer]) {
      const i = await info(roomId, user.token);
      assert.equal(i.roomId, roomId);
      assert.equal(i.requiresAuth, false);
      assert.deepEqual(pick(i, INFO_FIELDS), expected(false));
    }
  });

  test('anyone gets the settings of a public room with requiresAuth false', async () => {
    const roomId = await createRoom(t.app, owner, uniqueRoomId(), { ...settings, isPublic: true });
    for (const auth of [undefined, stranger.token]) {
      const i = await info(roomId, auth);
      assert.equal(i.roomId, roomId);
      assert.equal(i.requiresAuth, false);
      assert.deepEqual(pick(i, INFO_FIELDS), expected(true));
    }
  });

  test('a private room answers anonymous and non-members only {roomId, requiresAuth: true}', async () => {
    const roomId = await createRoom(t.app, owner, uniqueRoomId(), settings);
    for (const auth of [undefined, stranger.token]) {
      const i = await info(roomId, auth);
      assert.deepEqual(i, { roomId, requiresAuth: true });
    }
  });

  test('a read token of the room gets the settings', async () => {
    const roomId = await createRoom(t.app, owner, uniqueRoomId(), settings);
    const { token } = await issueToken(t.app, owner, roomId, ['read']);
    const i = await info(roomId, token);
    assert.equal(i.requiresAuth, false);
    assert.deepEqual(pick(i, INFO_FIELDS), expected(false));
  });

  test('an unknown room is 404 not_found', async () => {
    const roomId = uniqueRoomId();
    assertError(await call(t.app, 'GET', `/api/rooms/${roomId}/info`), 404, 'not_found');
    assertError(await call(t.app, 'GET', `/api/rooms/${roomId}/info`, { auth: owner.token }), 404, 'not_found');
  });
});

// ---------------------------------------------------------------------------------------
describe('PATCH /api/rooms/:roomId/public', () => {
  test('the owner makes the room public (readable anonymously) and private again (not readable)', async () => {
    const roomId = await roomWithMembers({ name: 'Toggle' });
    assertError(await call(t.app, 'GET', `/api/rooms/${roomId}`), 401, 'unauthorized');

    const on = assertOk(await call(t.app, 'PATCH', `/api/rooms/${roomId}/public`, { auth: owner.token, body: { isPublic: true } }));
    assert.deepEqual(on, { success: true, isPublic: true });
    const meta = await metadata(roomId);
    assert.equal(meta.name, 'Toggle');
    assert.equal(meta.isPublic, true);
    const i = await info(roomId);
    assert.equal(i.requiresAuth, false);
    assert.equal(i.isPublic, true);
    assert.equal((await metadata(roomId, stranger.token)).roomId, roomId);

    const off = assertOk(await call(t.app, 'PATCH', `/api/rooms/${roomId}/public`, { auth: owner.token, body: { isPublic: false } }));
    assert.deepEqual(off, { success: true, isPublic: false });
    assertError(await call(t.app, 'GET', `/api/rooms/${roomId}`), 401, 'unauthorized');
    assertError(await call(t.app, 'GET', `/api/rooms/${roomId}`, { auth: stranger.token }), 403, 'forbidden');
    assert.deepEqual(await info(roomId), { roomId, requiresAuth: true });
    assert.equal((await info(roomId, owner.token)).isPublic, false);
  });

  test('editor and viewer are 403 forbidden and nothing changes', async () => {
    const roomId = await roomWithMembers();
    for (const user of [editor, viewer]) {
      assertError(
        await call(t.app, 'PATCH', `/api/rooms/${roomId}/public`, { auth: user.token, body: { isPublic: true } }),
        403,
        'forbidden',
      );
    }
    assertError(
      await call(t.app, 'PATCH', `/api/rooms/${roomId}/public`, { auth: stranger.token, body: { isPublic: true } }),
      403,
      'forbidden',
    );
    assert.equal((await info(roomId, owner.token)).isPublic, false);
  });

  test('tokens of any permission are 403 api_token_not_allowed', async () => {
    const roomId = await createRoom(t.app, owner);
    for (const perms of [['read'], ['write'], ['upload'], ['read', 'write', 'upload']]) {
      const { token } = await issueToken(t.app, owner, roomId, perms);
      assertError(
        await call(t.app, 'PATCH', `/api/rooms/${roomId}/public`, { auth: token, body: { isPublic: true } }),
        403,
        TOKEN_NOT_ALLOWED,
      );
    }
    assert.equal((await info(roomId, owner.token)).isPublic, false);
  });

  test('anonymous is 401 unauthorized', async () => {
    const roomId = await createRoom(t.app, owner);
    assertError(await call(t.app, 'PATCH', `/api/rooms/${roomId}/public`, { body: { isPublic: true } }), 401, 'unauthorized');
  });

  test('a missing or non-boolean isPublic is 400 validation_error', async () => {
    const roomId = await createRoom(t.app, owner);
    for (const body of [{}, { isPublic: 'true' }, { isPublic: 1 }, { isPublic: null }, { isPublic: true, extra: 1 }]) {
      assertError(await call(t.app, 'PATCH', `/api/rooms/${roomId}/public`, { auth: owner.token, body }), 400, 'validation_error');
    }
    assertError(await call(t.app, 'PATCH', `/api/rooms/${roomId}/public`, { auth: owner.token }), 400, 'validation_error');
    assert.equal((await info(roomId, owner.token)).isPublic, false);
  });
});

// ---------------------------------------------------------------------------------------
describe('PATCH /api/rooms/:roomId/presentation/public', () => {
  test('owner and editor toggle it; the value shows in /info; the room stays private', async () => {
    const roomId = await roomWithMembers();
    const a = assertOk(await call(t.app, 'PATCH', `/api/rooms/${roomId}/presentation/public`, {
      auth: editor.token,
      body: { isPublic: true },
    }));
    assert.deepEqual(a, { success: true, presentationIsPublic: true });
    let i = await info(roomId, viewer.token);
    assert.equal(i.presentationIsPublic, true);
    assert.equal(i.isPublic, false);
    assertError(await call(t.app, 'GET', `/api/rooms/${roomId}`), 401, 'unauthorized');

    const b = assertOk(await call(t.app, 'PATCH', `/api/rooms/${roomId}/presentation/public`, {
      auth: owner.token,
      body: { isPublic: false },
    }));
    assert.deepEqual(b, { success: true, presentationIsPublic: false });
    i = await info(roomId, owner.token);
    assert.equal(i.presentationIsPublic, false);

    const c = assertOk(await call(t.app, 'PATCH', `/api/rooms/${roomId}/presentation/public`, {
      auth: owner.token,
      body: { isPublic: true },
    }));
    assert.deepEqual(c, { success: true, presentationIsPublic: true });
    assert.equal((await info(roomId, owner.token)).presentationIsPublic, true);
  });

  test('viewer and non-member are 403 forbidden', async () => {
    const roomId = await roomWithMembers();
    for (const user of [viewer, stranger]) {
      assertError(
        await call(t.app, 'PATCH', `/api/rooms/${roomId}/presentation/public`, { auth: user.token, body: { isPublic: true } }),
        403,
        'forbidden',
      );
    }
    assert.equal((await info(roomId, owner.token)).presentationIsPublic, false);
  });

  test('a token is 403 api_token_not_allowed', async () => {
    const roomId = await createRoom(t.app, owner);
    for (const perms of [['read'], ['write'], ['read', 'write', 'upload']]) {
      const { token } = await issueToken(t.app, owner, roomId, perms);
      assertError(
        await call(t.app, 'PATCH', `/api/rooms/${roomId}/presentation/public`, { auth: token, body: { isPublic: true } }),
        403,
        TOKEN_NOT_ALLOWED,
      );
    }
    assert.equal((await info(roomId, owner.token)).presentationIsPublic, false);
  });

  test('a non-boolean isPublic is 400 validation_error', async () => {
    const roomId = await createRoom(t.app, owner);
    for (const body of [{}, { isPublic: 'yes' }]) {
      assertError(
        await call(t.app, 'PATCH', `/api/rooms/${roomId}/presentation/public`, { auth: owner.token, body }),
        400,
        'validation_error',
      );
    }
  });
});

// ---------------------------------------------------------------------------------------
describe('PATCH /api/rooms/:roomId/camera-settings', () => {
  test('the owner sets everything and gets the full stored settings back', async () => {
    const roomId = await roomWithMembers();
    const res = await call(t.app, 'PATCH', `/api/rooms/${roomId}/camera-settings`, {
      auth: owner.token,
      body: { autoZoomEnabled: false, defaultView: { lat: 47.37, lng: 8.54, zoom: 13 }, defaultTheme: 'dark', defaultBaseLayer: 'swissimage' },
    });
    assert.deepEqual(assertOk(res), {
      success: true,
      settings: {
        autoZoomEnabled: false,
        defaultView: { lat: 47.37, lng: 8.54, zoom: 13 },
        defaultTheme: 'dark',
        defaultBaseLayer: 'swissimage',
      },
    });
    const i = await info(roomId, viewer.token);
    assert.deepEqual(pick(i, INFO_FIELDS), {
      isPublic: false,
      presentationIsPublic: false,
      autoZoomEnabled: false,
      defaultViewLat: 47.37,
      defaultViewLng: 8.54,
      defaultViewZoom: 13,
      defaultTheme: 'dark',
      defaultBaseLayer: 'swissimage',
    });
  });

  test('a partial update leaves the rest unchanged', async () => {
    const roomId = await createRoom(t.app, owner, uniqueRoomId(), {
      defaultView: { lat: 10, lng: 20, zoom: 5 },
      defaultTheme: 'light',
      defaultBaseLayer: 'carto',
    });
    const a = assertOk(await call(t.app, 'PATCH', `/api/rooms/${roomId}/camera-settings`, {
      auth: owner.token,
      body: { defaultTheme: 'dark' },
    }));
    assert.deepEqual(a.settings, {
      autoZoomEnabled: true,
      defaultView: { lat: 10, lng: 20, zoom: 5 },
      defaultTheme: 'dark',
      defaultBaseLayer: 'carto',
    });
    const b = assertOk(await call(t.app, 'PATCH', `/api/rooms/${roomId}/camera-settings`, {
      auth: owner.token,
      body: { autoZoomEnabled: false },
    }));
    assert.deepEqual(b, {
      success: true,
      settings: { autoZoomEnabled: false, defaultView: { lat: 10, lng: 20, zoom: 5 }, defaultTheme: 'dark', defaultBaseLayer: 'carto' },
    });
    const c = assertOk(await call(t.app, 'PATCH', `/api/rooms/${roomId}/camera-settings`, {
      auth: owner.token,
      body: { defaultView: { lat: -45, lng: 170, zoom: 0 } },
    }));
    assert.deepEqual(c.settings, {
      autoZoomEnabled: false,
      defaultView: { lat: -45, lng: 170, zoom: 0 },
      defaultTheme: 'dark',
      defaultBaseLayer: 'carto',
    });
    const i = await info(roomId, owner.token);
    assert.equal(i.autoZoomEnabled, false);
    assert.equal(i.defaultViewLat, -45);
    assert.equal(i.defaultViewLng, 170);
    assert.equal(i.defaultViewZoom, 0);
    assert.equal(i.defaultTheme, 'dark');
    assert.equal(i.defaultBaseLayer, 'carto');
  });

  test('null clears defaultView, defaultTheme and defaultBaseLayer', async () => {
    const roomId = await createRoom(t.app, owner, uniqueRoomId(), {
      defaultView: { lat: 1.5, lng: 2.5, zoom: 3 },
      defaultTheme: 'light',
      defaultBaseLayer: 'osm',
    });
    const a = assertOk(await call(t.app, 'PATCH', `/api/rooms/${roomId}/camera-settings`, {
      auth: owner.token,
      body: { defaultView: null },
    }));
    assert.deepEqual(a.settings, { autoZoomEnabled: true, defaultView: null, defaultTheme: 'light', defaultBaseLayer: 'osm' });
    let i = await info(roomId, owner.token);
    assert.equal(i.defaultViewLat, null);
    assert.equal(i.defaultViewLng, null);
    assert.equal(i.defaultViewZoom, null);
    assert.equal(i.defaultTheme, 'light');

    const b = assertOk(await call(t.app, 'PATCH', `/api/rooms/${roomId}/camera-settings`, {
      auth: owner.token,
      body: { defaultTheme: null, defaultBaseLayer: null },
    }));
    assert.deepEqual(b, {
      success: true,
      settings: { autoZoomEnabled: true, defaultView: null, defaultTheme: null, defaultBaseLayer: null },
    });
    i = await info(roomId, owner.token);
    assert.deepEqual(pick(i, INFO_FIELDS), NEW_ROOM_INFO);
  });

  test('an empty body is 400 empty_update', async () => {
    const roomId = await createRoom(t.app, owner);
    assertError(await call(t.app, 'PATCH', `/api/rooms/${roomId}/camera-settings`, { auth: owner.token, body: {} }), 400, 'empty_update');
  });

  test('range and enum violations are 400 validation_error and change nothing', async () => {
    const roomId = await createRoom(t.app, owner, uniqueRoomId(), {
      defaultView: { lat: 5, lng: 6, zoom: 7 },
      defaultTheme: 'light',
      defaultBaseLayer: 'osm',
    });
    const bad: object[] = [
      { defaultView: { lat: 91, lng: 0, zoom: 1 } },
      { defaultView: { lat: -90.5, lng: 0, zoom: 1 } },
      { defaultView: { lat: 0, lng: -181, zoom: 1 } },
      { defaultView: { lat: 0, lng: 180.1, zoom: 1 } },
      { defaultView: { lat: 0, lng: 0, zoom: -1 } },
      { defaultView: { lat: 0, lng: 0 } },
      { defaultView: { lat: '1', lng: 0, zoom: 1 } },
      { defaultTheme: 'blue' },
      { defaultBaseLayer: 'google' },
      { autoZoomEnabled: 'false' },
      { isPublic: true },
    ];
    for (const body of bad) {
      assertError(
        await call(t.app, 'PATCH', `/api/rooms/${roomId}/camera-settings`, { auth: owner.token, body }),
        400,
        'validation_error',
      );
    }
    const i = await info(roomId, owner.token);
    assert.equal(i.defaultViewLat, 5);
    assert.equal(i.defaultViewLng, 6);
    assert.equal(i.defaultViewZoom, 7);
    assert.equal(i.defaultTheme, 'light');
    assert.equal(i.defaultBaseLayer, 'osm');
    assert.equal(i.autoZoomEnabled, true);
    assert.equal(i.isPublic, false);
  });

  test('editor and viewer are 403 forbidden; a token is 403 api_token_not_allowed', async () => {
    const roomId = await roomWithMembers();
    for (const user of [editor, viewer]) {
      assertError(
        await call(t.app, 'PATCH', `/api/rooms/${roomId}/camera-settings`, { auth: user.token, body: { defaultTheme: 'dark' } }),
        403,
        'forbidden',
      );
    }
    const { token } = await issueToken(t.app, owner, roomId, ['read', 'write', 'upload']);
    assertError(
      await call(t.app, 'PATCH', `/api/rooms/${roomId}/camera-settings`, { auth: token, body: { defaultTheme: 'dark' } }),
      403,
      TOKEN_NOT_ALLOWED,
    );
    assert.equal((await info(roomId, owner.token)).defaultTheme, null);
  });
});

// ---------------------------------------------------------------------------------------
describe('PATCH /api/rooms/:roomId/timeline-settings', () => {
  const patch = (roomId: string, body: object, auth = owner.token) =>
    call(t.app, 'PATCH', `/api/rooms/${roomId}/timeline-settings`, { auth, body });

  test('every enum value and boolean is stored; omitted fields keep their previous values', async () => {
    const roomId = await roomWithMembers();
    const first = assertOk(await patch(roomId, { groupingMode: 'month', showMarkersOnly: true, dateTimeFormat: 'mdy' }));
    assert.equal(first.success, true);
    assert.deepEqual(Object.keys(first.settings).sort(), [
      'dateDisplayMode',
      'dateTimeFormat',
      'groupingMode',
      'showAdditionsOnly',
      'showMarkersOnly',
      'sliderMode',
    ]);
    assert.equal(first.settings.groupingMode, 'month');
    assert.equal(first.settings.showMarkersOnly, true);
    assert.equal(first.settings.dateTimeFormat, 'mdy');
    assert.equal(typeof first.settings.showAdditionsOnly, 'boolean');
    assert.ok(['event', 'creation'].includes(first.settings.dateDisplayMode));
    assert.ok(['past', 'current', 'future'].includes(first.settings.sliderMode));

    const second = assertOk(await patch(roomId, { showAdditionsOnly: true, dateDisplayMode: 'creation', sliderMode: 'future' }));
    assert.deepEqual(second, {
      success: true,
      settings: {
        groupingMode: 'month',
        showMarkersOnly: true,
        showAdditionsOnly: true,
        dateDisplayMode: 'creation',
        dateTimeFormat: 'mdy',
        sliderMode: 'future',
      },
    });
    // The stored settings are what room metadata shows too.
    assert.deepEqual((await metadata(roomId, viewer.token)).timelineSettings, second.settings);

    let current = second.settings;
    const steps: object[] = [
      { groupingMode: 'none' },
      { groupingMode: 'day' },
      { groupingMode: 'year' },
      { groupingMode: 'month' },
      { dateDisplayMode: 'event' },
      { dateDisplayMode: 'creation' },
      { dateTimeFormat: 'dmy' },
      { dateTimeFormat: 'iso' },
      { dateTimeFormat: 'mdy' },
      { sliderMode: 'past' },
      { sliderMode: 'current' },
      { sliderMode: 'future' },
      { showMarkersOnly: false },
      { showAdditionsOnly: false },
      { showMarkersOnly: true, showAdditionsOnly: true },
    ];
    for (const step of steps) {
      current = { ...current, ...step };
      assert.deepEqual(assertOk(await patch(roomId, step)), { success: true, settings: current });
    }
    assert.deepEqual((await metadata(roomId, owner.token)).timelineSettings, current);
  });

  test('bad enum values and unknown fields are 400 validation_error and change nothing', async () => {
    const roomId = await createRoom(t.app, owner);
    const set = assertOk(await patch(roomId, { groupingMode: 'day', dateTimeFormat: 'dmy', sliderMode: 'past' })).settings;
    for (const body of [
      { groupingMode: 'week' },
      { dateDisplayMode: 'updated' },
      { dateTimeFormat: 'ymd' },
      { sliderMode: 'all' },
      { showMarkersOnly: 'true' },
      { showAdditionsOnly: 1 },
      { groupingMode: 'year', colour: 'red' },
    ]) {
      assertError(await patch(roomId, body), 400, 'validation_error');
    }
    assert.deepEqual((await metadata(roomId, owner.token)).timelineSettings, set);
  });

  test('an empty body is 400 empty_update', async () => {
    const roomId = await createRoom(t.app, owner);
    assertError(await patch(roomId, {}), 400, 'empty_update');
  });

  test('editor and viewer are 403 forbidden; a token is 403 api_token_not_allowed', async () => {
    const roomId = await roomWithMembers();
    for (const user of [editor, viewer]) {
      assertError(await patch(roomId, { groupingMode: 'day' }, user.token), 403, 'forbidden');
    }
    const { token } = await issueToken(t.app, owner, roomId, ['read', 'write', 'upload']);
    assertError(await patch(roomId, { groupingMode: 'day' }, token), 403, TOKEN_NOT_ALLOWED);
    assert.notEqual((await metadata(roomId, owner.token)).timelineSettings.groupingMode, 'day');
  });
});

// ---------------------------------------------------------------------------------------
describe('GET /api/rooms/:roomId/permissions', () => {
  test('owner, editor and viewer of a private room', async () => {
    const roomId = await roomWithMembers();
    assert.deepEqual(await permissions(roomId, owner.token), matrix('owner', [...ACTIONS]));
    assert.deepEqual(await permissions(roomId, editor.token), matrix('editor', ['view', 'edit', 'delete']));
    assert.deepEqual(await permissions(roomId, viewer.token), matrix('viewer', ['view']));
  });

  test('roles are the same on a public room', async () => {
    const roomId = await roomWithMembers({ isPublic: true });
    assert.deepEqual(await permissions(roomId, owner.token), matrix('owner', [...ACTIONS]));
    assert.deepEqual(await permissions(roomId, editor.token), matrix('editor', ['view', 'edit', 'delete']));
    assert.deepEqual(await permissions(roomId, viewer.token), matrix('viewer', ['view']));
  });

  test('a non-member user may view a public room only', async () => {
    const pub = await createRoom(t.app, owner, uniqueRoomId(), { isPublic: true });
    assert.deepEqual(await permissions(pub, stranger.token), matrix('none', ['view']));
    const priv = await createRoom(t.app, owner);
    assert.deepEqual(await permissions(priv, stranger.token), matrix('none', []));
  });

  test('tokens answer by their permissions with role none', async () => {
    const roomId = await createRoom(t.app, owner);
    const read = await issueToken(t.app, owner, roomId, ['read']);
    const write = await issueToken(t.app, owner, roomId, ['write']);
    const upload = await issueToken(t.app, owner, roomId, ['upload']);
    const all = await issueToken(t.app, owner, roomId, ['read', 'write', 'upload']);
    assert.deepEqual(await permissions(roomId, read.token), matrix('none', ['view']));
    assert.deepEqual(await permissions(roomId, write.token), matrix('none', ['edit', 'delete']));
    assert.deepEqual(await permissions(roomId, upload.token), matrix('none', []));
    assert.deepEqual(await permissions(roomId, all.token), matrix('none', ['view', 'edit', 'delete']));
  });

  test('a missing or unknown action is 400 validation_error', async () => {
    const roomId = await createRoom(t.app, owner);
    for (const query of ['', '?action=', '?action=admin', '?action=VIEW', '?other=view']) {
      assertError(await call(t.app, 'GET', `/api/rooms/${roomId}/permissions${query}`, { auth: owner.token }), 400, 'validation_error');
    }
  });

  test('anonymous is 401 unauthorized, on private and public rooms', async () => {
    const priv = await createRoom(t.app, owner);
    const pub = await createRoom(t.app, owner, uniqueRoomId(), { isPublic: true });
    for (const roomId of [priv, pub]) {
      assertError(await call(t.app, 'GET', `/api/rooms/${roomId}/permissions?action=view`), 401, 'unauthorized');
    }
  });

  test('an unknown room is 404 not_found', async () => {
    assertError(
      await call(t.app, 'GET', `/api/rooms/${uniqueRoomId()}/permissions?action=view`, { auth: owner.token }),
      404,
      'not_found',
    );
  });
});

// ---------------------------------------------------------------------------------------
describe('POST /api/rooms/:roomId/clear', () => {
  test('the owner clears content; room, members and settings survive', async () => {
    const roomId = await roomWithMembers({
      name: 'Keep me',
      description: 'Still here',
      isPublic: true,
      defaultView: { lat: 12, lng: 34, zoom: 5 },
      defaultTheme: 'dark',
      defaultBaseLayer: 'satellite',
    });
    assertOk(await call(t.app, 'PATCH', `/api/rooms/${roomId}/timeline-settings`, {
      auth: owner.token,
      body: { groupingMode: 'year', sliderMode: 'past' },
    }));
    assertOk(await call(t.app, 'PATCH', `/api/rooms/${roomId}/presentation/public`, { auth: owner.token, body: { isPublic: true } }));
    const { token } = await issueToken(t.app, owner, roomId, ['read']);
    const beforeMeta = await metadata(roomId, owner.token);
    const beforeInfo = await info(roomId, owner.token);

    const res = await call(t.app, 'POST', `/api/rooms/${roomId}/clear`, { auth: owner.token });
    const body = assertOk(res);
    assert.equal(body.success, true);
    assert.deepEqual(Object.keys(body.removed).sort(), ['comments', 'drawings', 'layers', 'markers', 'rasterLayers', 'slides']);
    for (const n of Object.values(body.removed)) assert.equal(typeof n, 'number');
    assert.deepEqual(body.removed, ZERO_CONTENT);

    const afterMeta = await metadata(roomId, owner.token);
    assert.equal(afterMeta.name, 'Keep me');
    assert.equal(afterMeta.description, 'Still here');
    assert.equal(afterMeta.createdBy, owner.id);
    assert.equal(afterMeta.createdAt, beforeMeta.createdAt);
    assert.deepEqual(afterMeta.timelineSettings, beforeMeta.timelineSettings);
    assert.equal(afterMeta.timelineSettings.groupingMode, 'year');
    assert.deepEqual(afterMeta.counts, { ...ZERO_CONTENT, members: 3 });
    assert.deepEqual(await info(roomId, owner.token), beforeInfo);
    assert.equal((await metadata(roomId, editor.token)).userRole, 'editor');
    assert.equal((await metadata(roomId, viewer.token)).userRole, 'viewer');
    // Tokens are not content: they keep working.
    assert.equal((await metadata(roomId, token)).roomId, roomId);
  });

  test('the owner may clear with an empty JSON body too', async () => {
    const roomId = await createRoom(t.app, owner);
    const body = assertOk(await call(t.app, 'POST', `/api/rooms/${roomId}/clear`, { auth: owner.token, body: {} }));
    assert.deepEqual(body, { success: true, removed: ZERO_CONTENT });
  });

  test('editor and viewer are 403 forbidden; tokens are 403 api_token_not_allowed; anonymous 401', async () => {
    const roomId = await roomWithMembers({ isPublic: true });
    for (const user of [editor, viewer, stranger]) {
      assertError(await call(t.app, 'POST', `/api/rooms/${roomId}/clear`, { auth: user.token }), 403, 'forbidden');
    }
    for (const perms of [['read'], ['write'], ['read', 'write', 'upload']]) {
      const { token } = await issueToken(t.app, owner, roomId, perms);
      assertError(await call(t.app, 'POST', `/api/rooms/${roomId}/clear`, { auth: token }), 403, TOKEN_NOT_ALLOWED);
    }
    assertError(await call(t.app, 'POST', `/api/rooms/${roomId}/clear`), 401, 'unauthorized');
  });
});

// ---------------------------------------------------------------------------------------
describe('DELETE /api/rooms/:roomId', () => {
  test('the owner deletes the room: 404 afterwards, tokens stop working, members lose it', async () => {
    const roomId = await roomWithMembers({ isPublic: true });
    const { token } = await issueToken(t.app, owner, roomId, ['read', 'write']);
    assert.equal((await metadata(roomId, token)).roomId, roomId);
    for (const user of [owner, editor, viewer]) {
      const list = assertOk(await call(t.app, 'GET', '/api/rooms', { auth: user.token }));
      assert.ok(list.rooms.some((r: { roomId: string }) => r.roomId === roomId));
    }

    const res = await call(t.app, 'DELETE', `/api/rooms/${roomId}`, { auth: owner.token });
    assert.deepEqual(assertOk(res), { success: true });

    assertError(await call(t.app, 'GET', `/api/rooms/${roomId}`, { auth: owner.token }), 404, 'not_found');
    assertError(await call(t.app, 'GET', `/api/rooms/${roomId}`), 404, 'not_found');
    assertError(await call(t.app, 'GET', `/api/rooms/${roomId}/info`), 404, 'not_found');
    assertError(await call(t.app, 'GET', `/api/rooms/${roomId}`, { auth: token }), 401, 'unauthorized', INVALID_TOKEN);
    assertError(await call(t.app, 'GET', `/api/rooms/${roomId}/info`, { auth: token }), 401, 'unauthorized', INVALID_TOKEN);
    for (const user of [owner, editor, viewer]) {
      const list = assertOk(await call(t.app, 'GET', '/api/rooms', { auth: user.token }));
      assert.equal(list.rooms.some((r: { roomId: string }) => r.roomId === roomId), false);
    }
    assertError(await call(t.app, 'DELETE', `/api/rooms/${roomId}`, { auth: owner.token }), 404, 'not_found');
  });

  test('the id can be taken again after deletion, by a new owner', async () => {
    const roomId = await createRoom(t.app, owner, uniqueRoomId(), { name: 'Old' });
    assertOk(await call(t.app, 'DELETE', `/api/rooms/${roomId}`, { auth: owner.token }));
    const body = assertOk(await call(t.app, 'POST', `/api/rooms/${roomId}`, { auth: stranger.token, body: {} }));
    assert.equal(body.isNewRoom, true);
    assert.equal(body.room.createdBy, stranger.id);
    assertError(await call(t.app, 'GET', `/api/rooms/${roomId}`, { auth: owner.token }), 403, 'forbidden');
    assert.equal((await metadata(roomId, stranger.token)).name, null);
  });

  test('editor and viewer are 403 forbidden; tokens 403 api_token_not_allowed; the room survives', async () => {
    const roomId = await roomWithMembers();
    for (const user of [editor, viewer, stranger]) {
      assertError(await call(t.app, 'DELETE', `/api/rooms/${roomId}`, { auth: user.token }), 403, 'forbidden');
    }
    for (const perms of [['read'], ['write'], ['read', 'write', 'upload']]) {
      const { token } = await issueToken(t.app, owner, roomId, perms);
      assertError(await call(t.app, 'DELETE', `/api/rooms/${roomId}`, { auth: token }), 403, TOKEN_NOT_ALLOWED);
    }
    assertError(await call(t.app, 'DELETE', `/api/rooms/${roomId}`), 401, 'unauthorized');
    assert.equal((await metadata(roomId, owner.token)).roomId, roomId);
  });
});

// ---------------------------------------------------------------------------------------
describe('room token authentication on room routes', () => {
  test("a token of room A on room B is 403 'API token is not scoped to this room'", async () => {
    const roomA = await createRoom(t.app, owner);
    const roomB = await createRoom(t.app, owner, uniqueRoomId(), { isPublic: true });
    const { token } = await issueToken(t.app, owner, roomA, ['read', 'write', 'upload']);
    for (const url of [`/api/rooms/${roomB}`, `/api/rooms/${roomB}/info`, `/api/rooms/${roomB}/permissions?action=view`]) {
      assertError(await call(t.app, 'GET', url, { auth: token }), 403, 'forbidden', NOT_SCOPED);
    }
    // The same token still works on its own room.
    assert.equal((await metadata(roomA, token)).roomId, roomA);
  });

  test("a write-only token on metadata is 403 \"API token lacks 'read' permission\"", async () => {
    const roomId = await createRoom(t.app, owner);
    for (const perms of [['write'], ['upload'], ['write', 'upload']]) {
      const { token } = await issueToken(t.app, owner, roomId, perms);
      assertError(await call(t.app, 'GET', `/api/rooms/${roomId}`, { auth: token }), 403, 'forbidden', "API token lacks 'read' permission");
    }
  });

  test("a revoked token is 401 'Invalid or expired API token'", async () => {
    const roomId = await createRoom(t.app, owner);
    const { token, id } = await issueToken(t.app, owner, roomId, ['read']);
    const other = await issueToken(t.app, owner, roomId, ['read']);
    assert.equal((await metadata(roomId, token)).roomId, roomId);

    assertOk(await call(t.app, 'DELETE', `/api/rooms/${roomId}/api-tokens/${id}`, { auth: owner.token }));
    assertError(await call(t.app, 'GET', `/api/rooms/${roomId}`, { auth: token }), 401, 'unauthorized', INVALID_TOKEN);
    assertError(
      await call(t.app, 'GET', `/api/rooms/${roomId}/permissions?action=view`, { auth: token }),
      401,
      'unauthorized',
      INVALID_TOKEN,
    );
    // Revocation is per token.
    assert.equal((await metadata(roomId, other.token)).roomId, roomId);
  });

  test("an unknown token is 401 'Invalid or expired API token'", async () => {
    const roomId = await createRoom(t.app, owner, uniqueRoomId(), { isPublic: true });
    const bogus = 'mrt_' + 'A'.repeat(43);
    assertError(await call(t.app, 'GET', `/api/rooms/${roomId}`, { auth: bogus }), 401, 'unauthorized', INVALID_TOKEN);
  });
});
