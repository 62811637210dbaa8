import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertOk, call, roomHistory, scaffoldSuite } from '../helpers.js';
import { LiveClient } from '../support/live-client.js';

/** Room settings are changes like content: history entries and live events (`room.updated`). */

const s = scaffoldSuite({ listen: true });

describe('room settings changes are recorded and broadcast', () => {
  test('visibility, deck visibility, camera and timeline: one room.updated each, live and in history', async () => {
    const live = new LiveClient(`${s.wsBase}/api/rooms/${s.room}/live?access_token=${s.users.viewer.token}`);
    await live.opened;
    const hello = await live.at(0);
    assert.equal(hello.type, 'hello');
    const owner = s.users.owner.token;
    /** The room's settings as a member reads them: `/info`, plus the description and timeline settings of the room record. */
    const settingsNow = async () => {
      const record = assertOk(await call(s.t.app, 'GET', `/api/rooms/${s.room}`, { auth: owner }));
      return {
        ...assertOk(await call(s.t.app, 'GET', `/api/rooms/${s.room}/info`, { auth: owner })),
        description: record.description,
        timelineSettings: record.timelineSettings,
      };
    };
    const expected = [];
    assertOk(
      await call(s.t.app, 'PATCH', `/api/rooms/${s.room}/camera-settings`, {
        auth: owner,
        body: { defaultView: { lat: 46.9, lng: 7.4, zoom: 11 } },
      }),
    );
    expected.push(await settingsNow());
    assertOk(
      await call(s.t.app, 'PATCH', `/api/rooms/${s.room}/timeline-settings`, {
        auth: owner,
        body: { groupingMode: 'month' },
      }),
    );
    expected.push(await settingsNow());
    assertOk(
      await call(s.t.app, 'PATCH', `/api/rooms/${s.room}/presentation/public`, {
        auth: s.users.editor.token,
        body: { isPublic: true },
      }),
    );
    expected.push(await settingsNow());
    assertOk(await call(s.t.app, 'PATCH', `/api/rooms/${s.room}/public`, { auth: owner, body: { isPublic: true } }));
    expected.push(await settingsNow());

    const events = (await live.waitFor(5)).slice(1);
    assert.deepEqual(
      events.map((e) => e.type),
      Array(4).fill('room.updated'),
    );
    assert.deepEqual(
      events.map((e) => [e.objectType, e.objectId]),
      Array(4).fill(['room', s.room]),
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
      `${s.wsBase}/api/rooms/${s.room}/live?since=${hello.version}&access_token=${s.users.viewer.token}`,
    );
    const replayed = (await late.waitFor(5)).slice(1);
    late.ws.close();
    assert.deepEqual(
      replayed.map(({ at: _, ...e }) => e),
      events.map(({ at: _, ...e }) => e),
    );

    const history = (await roomHistory(s.t.app, s.room, owner)).filter((e) => e.type === 'room.updated').reverse();
    assert.deepEqual(
      history.map((e) => [e.objectType, e.objectId]),
      Array(4).fill(['room', s.room]),
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
      [s.users.owner, s.users.owner, s.users.editor, s.users.owner].map((u) => ({
        kind: 'user',
        id: u.id,
        name: u.email,
      })),
    );
  });
});
