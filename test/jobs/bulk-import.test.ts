import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import WebSocket from 'ws';
import {
  assertError,
  assertOk,
  call,
  createRoom,
  issueToken,
  postMultipart,
  scaffoldSuite,
  TOKEN_ERRORS,
} from '../helpers.js';
import { bulkImportCalls, collection, point } from '../support/bulk-import.js';

/**
 * Bulk marker import: POST /api/rooms/:roomId/bulk-import answers `{jobId}`, and the job
 * imports the file's points as markers, or ends in error naming what is wrong.
 */

let otherRoom: string;
const s = scaffoldSuite({ listen: true }, async () => {
  otherRoom = await createRoom(s.t.app, s.users.stranger);
});
const { postImport, startImport, pollJob, markerCount, listMarkers, historyEvents, registerIcon, assertJobFails } =
  bulkImportCalls(() => s);

describe('bulk import', () => {
  test('imports every point with its mapped properties; one room.imported in history and on the live channel', async () => {
    const iconId = await registerIcon(s.room);
    const features: unknown[] = [
      point(0, {
        title: 'Alpha',
        description: 'First of all',
        tags: ['museum', 'free'],
        eventDate: 1_700_000_000_000,
        markerIconId: iconId,
        markerIconSize: 48,
      }),
      point(1, { title: 'Beta', eventDate: '2024-03-01T12:30:00Z', tags: [] }),
      { type: 'Feature', geometry: { type: 'Point', coordinates: [7.44, 46.95, 540] }, properties: null },
    ];
    for (let i = 3; i < 2503; i++) features.push(point(i));
    const n = features.length;

    const countBefore = await markerCount(s.room);
    const live = new WebSocket(`${s.wsBase}/api/rooms/${s.room}/live?access_token=${s.users.viewer.token}`);
    const messages: any[] = [];
    live.on('message', (raw) => messages.push(JSON.parse(String(raw))));
    live.on('error', () => undefined);
    try {
      const waitMessages = async (count: number) => {
        const deadline = Date.now() + 10_000;
        while (messages.length < count) {
          if (Date.now() > deadline) throw new Error(`live messages so far: ${JSON.stringify(messages)}`);
          await sleep(10);
        }
      };
      await waitMessages(1);
      const version = messages[0].version as number;
      assert.equal(messages[0].type, 'hello');

      const jobId = await startImport(s.room, collection(features));
      const job = await pollJob(jobId);
      assert.equal(job.stage, 'complete', JSON.stringify(job));
      assert.equal(job.progress, 100);
      assert.equal(job.markersCreated, n);
      assert.equal(job.jobId, jobId);
      assert.equal(typeof job.message, 'string');

      assert.equal(await markerCount(s.room), countBefore + n);
      const markers = await listMarkers(s.room);
      const byTitle = new Map(markers.map((m) => [m.title, m]));
      const alpha = byTitle.get('Alpha');
      assert.ok(alpha, 'Alpha imported');
      assert.match(alpha.id, /^marker-/);
      assert.equal(alpha.longitude, -180);
      assert.equal(alpha.latitude, -90);
      assert.equal(alpha.description, 'First of all');
      assert.deepEqual(alpha.tags, ['museum', 'free']);
      assert.equal(alpha.eventDate, 1_700_000_000_000);
      assert.equal(alpha.markerIconId, iconId);
      assert.equal(alpha.markerIconSize, 48);
      const beta = byTitle.get('Beta');
      assert.ok(beta, 'Beta imported');
      assert.equal(beta.eventDate, Date.parse('2024-03-01T12:30:00Z'));
      const bare = markers.find((m) => m.latitude === 46.95 && m.longitude === 7.44);
      assert.ok(bare, 'a feature with an altitude and null properties is imported');
      assert.equal(bare.title, null);
      for (let i = 3; i < 2503; i++) assert.ok(byTitle.has(`p-${i}`), `p-${i} imported`);
      const one = assertOk(
        await call(s.t.app, 'GET', `/api/rooms/${s.room}/markers/${alpha.id}`, { auth: s.users.viewer.token }),
      ).marker;
      assert.deepEqual(one.tags, ['museum', 'free']);
      assert.equal(one.eventDate, 1_700_000_000_000);

      // History: exactly one entry for the whole import, not one per marker.
      const events = await historyEvents(s.room);
      assert.equal(events[0].version, version + 1, 'the import advanced the room version by exactly one');
      assert.equal(events[0].type, 'room.imported');
      assert.equal(events.filter((e) => e.type === 'room.imported').length, 1);
      assert.ok(
        !events.some((e) => e.version > version && e.type !== 'room.imported'),
        JSON.stringify(events.slice(0, 3)),
      );

      // Live: exactly one room.imported event, then whatever comes next.
      const sentinel = assertOk(
        await call(s.t.app, 'POST', `/api/rooms/${s.room}/markers`, {
          auth: s.users.owner.token,
          body: { latitude: 1, longitude: 1 },
        }),
        201,
      ).marker;
      await waitMessages(3);
      assert.equal(messages[1].type, 'room.imported', JSON.stringify(messages[1]));
      assert.equal(messages[1].version, version + 1);
      assert.equal(messages[2].type, 'marker.created');
      assert.equal(messages[2].objectId, sentinel.id);
      assert.equal(messages.length, 3, JSON.stringify(messages.map((m) => m.type)));
    } finally {
      live.terminate();
    }
  });

  test('an invalid feature ends the job in error naming the feature and the problem; nothing is imported', async () => {
    const countBefore = await markerCount(s.room);
    const importsBefore = (await historyEvents(s.room)).filter((e) => e.type === 'room.imported').length;
    const valid = (from: number, count: number) => Array.from({ length: count }, (_, i) => point(from + i));

    // The 3rd feature is a LineString.
    await assertJobFails(
      s.room,
      collection([
        ...valid(0, 2),
        {
          type: 'Feature',
          geometry: {
            type: 'LineString',
            coordinates: [
              [0, 0],
              [1, 1],
            ],
          },
          properties: {},
        },
        ...valid(3, 5),
      ]),
      /Feature 3\b/,
      /Point/,
    );
    // Latitude 95 far into the file, after more than a batch of valid points.
    const late = valid(0, 2600);
    late[2500] = {
      type: 'Feature',
      geometry: { type: 'Point', coordinates: [10, 95] },
      properties: { title: 'too far north' },
    };
    await assertJobFails(s.room, collection(late), /Feature 2501\b/, /latitude/);
    // 51 tags.
    const tags = Array.from({ length: 51 }, (_, i) => `t${i}`);
    await assertJobFails(
      s.room,
      collection([...valid(0, 1), point(1, { title: 'tagged', tags }), ...valid(2, 1500)]),
      /Feature 2\b/,
      /tags/,
      /50/,
    );
    // A markerIconSize out of range.
    await assertJobFails(
      s.room,
      collection([...valid(0, 5), point(5, { markerIconSize: 300 })]),
      /Feature 6\b/,
      /markerIconSize/,
    );
    // A title with a newline.
    await assertJobFails(s.room, collection([point(0, { title: 'two\nlines' })]), /Feature 1\b/, /title/);

    assert.equal(await markerCount(s.room), countBefore, 'no marker was created by a failed import');
    const importsAfter = (await historyEvents(s.room)).filter((e) => e.type === 'room.imported').length;
    assert.equal(importsAfter, importsBefore, 'a failed import writes no room.imported');
  });

  test('a file that is not JSON or not a FeatureCollection ends in error with a clear message', async () => {
    const countBefore = await markerCount(s.room);
    await assertJobFails(s.room, 'this is not JSON at all', /JSON/);
    await assertJobFails(s.room, `{"type":"FeatureCollection","features":[${JSON.stringify(point(0))},`, /JSON/);
    await assertJobFails(s.room, JSON.stringify(point(0)), /FeatureCollection/);
    await assertJobFails(s.room, JSON.stringify([point(0), point(1)]), /FeatureCollection/);
    await assertJobFails(
      s.room,
      JSON.stringify({ type: 'GeometryCollection', features: [point(0)] }),
      /FeatureCollection/,
    );
    assert.equal(await markerCount(s.room), countBefore);
  });

  test('a markerIconId that is not an icon of the room ends in error naming the feature', async () => {
    const countBefore = await markerCount(s.room);
    const foreignIcon = await (async () => {
      const parts = {
        icon: {
          data: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 4 4"><rect width="4" height="4"/></svg>',
          filename: 'x.svg',
          type: 'image/svg+xml',
        },
        name: 'Foreign',
        size: '24',
      };
      const res = await postMultipart(s.t.app, `/api/rooms/${otherRoom}/marker-icons`, parts, s.users.stranger.token);
      return assertOk(res, 201).iconId as string;
    })();
    const features = Array.from({ length: 1500 }, (_, i) => point(i));
    features[3] = point(3, { title: 'with a foreign icon', markerIconId: foreignIcon });
    await assertJobFails(s.room, collection(features), /Feature 4\b/, new RegExp(foreignIcon));
    features[3] = point(3, { markerIconId: 'icon-api-doesnotexist0000' });
    await assertJobFails(s.room, collection(features), /Feature 4\b/, /icon-api-doesnotexist0000/);
    assert.equal(await markerCount(s.room), countBefore);
  });

  test('the request itself: missing file field 400, not multipart 415, and write access needed', async () => {
    // A multipart body without a `file` part: only a text field, or the file under another name.
    let res = await postMultipart(
      s.t.app,
      `/api/rooms/${s.room}/bulk-import`,
      { note: 'no file here' },
      s.users.owner.token,
    );
    assertError(res, 400, 'validation_error');
    assert.match(res.json().message + JSON.stringify(res.json().details ?? ''), /file/);
    res = await postImport(s.room, collection([point(0)]), s.users.owner.token, 'upload');
    assertError(res, 400, 'validation_error');

    // Not multipart.
    res = await call(s.t.app, 'POST', `/api/rooms/${s.room}/bulk-import`, {
      auth: s.users.owner.token,
      body: { type: 'FeatureCollection', features: [] },
    });
    assertError(res, 415, 'unsupported_media_type');
    res = await call(s.t.app, 'POST', `/api/rooms/${s.room}/bulk-import`, {
      auth: s.users.owner.token,
      body: collection([point(0)]),
      headers: { 'content-type': 'application/geo+json' },
    });
    assertError(res, 415, 'unsupported_media_type');

    // Access: a viewer, a read-only token and anonymous cannot import.
    assertError(await postImport(s.room, collection([point(0)]), s.users.viewer.token), 403, 'forbidden');
    const { token: readOnly } = await issueToken(s.t.app, s.users.owner, s.room, ['read']);
    const lacks = assertError(await postImport(s.room, collection([point(0)]), readOnly), 403, 'forbidden');
    assert.equal(lacks.message, TOKEN_ERRORS.lacksWrite);
    assertError(await postImport(s.room, collection([point(0)]), null), 401, 'unauthorized');
    assertError(await postImport(s.room, collection([point(0)]), s.users.stranger.token), 403, 'forbidden');
  });
});
