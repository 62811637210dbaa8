import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import {
  assertError,
  assertFieldError,
  assertOk,
  call,
  createRoom,
  createRoomWithMembers,
  issueToken,
  roomHistory,
  scaffoldSuite,
  uniqueRoomId,
} from '../helpers.js';
import { exported, importFile, ogrRows, scratch } from '../support/exports.js';
import { LiveClient } from '../support/live-client.js';

/**
 * Rooms: `PATCH /api/rooms/:roomId/basemaps`, the owner's own base maps for the room's
 * base-map menu (docs/decisions.md, Room base maps): the whole list replaces the previous one,
 * the room's answers list it, and it is one `room.updated` like every settings change.
 */

const s = scaffoldSuite({ rooms: [], listen: true });

const patch = (roomId: string, body: unknown, auth = s.users.owner.token) =>
  call(s.t.app, 'PATCH', `/api/rooms/${roomId}/basemaps`, { auth, body });
const record = async (roomId: string, auth = s.users.owner.token) =>
  assertOk(await call(s.t.app, 'GET', `/api/rooms/${roomId}`, { auth }));

const XYZ = {
  id: 'topo',
  name: 'Topo',
  type: 'xyz',
  url: 'https://tiles.example.org/topo/{z}/{x}/{y}.png',
  attribution: '© Example',
};
const WMS = {
  id: 'geology',
  name: 'Geology',
  type: 'wms',
  url: 'https://maps.example.org/wms?map=geology',
  attribution: '© Survey',
  layers: 'units,faults',
};
const WMTS = {
  id: 'ortho-2024',
  name: 'Orthophoto 2024',
  type: 'wmts',
  url: 'https://wmts.example.org/1.0.0/ortho/default/2024/3857/{TileMatrix}/{TileRow}/{TileCol}.jpeg',
  attribution: '',
};

