/**
 * Finding a text in a room: `GET /api/rooms/:roomId/search`. Markers by title or description,
 * drawings by label, features by any text field, case-insensitively and as plain text (LIKE's
 * wildcards match themselves); a staged layer is not searched; each layer within its first
 * ATTRIBUTES_SCAN_ROWS features; the room's read access (another room's member, a stranger of a
 * private room); a bad `q` or `limit` is 400 naming it. Decisions: docs/decisions.md ("Find").
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  assertError,
  assertFieldError,
  assertOk,
  call,
  scaffold,
  TEST_DB,
  type TestApp,
  type Users,
} from './helpers.js';
import { createInlineLayer, squareFeature } from './support/layers.js';

const SCAN_ROWS = 20;

let t: TestApp;
let users: Users;
let room: string;
let otherRoom: string;
let markerId: string;
let drawingId: string;
let layerId: string;

type Result = { kind: string; id: string | number; layerId?: string; title: string; detail?: string; bbox: number[] };

before(async () => {
  ({ t, users, room, otherRoom } = await scaffold({
    rooms: ['room', 'otherRoom'],
    config: { attributesScanRows: SCAN_ROWS },
  }));
  const owner = users.owner.token;
  const marker = async (body: Record<string, unknown>) =>
    assertOk(await call(t.app, 'POST', `/api/rooms/${room}/markers`, { auth: owner, body }), 201).marker.id;
  markerId = await marker({ latitude: 46.95, longitude: 7.44, title: 'Zytglogge Tower', description: 'Clock' });
  await marker({
    latitude: 47.37,
    longitude: 8.54,
    title: 'Lake',
    description: 'Swim at the ZYTGLOGGE end? No: 100% wet',
  });
  await marker({ latitude: 1, longitude: 1, title: 'a_b', description: null });
  await marker({ latitude: 47.37, longitude: 8.54, title: 'Zürich HB', description: null });
  await marker({ latitude: 46.2, longitude: 6.14, title: 'ÉCOLE', description: null });
  drawingId = assertOk(
    await call(t.app, 'POST', `/api/rooms/${room}/drawings`, {
      auth: owner,
      body: {
        geometry: {
          type: 'LineString',
          coordinates: [
            [7.4, 46.9],
            [7.5, 47.0],
          ],
        },
        label: 'Aare walk',
      },
    }),
    201,
  ).drawing.id;
  // Feature i is called "parcel i"; only feature 25 (beyond SCAN_ROWS) says "hidden".
  const features = Array.from({ length: 30 }, (_, i) =>
    squareFeature(8 + i * 0.01, 47, 0.001, {
      name: `Parcel ${i}`,
      owner: i === 3 ? 'Aare AG' : 'x',
      n: i,
      ...(i === 25 && { note: 'hidden' }),
    }),
  );
  layerId = (
    await createInlineLayer(t.app, room, owner, { name: 'Parcels', geojson: { type: 'FeatureCollection', features } })
  ).id;
});
after(async () => t?.close());

/** A search as `auth` (null: anonymous), in `roomId`. */
const search = async (query: Record<string, string | number>, auth: string | null = users.owner.token, roomId = room) =>
  call(
    t.app,
    'GET',
    `/api/rooms/${roomId}/search?${new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]))}`,
    {
      ...(auth !== null && { auth }),
    },
  );
const found = async (q: string, limit?: number): Promise<Result[]> =>
  assertOk(await search({ q, ...(limit && { limit }) })).results;

