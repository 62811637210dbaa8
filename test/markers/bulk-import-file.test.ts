/**
 * Bulk import, what the file may hold (through HTTP): an empty collection, properties of
 * other types than the marker fields take, missing properties, numbers out of range (1e309),
 * text of several bytes per character; and the imported markers' ids. The reader cuts the
 * file into feature texts (src/geo-engine/geojson-stream.ts); docs/decisions.md, "Jobs and bulk import".
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { assertOk, call, createRoom, postMultipart, scaffold, type TestApp, type Users } from '../helpers.js';

let t: TestApp;
let users: Users;

before(async () => {
  ({ t, users } = await scaffold({ rooms: [] }));
});
after(async () => {
  await t?.close();
});

type Job = { stage: string; message: string | null; markersCreated?: number };

/** Imports `text` into a new room and waits for the job's end; the job and the room. */
async function imported(text: string): Promise<{ job: Job; roomId: string }> {
  const roomId = await createRoom(t.app, users.owner);
  const auth = users.owner.token;
  const { jobId } = assertOk(
    await postMultipart(
      t.app,
      `/api/rooms/${roomId}/bulk-import`,
      { file: { data: text, filename: 'points.geojson', type: 'application/geo+json' } },
      auth,
    ),
  );
  for (let i = 0; i < 3000; i++) {
    const job = assertOk(await call(t.app, 'GET', `/api/jobs/${jobId}`, { auth }));
    if (job.stage === 'complete' || job.stage === 'error') return { job, roomId };
    await sleep(20);
  }
  throw new Error('the import did not finish');
}

async function markersOf(roomId: string) {
  return assertOk(await call(t.app, 'GET', `/api/rooms/${roomId}/markers`, { auth: users.owner.token })).markers;
}

const feature = (coordinates: unknown, properties?: unknown) =>
  `{"type":"Feature","geometry":{"type":"Point","coordinates":${JSON.stringify(coordinates)}}${properties === undefined ? '' : `,"properties":${JSON.stringify(properties)}`}}`;
const collection = (...features: string[]) => `{"type":"FeatureCollection","features":[${features.join(',')}]}`;

test('an empty collection completes with no marker', async () => {
  const { job, roomId } = await imported('{"features":[],"type":"FeatureCollection"}');
  assert.equal(job.stage, 'complete', JSON.stringify(job));
  assert.equal(job.markersCreated, 0);
  assert.deepEqual(await markersOf(roomId), []);
});

test('missing and null properties make markers with only a position; other properties are ignored', async () => {
  const { job, roomId } = await imported(
    collection(feature([7.5, 46.9]), feature([8.5, 47.4], null), feature([9, 45], { name: 'x', 'title ': 1 })),
  );
  assert.equal(job.stage, 'complete', JSON.stringify(job));
  const markers = await markersOf(roomId);
  assert.deepEqual(
    markers.map((m: { longitude: number; latitude: number; title?: unknown }) => [m.longitude, m.latitude, m.title]),
    [
      [7.5, 46.9, null],
      [8.5, 47.4, null],
      [9, 45, null],
    ],
  );
});

test('text of several bytes per character and JSON escapes come back exactly', async () => {
  const title = 'Zürich – 東京 😀 "quoted" \\ [ ] { } ,';
  const description = 'line one\nline two\t\u0001';
  const { job, roomId } = await imported(collection(feature([1, 2], { title, description, tags: ['ä', 'ö'] })));
  assert.equal(job.stage, 'complete', JSON.stringify(job));
  const [marker] = await markersOf(roomId);
  assert.equal(marker.title, title);
  assert.equal(marker.description, description);
  assert.deepEqual(marker.tags, ['ä', 'ö']);
});

test('properties of the wrong type, and numbers out of range, end the job in error naming the feature', async () => {
  const ok = feature([0, 0], { title: 'ok' });
  for (const [bad, problem] of [
    [feature([0, 0], { title: 42 }), /Feature 2 \(features\[1\]\): title must be a string/],
    [feature([0, 0], { tags: 'a,b' }), /Feature 2 \(features\[1\]\): tags must be/],
    [feature([0, 0], { eventDate: 'not a date' }), /Feature 2 \(features\[1\]\): eventDate must be/],
    [feature([0, 0], { eventDate: 1.5 }), /Feature 2 \(features\[1\]\): eventDate must be/],
    [
      feature([0, 0], { markerIconSize: 0 }).replace(':0}', ':1e309}'),
      /Feature 2 \(features\[1\]\): markerIconSize must be/,
    ],
    [
      '{"type":"Feature","geometry":{"type":"Point","coordinates":[1e309,0]}}',
      /Feature 2 \(features\[1\]\): longitude must be a number from -180 to 180/,
    ],
    [
      '{"type":"Feature","geometry":{"type":"Point","coordinates":[0,-1e309]}}',
      /Feature 2 \(features\[1\]\): latitude must be a number from -90 to 90/,
    ],
    [feature(['7', '46']), /Feature 2 \(features\[1\]\): longitude must be a number/],
    [feature([7]), /Feature 2 \(features\[1\]\): Point coordinates must be/],
    ['{"type":"Feature","geometry":null}', /Feature 2 \(features\[1\]\): geometry must be a Point/],
    ['42', /Feature 2 \(features\[1\]\): must be an object with "type": "Feature"/],
  ] as const) {
    const { job, roomId } = await imported(collection(ok, bad));
    assert.equal(job.stage, 'error', bad);
    assert.match(job.message ?? '', problem, bad);
    assert.deepEqual(await markersOf(roomId), [], 'a failed import leaves no marker');
  }
});

test('an ISO 8601 eventDate is kept as epoch milliseconds; an altitude is accepted', async () => {
  const { job, roomId } = await imported(
    collection(feature([1, 2, 300], { eventDate: '2024-02-29T12:00:00Z' }), feature([3, 4], { eventDate: 5 })),
  );
  assert.equal(job.stage, 'complete', JSON.stringify(job));
  const markers = await markersOf(roomId);
  assert.deepEqual(
    markers.map((m: { eventDate: number }) => m.eventDate),
    [Date.parse('2024-02-29T12:00:00Z'), 5],
  );
});

test("an import's markers have ids of the usual form, unique, following each other; another import's differ", async () => {
  const features = Array.from({ length: 300 }, (_, i) => feature([i / 10, i / 10], { title: `p${i}` }));
  const first = await imported(collection(...features));
  const second = await imported(collection(...features));
  const ids = (await markersOf(first.roomId)).map((m: { id: string }) => m.id);
  const others = (await markersOf(second.roomId)).map((m: { id: string }) => m.id);
  for (const id of [...ids, ...others]) assert.match(id, /^marker-[A-Za-z0-9_-]{16}$/);
  assert.equal(new Set([...ids, ...others]).size, 600);
  assert.deepEqual([...ids].sort(), ids, 'in the order of the file');
  assert.notEqual(ids[0]!.slice(0, 17), others[0]!.slice(0, 17));
});
