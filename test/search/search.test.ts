/**
 * Finding a text in a room: `GET /api/rooms/:roomId/search`. Markers by title or description,
 * drawings by label, features by any text field, case-insensitively and as plain text (LIKE's
 * wildcards match themselves); a staged layer is not searched; each layer within its first
 * ATTRIBUTES_SCAN_ROWS features, and a layer cut there is named (`partialLayers`); the first
 * MAX_LAYERS_SEARCHED layers only; the room's read access (another room's member, a stranger of
 * a private room); a bad `q` or `limit` is 400 naming it; SEARCH_RATE_LIMIT_PER_MINUTE, then 429.
 * Decisions: docs/decisions.md ("Find").
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  assertError,
  assertFieldError,
  assertOk,
  call,
  createRoom,
  scaffold,
  TEST_DB,
  type TestApp,
  type Users,
} from '../helpers.js';
import { sql } from 'kysely';
import { loadConfig } from '../../src/config.js';
import { featuresTable, indexTable } from '../../src/modules/layers/feature-writers.js';
import { MAX_LAYERS_SEARCHED } from '../../src/modules/search/search.service.js';
import { createInlineLayer, squareFeature } from '../support/layers.js';

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
    // Which feature it is: another naming field's value and its id (many may share the text matched).
    assert.equal(feature.detail, `Parcels · owner · Parcel 3 (feature ${feature.id})`);
    // Found by its name: no other field names it, its id does.
    const [byName] = (await found('parcel 2')).filter((r) => r.kind === 'feature');
    assert.equal(byName?.detail, `Parcels · name · feature ${byName?.id}`);
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

  test('a layer searched only within its window is named in partialLayers; its attribute table finds the rest', async () => {
    const partial = [{ layerId, name: 'Parcels', featureCount: 30, searched: SCAN_ROWS }];
    const hidden = assertOk(await search({ q: 'hidden' }));
    assert.deepEqual(hidden, { results: [], partialLayers: partial }, 'nothing found, but the layer was cut');
    assert.deepEqual(
      assertOk(await search({ q: 'parcel', limit: 50 })).partialLayers,
      partial,
      'cut with results too, when the window ended before the limit',
    );
    assert.deepEqual(
      assertOk(await search({ q: 'parcel', limit: 5 })).partialLayers,
      [],
      'a full answer ended at the limit, not at the window',
    );
    assert.deepEqual(
      assertOk(await search({ q: 'zytglogge', limit: 2 })).partialLayers,
      [],
      'markers filled the answer: no layer was read',
    );
    // What the page offers for the cut layer: its attribute table's `q`, followed through `next`.
    const rows: { properties: Record<string, unknown> }[] = [];
    let after: string | null = null;
    for (let pages = 0; pages < 10; pages++) {
      const query = new URLSearchParams({ q: 'hidden', ...(after && { after }) });
      const page = assertOk(
        await call(t.app, 'GET', `/api/layers/${layerId}/attributes?${query}`, { auth: users.owner.token }),
      );
      rows.push(...page.rows);
      after = page.next;
      if (after === null) break;
    }
    assert.deepEqual(
      rows.map((r) => r.properties.name),
      ['Parcel 25'],
    );
  });

  test(`the first ${MAX_LAYERS_SEARCHED} vector layers (in the room's order) are searched, not more; small layers are not cut`, async () => {
    // One layer ingested, then copied (its row and its tables) 20 times: an ingest takes a GDAL
    // run, 21 of them most of a minute.
    const crowded = await createRoom(t.app, users.owner);
    const first = await createInlineLayer(t.app, crowded, users.owner.token, {
      name: 'Layer 0',
      geojson: { type: 'FeatureCollection', features: [squareFeature(7, 46, 0.001, { name: 'needle' })] },
    });
    const db = t.database.db;
    const row = await db.selectFrom('layers').selectAll().where('id', '=', first.id).executeTakeFirstOrThrow();
    const key = Number(row.storage_key);
    for (let i = 1; i <= MAX_LAYERS_SEARCHED; i++) {
      const copy = key + i;
      await sql`CREATE TABLE ${sql.table(featuresTable(copy))} AS SELECT * FROM ${sql.table(featuresTable(key))}`.execute(
        db,
      );
      if (TEST_DB === 'sqlite') {
        await sql`CREATE VIRTUAL TABLE ${sql.table(indexTable(copy))}
          USING rtree(row, min_lon, max_lon, min_lat, max_lat, minzoom, minzoom_)`.execute(db);
        await sql`INSERT INTO ${sql.table(indexTable(copy))} SELECT * FROM ${sql.table(indexTable(key))}`.execute(db);
      }
      await db
        .insertInto('layers')
        .values({
          ...row,
          id: `${first.id}-${i}`,
          name: `Layer ${i}`,
          storage_key: copy,
          created_at: row.created_at + i,
        })
        .execute();
    }
    const layers: { id: string; name: string }[] = assertOk(
      await call(t.app, 'GET', `/api/layers/${crowded}`, { auth: users.owner.token }),
    ).layers;
    assert.deepEqual(
      layers.map((l) => l.name),
      Array.from({ length: MAX_LAYERS_SEARCHED + 1 }, (_, i) => `Layer ${i}`),
    );
    const answer = assertOk(await search({ q: 'needle', limit: 50 }, users.owner.token, crowded));
    assert.deepEqual(
      answer.results.map((r: Result) => r.layerId),
      layers.slice(0, MAX_LAYERS_SEARCHED).map((l) => l.id),
      `the feature in each of the first ${MAX_LAYERS_SEARCHED} layers, in their order; not in the last`,
    );
    assert.deepEqual(answer.partialLayers, [], 'layers within the window are not cut');
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

describe('the search rate limit', () => {
  let limited: TestApp;
  let roomId: string;
  let token: string;
  before(async () => {
    const s = await scaffold({ users: ['owner'], rooms: ['otherRoom'], config: { searchRateLimitPerMinute: 2 } });
    limited = s.t;
    roomId = s.otherRoom;
    token = s.users.owner.token;
  });
  after(async () => limited?.close());

  test('SEARCH_RATE_LIMIT_PER_MINUTE searches per client and minute (600 unless set), then 429 too_many_requests', async () => {
    assert.equal(loadConfig({}).searchRateLimitPerMinute, 600);
    assert.equal(loadConfig({ SEARCH_RATE_LIMIT_PER_MINUTE: '7' }).searchRateLimitPerMinute, 7);
    const ask = () => call(limited.app, 'GET', `/api/rooms/${roomId}/search?q=bern`, { auth: token });
    assertOk(await ask());
    assertOk(await ask());
    assertError(await ask(), 429, 'too_many_requests', 'Too many requests; retry later');
    // The OpenAPI document names this service's limit, not the default.
    const document = limited.app.swagger() as { paths: Record<string, { get: { description: string } }> };
    assert.match(document.paths['/api/rooms/{roomId}/search']!.get.description, /PER_MINUTE \(2 on this service\)/);
  });
});
