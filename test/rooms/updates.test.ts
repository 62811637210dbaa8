import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertOk, call, roomHistory, scaffold, type TestApp, type Users } from '../helpers.js';
import { LiveClient } from '../support/live-client.js';

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
    /** The room's settings as a member reads them: `/info`, plus the description and timeline settings of the room record. */
    const settingsNow = async () => {
      const record = assertOk(await call(t.app, 'GET', `/api/rooms/${room}`, { auth: owner }));
      return {
        ...assertOk(await call(t.app, 'GET', `/api/rooms/${room}/info`, { auth: owner })),
        description: record.description,
        timelineSettings: record.timelineSettings,
      };
    };
    const expected = [];
    assertOk(
      await call(t.app, 'PATCH', `/api/rooms/${room}/camera-settings`, {
        auth: owner,
        body: { defaultView: { lat: 46.9, lng: 7.4, zoom: 11 } },
      }),
    );
    expected.push(await settingsNow());
    assertOk(
      await call(t.app, 'PATCH', `/api/rooms/${room}/timeline-settings`, {
        auth: owner,
        body: { groupingMode: 'month' },
      }),
    );
    expected.push(await settingsNow());
    assertOk(
      await call(t.app, 'PATCH', `/api/rooms/${room}/presentation/public`, {
        auth: users.editor.token,
        body: { isPublic: true },
      }),
    );
    expected.push(await settingsNow());
    assertOk(await call(t.app, 'PATCH', `/api/rooms/${room}/public`, { auth: owner, body: { isPublic: true } }));
    expected.push(await settingsNow());

    const events = (await live.waitFor(5)).slice(1);
    assert.deepEqual(
      events.map((e) => e.type),
      Array(4).fill('room.updated'),
    );
    assert.deepEqual(
      events.map((e) => [e.objectType, e.objectId]),
      Array(4).fill(['room', room]),
    );
    assert.deepEqual(
      events.map((e) => e.version),
      [hello.version + 1, hello.version + 2, hello.version + 3, hello.version + 4],
    );
    // Each event carries the room's settings just after its change, as a member reads them.
    assert.deepEqual(
      events.map((e) => e.data),
      expected,
    );
    assert.deepEqual([events[0]!.data.defaultViewLat, events[0]!.data.defaultViewZoom], [46.9, 11]);
    assert.equal(events[1]!.data.timelineSettings.groupingMode, 'month');
    assert.equal(events[2]!.data.presentationIsPublic, true);
    assert.equal(events[3]!.data.isPublic, true);
    live.ws.close();
    // A client catching up with ?since= gets the same events from history.
    const late = new LiveClient(
      `${wsBase}/api/rooms/${room}/live?since=${hello.version}&access_token=${users.viewer.token}`,
    );
    const replayed = (await late.waitFor(5)).slice(1);
    late.ws.close();
    assert.deepEqual(
      replayed.map(({ at: _, ...e }) => e),
      events.map(({ at: _, ...e }) => e),
    );

    const history = (await roomHistory(t.app, room, owner)).filter((e) => e.type === 'room.updated').reverse();
    assert.deepEqual(
      history.map((e) => [e.objectType, e.objectId]),
      Array(4).fill(['room', room]),
    );
    assert.deepEqual(
      history.map((e) => e.changes),
      [
        { defaultView: { lat: 46.9, lng: 7.4, zoom: 11 } },
        { timelineSettings: { groupingMode: 'month' } },
        { presentationIsPublic: true },
        { isPublic: true },
      ],
    );
    assert.deepEqual(
      history.map((e) => e.actor),
      // Read by a member's session: people without a name are named by e-mail.
      [users.owner, users.owner, users.editor, users.owner].map((u) => ({ kind: 'user', id: u.id, name: u.email })),
    );
  });
});
