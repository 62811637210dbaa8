import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { assertOk, call, roomHistory, scaffold, TEST_DB, type TestApp, type Users } from './helpers.js';
import { LiveClient } from './support/live-client.js';

/** Room settings are changes like content: history entries and live events (`room.updated`). */

let t: TestApp;
let users: Users;
let room: string;
let wsBase: string;
before(async () => {
  ({ t, users, room, wsBase } = await scaffold({ listen: true }));
});
after(() => t?.close());

describe('room settings changes are recorded and broadcast', () => {
  test('visibility, deck visibility, camera and timeline: one room.updated each, live and in history', async () => {
    const live = new LiveClient(`${wsBase}/api/rooms/${room}/live?access_token=${users.viewer.token}`);
    await live.opened;
    const hello = await live.at(0);
    assert.equal(hello.type, 'hello');
    const owner = users.owner.token;
    assertOk(await call(t.app, 'PATCH', `/api/rooms/${room}/camera-settings`, { auth: owner, body: { defaultView: { lat: 46.9, lng: 7.4, zoom: 11 } } }));
    assertOk(await call(t.app, 'PATCH', `/api/rooms/${room}/timeline-settings`, { auth: owner, body: { groupingMode: 'month' } }));
    assertOk(await call(t.app, 'PATCH', `/api/rooms/${room}/presentation/public`, { auth: users.editor.token, body: { isPublic: true } }));
    assertOk(await call(t.app, 'PATCH', `/api/rooms/${room}/public`, { auth: owner, body: { isPublic: true } }));

    const events = (await live.waitFor(5)).slice(1);
    assert.deepEqual(events.map((e) => e.type), Array(4).fill('room.updated'));
    assert.deepEqual(events.map((e) => e.version), [hello.version + 1, hello.version + 2, hello.version + 3, hello.version + 4]);
    assert.deepEqual([events[0]!.data.defaultViewLat, events[0]!.data.defaultViewZoom], [46.9, 11]);
    assert.equal(events[2]!.data.presentationIsPublic, true);
    assert.equal(events[3]!.data.isPublic, true);
    live.ws.close();

    const history = (await roomHistory(t.app, room, owner)).filter((e) => e.type === 'room.updated').reverse();
    assert.deepEqual(history.map((e) => [e.objectType, e.objectId]), Array(4).fill(['room', room]));
    assert.deepEqual(history.map((e) => e.changes), [
      { defaultView: { lat: 46.9, lng: 7.4, zoom: 11 } },
      { timelineSettings: { groupingMode: 'month' } },
      { presentationIsPublic: true },
      { isPublic: true },
    ]);
    assert.deepEqual(history.map((e) => e.actor), [users.owner.id, users.owner.id, users.editor.id, users.owner.id].map((id) => ({ kind: 'user', id })));
  });
});

describe('one service per SQLite data directory', { skip: TEST_DB !== 'sqlite' }, () => {
  test('a second service on the same data directory refuses to start, naming it; after the first stops, it starts', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'maproom-lock-'));
    const config = loadConfig({}, { dataDir, logLevel: 'silent' });
    const first = await buildApp(config);
    try {
      await assert.rejects(buildApp(config), (error: Error) => {
        assert.match(error.message, /already using the data directory/);
        assert.ok(error.message.includes(path.resolve(dataDir)), error.message);
        return true;
      });
    } finally {
      await first.app.close();
    }
    const second = await buildApp(config);
    await second.app.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
});
