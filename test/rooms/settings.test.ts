import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertError, assertOk, call, createRoom, issueToken, scaffoldSuite, uniqueRoomId } from '../helpers.js';
import { INFO_FIELDS, NEW_ROOM_INFO, pick, roomCalls } from '../support/rooms.js';

/**
 * Rooms: camera and timeline settings.
 * Contract: docs/http-interface.md (Room, States, Rooms endpoints, Authentication) and
 * docs/contract-decisions.md (Errors, Rooms, Room API tokens).
 */

const s = scaffoldSuite({ rooms: [] });
const { roomWithMembers, info, metadata } = roomCalls(() => s);

// ---------------------------------------------------------------------------------------
describe('PATCH /api/rooms/:roomId/camera-settings', () => {
  test('the owner sets everything and gets the full stored settings back', async () => {
    const roomId = await roomWithMembers();
    const res = await call(s.t.app, 'PATCH', `/api/rooms/${roomId}/camera-settings`, {
      auth: s.users.owner.token,
      body: {
        autoZoomEnabled: false,
        defaultView: { lat: 47.37, lng: 8.54, zoom: 13 },
        defaultTheme: 'dark',
        defaultBaseLayer: 'swissimage',
      },
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
    const i = await info(roomId, s.users.viewer.token);
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
    const roomId = await createRoom(s.t.app, s.users.owner, uniqueRoomId(), {
      defaultView: { lat: 10, lng: 20, zoom: 5 },
      defaultTheme: 'light',
      defaultBaseLayer: 'carto',
    });
    const a = assertOk(
      await call(s.t.app, 'PATCH', `/api/rooms/${roomId}/camera-settings`, {
        auth: s.users.owner.token,
        body: { defaultTheme: 'dark' },
      }),
    );
    assert.deepEqual(a.settings, {
      autoZoomEnabled: true,
      defaultView: { lat: 10, lng: 20, zoom: 5 },
      defaultTheme: 'dark',
      defaultBaseLayer: 'carto',
    });
    const b = assertOk(
      await call(s.t.app, 'PATCH', `/api/rooms/${roomId}/camera-settings`, {
        auth: s.users.owner.token,
        body: { autoZoomEnabled: false },
      }),
    );
    assert.deepEqual(b, {
      success: true,
      settings: {
        autoZoomEnabled: false,
        defaultView: { lat: 10, lng: 20, zoom: 5 },
        defaultTheme: 'dark',
        defaultBaseLayer: 'carto',
      },
    });
    const c = assertOk(
      await call(s.t.app, 'PATCH', `/api/rooms/${roomId}/camera-settings`, {
        auth: s.users.owner.token,
        body: { defaultView: { lat: -45, lng: 170, zoom: 0 } },
      }),
    );
    assert.deepEqual(c.settings, {
      autoZoomEnabled: false,
      defaultView: { lat: -45, lng: 170, zoom: 0 },
      defaultTheme: 'dark',
      defaultBaseLayer: 'carto',
    });
    const i = await info(roomId, s.users.owner.token);
    assert.equal(i.autoZoomEnabled, false);
    assert.equal(i.defaultViewLat, -45);
    assert.equal(i.defaultViewLng, 170);
    assert.equal(i.defaultViewZoom, 0);
    assert.equal(i.defaultTheme, 'dark');
    assert.equal(i.defaultBaseLayer, 'carto');
  });

  test('null clears defaultView, defaultTheme and defaultBaseLayer', async () => {
    const roomId = await createRoom(s.t.app, s.users.owner, uniqueRoomId(), {
      defaultView: { lat: 1.5, lng: 2.5, zoom: 3 },
      defaultTheme: 'light',
      defaultBaseLayer: 'osm',
    });
    const a = assertOk(
      await call(s.t.app, 'PATCH', `/api/rooms/${roomId}/camera-settings`, {
        auth: s.users.owner.token,
        body: { defaultView: null },
      }),
    );
    assert.deepEqual(a.settings, {
      autoZoomEnabled: true,
      defaultView: null,
      defaultTheme: 'light',
      defaultBaseLayer: 'osm',
    });
    let i = await info(roomId, s.users.owner.token);
    assert.equal(i.defaultViewLat, null);
    assert.equal(i.defaultViewLng, null);
    assert.equal(i.defaultViewZoom, null);
    assert.equal(i.defaultTheme, 'light');

    const b = assertOk(
      await call(s.t.app, 'PATCH', `/api/rooms/${roomId}/camera-settings`, {
        auth: s.users.owner.token,
        body: { defaultTheme: null, defaultBaseLayer: null },
      }),
    );
    assert.deepEqual(b, {
      success: true,
      settings: { autoZoomEnabled: true, defaultView: null, defaultTheme: null, defaultBaseLayer: null },
    });
    i = await info(roomId, s.users.owner.token);
    assert.deepEqual(pick(i, INFO_FIELDS), NEW_ROOM_INFO);
  });

  test('an empty body is 400 empty_update', async () => {
    const roomId = await createRoom(s.t.app, s.users.owner);
    assertError(
      await call(s.t.app, 'PATCH', `/api/rooms/${roomId}/camera-settings`, { auth: s.users.owner.token, body: {} }),
      400,
      'empty_update',
    );
  });

  test('range and enum violations are 400 validation_error and change nothing', async () => {
    const roomId = await createRoom(s.t.app, s.users.owner, uniqueRoomId(), {
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
        await call(s.t.app, 'PATCH', `/api/rooms/${roomId}/camera-settings`, { auth: s.users.owner.token, body }),
        400,
        'validation_error',
      );
    }
    const i = await info(roomId, s.users.owner.token);
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
    for (const user of [s.users.editor, s.users.viewer]) {
      assertError(
        await call(s.t.app, 'PATCH', `/api/rooms/${roomId}/camera-settings`, {
          auth: user.token,
          body: { defaultTheme: 'dark' },
        }),
        403,
        'forbidden',
      );
    }
    const { token } = await issueToken(s.t.app, s.users.owner, roomId, ['read', 'write', 'upload']);
    assertError(
      await call(s.t.app, 'PATCH', `/api/rooms/${roomId}/camera-settings`, {
        auth: token,
        body: { defaultTheme: 'dark' },
      }),
      403,
      'api_token_not_allowed',
    );
    assert.equal((await info(roomId, s.users.owner.token)).defaultTheme, null);
  });
});

// ---------------------------------------------------------------------------------------
describe('PATCH /api/rooms/:roomId/timeline-settings', () => {
  const patch = (roomId: string, body: object, auth = s.users.owner.token) =>
    call(s.t.app, 'PATCH', `/api/rooms/${roomId}/timeline-settings`, { auth, body });

  test('every enum value and boolean is stored; omitted fields keep their previous values', async () => {
    const roomId = await roomWithMembers();
    const first = assertOk(
      await patch(roomId, { groupingMode: 'month', showMarkersOnly: true, dateTimeFormat: 'mdy' }),
    );
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

    const second = assertOk(
      await patch(roomId, { showAdditionsOnly: true, dateDisplayMode: 'creation', sliderMode: 'future' }),
    );
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
    assert.deepEqual((await metadata(roomId, s.users.viewer.token)).timelineSettings, second.settings);

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
    assert.deepEqual((await metadata(roomId, s.users.owner.token)).timelineSettings, current);
  });

  test('bad enum values and unknown fields are 400 validation_error and change nothing', async () => {
    const roomId = await createRoom(s.t.app, s.users.owner);
    const set = assertOk(
      await patch(roomId, { groupingMode: 'day', dateTimeFormat: 'dmy', sliderMode: 'past' }),
    ).settings;
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
    assert.deepEqual((await metadata(roomId, s.users.owner.token)).timelineSettings, set);
  });

  test('an empty body is 400 empty_update', async () => {
    const roomId = await createRoom(s.t.app, s.users.owner);
    assertError(await patch(roomId, {}), 400, 'empty_update');
  });

  test('editor and viewer are 403 forbidden; a token is 403 api_token_not_allowed', async () => {
    const roomId = await roomWithMembers();
    for (const user of [s.users.editor, s.users.viewer]) {
      assertError(await patch(roomId, { groupingMode: 'day' }, user.token), 403, 'forbidden');
    }
    const { token } = await issueToken(s.t.app, s.users.owner, roomId, ['read', 'write', 'upload']);
    assertError(await patch(roomId, { groupingMode: 'day' }, token), 403, 'api_token_not_allowed');
    assert.notEqual((await metadata(roomId, s.users.owner.token)).timelineSettings.groupingMode, 'day');
  });
});