describe('PATCH /api/rooms/:roomId/basemaps', () => {
  test('the owner sets the list: the answer, GET room and /info of every member list it; a new list replaces it, an empty one clears it', async () => {
    const roomId = await createRoomWithMembers(s.t.app, s.users);
    assert.deepEqual((await record(roomId)).basemaps, []);
    const basemaps = [XYZ, { ...WMS, name: '  Geology  ' }, WMTS];
    assert.deepEqual(assertOk(await patch(roomId, { basemaps })), {
      success: true,
      basemaps: [XYZ, WMS, WMTS],
    });
    for (const user of [s.users.owner, s.users.editor, s.users.viewer]) {
      assert.deepEqual((await record(roomId, user.token)).basemaps, [XYZ, WMS, WMTS], user.email);
      const info = assertOk(await call(s.t.app, 'GET', `/api/rooms/${roomId}/info`, { auth: user.token }));
      assert.deepEqual(info.basemaps, [XYZ, WMS, WMTS], user.email);
    }
    const tms = { ...XYZ, id: 'tms', url: 'http://127.0.0.1:8000/{z}/{x}/{-y}.png' };
    assert.deepEqual(assertOk(await patch(roomId, { basemaps: [tms] })).basemaps, [tms]);
    assert.deepEqual((await record(roomId)).basemaps, [tms]);
    assert.deepEqual(assertOk(await patch(roomId, { basemaps: [] })).basemaps, []);
    assert.deepEqual((await record(roomId)).basemaps, []);
    // The limit is inclusive.
    const twenty = Array.from({ length: 20 }, (_, i) => ({ ...XYZ, id: `map-${i}` }));
    assert.equal(assertOk(await patch(roomId, { basemaps: twenty })).basemaps.length, 20);
  });

  test("one room.updated: in history with the owner and the new list, and live to members with the room's settings", async () => {
    const roomId = await createRoomWithMembers(s.t.app, s.users);
    const live = new LiveClient(`${s.wsBase}/api/rooms/${roomId}/live?access_token=${s.users.viewer.token}`);
    await live.opened;
    const hello = await live.at(0);
    assertOk(await patch(roomId, { basemaps: [XYZ] }));
    const [event] = (await live.waitFor(2)).slice(1);
    live.ws.close();
    assert.deepEqual(
      [event!.type, event!.objectType, event!.objectId, event!.version],
      ['room.updated', 'room', roomId, hello.version + 1],
    );
    assert.deepEqual(event!.data.basemaps, [XYZ]);
    const info = assertOk(await call(s.t.app, 'GET', `/api/rooms/${roomId}/info`, { auth: s.users.owner.token }));
    assert.deepEqual(event!.data.basemaps, info.basemaps);

    const [entry] = await roomHistory(s.t.app, roomId, s.users.owner.token, 'limit=1');
    assert.deepEqual(
      { type: entry!.type, actor: entry!.actor, changes: entry!.changes, version: entry!.version },
      {
        type: 'room.updated',
        actor: { kind: 'user', id: s.users.owner.id, name: s.users.owner.email },
        changes: { basemaps: [XYZ] },
        version: hello.version + 1,
      },
    );
    // A settings change, not one object's: history does not restore it.
    const restore = await call(s.t.app, 'POST', `/api/rooms/${roomId}/history/${entry!.id}/restore`, {
      auth: s.users.owner.token,
    });
    assertError(restore, 409, 'not_restorable');
  });

  test('editors and viewers are 403 forbidden, strangers 403, anonymous 401, room tokens 403 api_token_not_allowed; nothing changes', async () => {
    const roomId = await createRoomWithMembers(s.t.app, s.users);
    const body = { basemaps: [XYZ] };
    for (const user of [s.users.editor, s.users.viewer, s.users.stranger])
      assertError(await patch(roomId, body, user.token), 403, 'forbidden');
    assertError(await call(s.t.app, 'PATCH', `/api/rooms/${roomId}/basemaps`, { body }), 401, 'unauthorized');
    const { token } = await issueToken(s.t.app, s.users.owner, roomId, ['read', 'write', 'upload']);
    assertError(await patch(roomId, body, token), 403, 'api_token_not_allowed');
    assertError(await patch(uniqueRoomId(), body), 404, 'not_found');
    assert.deepEqual((await record(roomId)).basemaps, []);
    const updates = (await roomHistory(s.t.app, roomId, s.users.owner.token)).filter((e) => e.type === 'room.updated');
    assert.deepEqual(updates, []);
  });

  test('bad input is 400 validation_error naming the field; nothing changes', async () => {
    const roomId = await createRoom(s.t.app, s.users.owner);
    assertOk(await patch(roomId, { basemaps: [XYZ] }));
    const one = (changes: Record<string, unknown>) => ({ basemaps: [{ ...XYZ, ...changes }] });
    const bad: Array<[unknown, string]> = [
      [{}, 'body.basemaps'],
      [{ basemaps: null }, 'body.basemaps'],
      [{ basemaps: Array.from({ length: 21 }, (_, i) => ({ ...XYZ, id: `m${i}` })) }, 'body.basemaps'],
      [{ basemaps: [XYZ], extra: 1 }, 'body.extra'],
      [one({ url: 'ftp://tiles.example.org/{z}/{x}/{y}.png' }), 'body.basemaps.0.url'],
      [one({ url: 'javascript:alert(1)//{z}/{x}/{y}' }), 'body.basemaps.0.url'],
      [one({ url: 'https://tiles.example.org/{z}/{x}.png' }), 'body.basemaps.0.url'],
      [one({ url: 'https://user:secret@tiles.example.org/{z}/{x}/{y}.png' }), 'body.basemaps.0.url'],
      [one({ url: `https://tiles.example.org/${'a'.repeat(2000)}/{z}/{x}/{y}` }), 'body.basemaps.0.url'],
      [one({ url: 'https://[nope/{z}/{x}/{y}' }), 'body.basemaps.0.url'],
      [one({ type: 'wmts' }), 'body.basemaps.0.url'],
      [one({ type: 'tms' }), 'body.basemaps.0.type'],
      [one({ layers: 'roads' }), 'body.basemaps.0.layers'],
      [{ basemaps: [{ ...WMS, layers: undefined }] }, 'body.basemaps.0.layers'],
      [{ basemaps: [{ ...WMS, layers: ' ' }] }, 'body.basemaps.0.layers'],
      [one({ id: 'Has Spaces' }), 'body.basemaps.0.id'],
      [one({ id: '' }), 'body.basemaps.0.id'],
      [one({ id: 'a'.repeat(41) }), 'body.basemaps.0.id'],
      [{ basemaps: [XYZ, WMS, { ...WMTS, id: 'topo' }] }, 'body.basemaps.2.id'],
      [one({ name: '' }), 'body.basemaps.0.name'],
      [one({ name: '   ' }), 'body.basemaps.0.name'],
      [one({ name: 'n'.repeat(101) }), 'body.basemaps.0.name'],
      [one({ attribution: 'a'.repeat(301) }), 'body.basemaps.0.attribution'],
      [one({ attribution: 'line\nbreak' }), 'body.basemaps.0.attribution'],
      [one({ attribution: undefined }), 'body.basemaps.0.attribution'],
      [one({ style: 'x' }), 'body.basemaps.0.style'],
    ];
    for (const [body, field] of bad) assertFieldError(await patch(roomId, body), field);
    assert.deepEqual((await record(roomId)).basemaps, [XYZ]);
  });

  test("the export keeps them in its room table, as the room's other settings; an import leaves the target's as they are", async () => {
    const files = scratch();
    try {
      const source = await createRoom(s.t.app, s.users.owner);
      assertOk(await patch(source, { basemaps: [XYZ, WMS] }));
      const file = files.file('room.gpkg');
      await exported(s.t.app, source, s.users.owner.token, file);
      const [row] = ogrRows(file, 'room');
      // JSON text (GDAL reads it back as the list).
      assert.deepEqual(row!.properties.basemaps, [XYZ, WMS]);
      const target = await createRoom(s.t.app, s.users.owner);
      assertOk(await patch(target, { basemaps: [WMTS] }));
      const imported = await importFile(s.t.app, target, s.users.owner.token, readFileSync(file));
      assert.equal(imported.statusCode, 200, imported.body);
      assert.deepEqual((await record(target)).basemaps, [WMTS]);
    } finally {
      files.remove();
    }
  });
});