describe('GET /api/rooms/:roomId/search', () => {
  test('markers by title or description, case-insensitively, each with its point as bbox', async () => {
    const results = await found('zytGLOGGE');
    assert.deepEqual(
      results.map((r) => [r.kind, r.title]),
      [
        ['marker', 'Lake'],
        ['marker', 'Zytglogge Tower'],
      ],
    );
    const tower = results.find((r) => r.id === markerId)!;
    assert.deepEqual(tower, {
      kind: 'marker',
      id: markerId,
      title: 'Zytglogge Tower',
      detail: 'Clock',
      bbox: [7.44, 46.95, 7.44, 46.95],
    });
  });

  test('drawings by label and features by any text field, with their bbox; the field that matched is named', async () => {
    const results = await found('  aare ');
    assert.deepEqual(
      results.map((r) => [r.kind, r.title]),
      [
        ['drawing', 'Aare walk'],
        ['feature', 'Aare AG'],
      ],
    );
    assert.deepEqual(results[0], {
      kind: 'drawing',
      id: drawingId,
      title: 'Aare walk',
      detail: 'LineString',
      bbox: [7.4, 46.9, 7.5, 47],
    });
    const feature = results[1]!;
    assert.equal(feature.layerId, layerId);
    assert.equal(feature.detail, 'Parcels · owner');
    assert.equal(typeof feature.id, 'number');
    assert.deepEqual(
      feature.bbox.map((v) => Math.round(v * 1000) / 1000),
      [8.029, 46.999, 8.031, 47.001],
    );
  });

  test('non-ASCII letters: any case on PostgreSQL; on SQLite, whose lower() folds ASCII only, not a stored capital', async () => {
    assert.deepEqual(
      (await found('ZÜRICH')).map((r) => r.title),
      ['Zürich HB'],
      'the text asked is folded by the service',
    );
    assert.deepEqual(
      (await found('école')).map((r) => r.title),
      TEST_DB === 'postgres' ? ['ÉCOLE'] : [],
    );
  });

  test('`%`, `_` and `\\` are plain text, not wildcards', async () => {
    assert.deepEqual(
      (await found('%')).map((r) => r.title),
      ['Lake'],
    );
    assert.deepEqual(
      (await found('_')).map((r) => r.title),
      ['a_b'],
    );
    assert.deepEqual(await found('a%b'), []);
    assert.deepEqual(await found('\\'), []);
  });

  test('limit bounds the results; a layer is searched within its first ATTRIBUTES_SCAN_ROWS features', async () => {
    assert.equal((await found('parcel', 5)).length, 5);
    const parcels = await found('parcel', 50);
    assert.equal(parcels.length, SCAN_ROWS, 'the features past the bound are not read');
    assert.deepEqual(await found('hidden'), [], 'feature 25 lies beyond the bound');
  });

  test('a staged layer (its ingest not finished) is not searched', async () => {
    const db = t.database.db;
    const stageId = 'job-search-staged';
    await db.insertInto('staged_jobs').values({ job_id: stageId, room_id: room, created_at: Date.now() }).execute();
    await db.updateTable('layers').set({ job_id: stageId }).where('id', '=', layerId).execute();
    try {
      assert.deepEqual(
        (await found('aare')).map((r) => r.kind),
        ['drawing'],
      );
    } finally {
      await db.updateTable('layers').set({ job_id: null }).where('id', '=', layerId).execute();
      await db.deleteFrom('staged_jobs').where('job_id', '=', stageId).execute();
    }
  });

  test("the room's read access: viewers search; strangers hear 403, the anonymous 401; nothing of another room", async () => {
    assert.equal(assertOk(await search({ q: 'zytglogge' }, users.viewer.token)).results.length, 2);
    assertError(await search({ q: 'zytglogge' }, users.stranger.token), 403, 'forbidden');
    assertError(await search({ q: 'zytglogge' }, null), 401, 'unauthorized');
    assert.deepEqual(assertOk(await search({ q: 'zytglogge' }, users.owner.token, otherRoom)).results, []);
  });

  test('a q of spaces only, too long or missing, and a limit out of range are 400 naming them', async () => {
    assertFieldError(await search({ q: '   ' }), 'q');
    assertFieldError(await search({ q: 'x'.repeat(201) }), 'q');
    assertFieldError(await search({}), 'q');
    assertFieldError(await search({ q: 'a', limit: 0 }), 'limit');
    assertFieldError(await search({ q: 'a', limit: 51 }), 'limit');
    assertFieldError(await search({ q: 'a', other: 1 }), 'other');
  });
});
