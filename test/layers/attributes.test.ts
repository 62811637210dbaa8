/**
 * The attribute table: `GET /api/layers/:layerId/attributes`. Keyset pages walked to the end
 * hold every feature exactly once, in the order asked (the id, or a field with the features
 * lacking it last, both ways); `q` finds a text in the text fields, case-insensitively, also
 * when a page stops early at ATTRIBUTES_SCAN_ROWS; wrong parameters are 400 naming them; the
 * features' read access applies (another room's member hears 404). Only callers who may write
 * make the service build a field's sort index, at most 8 per layer; readers sort a small layer
 * by any field, a big one by the fields already indexed.
 * Decisions: docs/decisions.md ("The attribute table").
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError, assertFieldError, assertOk, call, scaffold, type TestApp, type Users } from '../helpers.js';
import { createInlineLayer, squareFeature } from '../support/layers.js';

const SCAN_ROWS = 4;
const COUNT = 30;

let t: TestApp;
let users: Users;
let room: string;
let publicRoom: string;
let layerId: string;

/** Feature i: a square at a known place; `score` missing on every 5th, null on every 7th; `kind` alpha on multiples of 3. */
const propertiesOf = (i: number): Record<string, unknown> => ({
  name: `place ${String(i).padStart(2, '0')}`,
  ...(i % 5 !== 0 && { score: i % 7 === 0 ? null : (i * 7) % 13 }),
  kind: i % 3 === 0 ? 'Alpha' : 'beta',
  tags: [i],
  code: 9000 + i,
});

before(async () => {
  ({ t, users, room, publicRoom } = await scaffold({
    rooms: ['room', 'otherRoom', 'publicRoom'],
    config: { attributesScanRows: SCAN_ROWS },
  }));
  const features = Array.from({ length: COUNT }, (_, i) =>
    squareFeature(7 + i * 0.1, 46 + (i % 4) * 0.1, 0.01, propertiesOf(i)),
  );
  layerId = (
    await createInlineLayer(t.app, room, users.owner.token, {
      name: 'Places',
      geojson: { type: 'FeatureCollection', features },
    })
  ).id;
});
after(async () => t?.close());

type Row = { id: number; properties: Record<string, any>; bbox: number[] };
type Page = { fields: { name: string; type: string }[]; rows: Row[]; next: string | null };

const url = (query: Record<string, string | number>) =>
  `/api/layers/${layerId}/attributes?${new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]))}`;
const page = async (query: Record<string, string | number>): Promise<Page> =>
  assertOk(await call(t.app, 'GET', url(query), { auth: users.owner.token }));

/** Every page from the first on, following `next`. */
async function walk(query: Record<string, string | number>): Promise<Page[]> {
  const pages = [await page(query)];
  while (pages.at(-1)!.next !== null) {
    pages.push(await page({ ...query, after: pages.at(-1)!.next! }));
    assert.ok(pages.length < 100, 'the pages end');
  }
  return pages;
}
const rowsOf = (pages: Page[]) => pages.flatMap((p) => p.rows);
/** The feature's index (from its name) for each row. */
const indexes = (rows: Row[]) => rows.map((r) => Number(r.properties.name.slice(6)));

describe('GET /api/layers/:layerId/attributes', () => {
  test('the fields typed, and every feature once in id order over pages, with its properties and bbox', async () => {
    const pages = await walk({ limit: 7 });
    assert.deepEqual(pages[0]!.fields, [
      { name: 'name', type: 'string' },
      { name: 'score', type: 'integer' },
      { name: 'kind', type: 'string' },
      { name: 'tags', type: 'json' },
      { name: 'code', type: 'integer' },
    ]);
    assert.deepEqual(
      pages.map((p) => p.rows.length),
      [7, 7, 7, 7, 2],
    );
    const rows = rowsOf(pages);
    const ids = rows.map((r) => r.id);
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => a - b),
      'ascending ids',
    );
    assert.equal(new Set(ids).size, COUNT);
    assert.deepEqual(
      indexes(rows).sort((a, b) => a - b),
      Array.from({ length: COUNT }, (_, i) => i),
    );
    for (const row of rows) {
      const i = Number(row.properties.name.slice(6));
      assert.deepEqual(row.properties, propertiesOf(i));
      const [w, s, e, n] = row.bbox;
      assert.ok(
        Math.abs(w! - (7 + i * 0.1 - 0.01)) < 1e-4 && Math.abs(n! - (46 + (i % 4) * 0.1 + 0.01)) < 1e-4,
        `bbox of ${i}`,
      );
      assert.ok(e! > w! && n! > s!);
    }
    const down = rowsOf(await walk({ limit: 8, order: 'desc' })).map((r) => r.id);
    assert.deepEqual(down, [...ids].reverse());
  });

  test('sorted by a field both ways: values in order, features without one last, none lost or repeated', async () => {
    const withScore = Array.from({ length: COUNT }, (_, i) => i).filter((i) => propertiesOf(i).score != null);
    for (const order of ['asc', 'desc'] as const) {
      for (const limit of [1, 4, 50]) {
        const rows = rowsOf(await walk({ sort: 'score', order, limit }));
        const at = indexes(rows);
        assert.equal(new Set(at).size, COUNT, `${order}/${limit}: every feature once`);
        const scores = rows.slice(0, withScore.length).map((r) => r.properties.score as number);
        const sorted = [...scores].sort((a, b) => (order === 'asc' ? a - b : b - a));
        assert.deepEqual(scores, sorted, `${order}/${limit}: scores in order`);
        assert.deepEqual(new Set(at.slice(0, withScore.length)), new Set(withScore), `${order}/${limit}: valued first`);
        assert.ok(
          rows.slice(withScore.length).every((r) => r.properties.score == null),
          'then the rest',
        );
      }
    }
    const byName = indexes(rowsOf(await walk({ sort: 'name', order: 'desc', limit: 6 })));
    assert.deepEqual(
      byName,
      Array.from({ length: COUNT }, (_, i) => COUNT - 1 - i),
    );
  });

  test('q finds a text in any text field, case-insensitively, across short pages', async () => {
    const alpha = Array.from({ length: COUNT }, (_, i) => i).filter((i) => i % 3 === 0);
    const pages = await walk({ q: 'aLp', limit: 3 });
    assert.deepEqual(
      indexes(rowsOf(pages)).sort((a, b) => a - b),
      alpha,
    );
    assert.ok(
      pages.some((p) => p.rows.length < 3 && p.next !== null),
      'a page stops after ATTRIBUTES_SCAN_ROWS rows, short, with a next',
    );
    const sorted = rowsOf(await walk({ q: 'alpha', sort: 'score', order: 'desc', limit: 2 }));
    assert.deepEqual(
      indexes(sorted).sort((a, b) => a - b),
      alpha,
    );
    assert.deepEqual(
      indexes(rowsOf(await walk({ q: 'place 1' }))).sort((a, b) => a - b),
      [10, 11, 12, 13, 14, 15, 16, 17, 18, 19],
    );
    assert.deepEqual(rowsOf(await walk({ q: '%' })), [], 'no pattern characters');
    assert.deepEqual(rowsOf(await walk({ q: '9012' })), [], 'a text of a number field is not searched');
  });

  test('wrong parameters are 400 naming them', async () => {
    const get = (query: Record<string, string | number>) => call(t.app, 'GET', url(query), { auth: users.owner.token });
    assertFieldError(await get({ sort: 'colour' }), 'querystring.sort');
    assertFieldError(await get({ sort: 'tags' }), 'querystring.sort');
    assertFieldError(await get({ order: 'up' }), 'order');
    assertFieldError(await get({ limit: 0 }), 'limit');
    assertFieldError(await get({ limit: 501 }), 'limit');
    assertFieldError(await get({ colour: 'red' }), 'colour');
    assertFieldError(await get({ after: 'not-a-cursor' }), 'querystring.after');
    const first = await page({ sort: 'score', limit: 2 });
    assertFieldError(await get({ sort: 'name', limit: 2, after: first.next! }), 'querystring.after');
    assertFieldError(await get({ sort: 'score', order: 'desc', limit: 2, after: first.next! }), 'querystring.after');
    const forged = Buffer.from(JSON.stringify(['score', 'asc', { a: 1 }, 3])).toString('base64url');
    assertFieldError(await get({ sort: 'score', after: forged }), 'querystring.after');
    // The id is a number: a cursor of the id sort holding another value is refused, not sent to the database.
    for (const value of ['abc', true, 1.5, 1e300]) {
      const forgedId = Buffer.from(JSON.stringify(['id', 'asc', value, 3])).toString('base64url');
      assertFieldError(await get({ after: forgedId }), 'querystring.after');
    }
    // A field's cursor of any scalar is compared (never an error), whatever type the field has.
    for (const value of [true, 'x', 2.5]) {
      const other = Buffer.from(JSON.stringify(['score', 'asc', value, 3])).toString('base64url');
      assertOk(await get({ sort: 'score', after: other }));
    }
  });

  test("the features' read access: a member of another room and a missing layer hear 404", async () => {
    const other = await call(t.app, 'GET', url({}), { auth: users.stranger.token });
    assertError(other, 404, 'not_found');
    const missing = await call(t.app, 'GET', '/api/layers/layer-nothere/attributes', { auth: users.owner.token });
    assertError(missing, 404, 'not_found');
    assertError(await call(t.app, 'GET', url({})), 404, 'not_found');
  });

  test("only a caller who may write builds a field's sort index; readers sort by indexed fields, or any on a small layer", async () => {
    const sortBy = (layer: string, field: string, auth?: string) =>
      call(t.app, 'GET', `/api/layers/${layer}/attributes?sort=${field}&limit=3`, auth ? { auth } : {});
    // A public room's layer of more than ATTRIBUTES_SCAN_ROWS features, no field indexed yet.
    const features = Array.from({ length: SCAN_ROWS + 2 }, (_, i) =>
      squareFeature(
        7 + i * 0.1,
        46,
        0.01,
        Object.fromEntries(Array.from({ length: 10 }, (_, f) => [`f${f}`, (i * (f + 3)) % 7])),
      ),
    );
    const big = (
      await createInlineLayer(t.app, publicRoom, users.owner.token, {
        name: 'Wide',
        geojson: { type: 'FeatureCollection', features },
      })
    ).id;
    // An anonymous reader and a viewer of the private room: refused, naming sort, nothing built.
    const anonymous = await sortBy(big, 'f0');
    assertFieldError(anonymous, 'querystring.sort');
    assert.match(JSON.stringify(anonymous.json()), /no sort index.*may edit the room/);
    assertFieldError(await sortBy(layerId, 'code', users.viewer.token), 'querystring.sort');
    assertFieldError(await sortBy(big, 'f0'), 'querystring.sort'); // still not built by a reader
    // The id sort needs no index.
    assertOk(await sortBy(big, 'id'));
    // A writer's sort builds it; then readers sort by that field too, in order.
    assertOk(await sortBy(layerId, 'code', users.editor.token));
    const codes = (assertOk(await sortBy(layerId, 'code', users.viewer.token)) as Page).rows.map(
      (r) => r.properties.code,
    );
    assert.deepEqual(codes, [9000, 9001, 9002]);
    assertOk(await sortBy(big, 'f0', users.owner.token));
    const values = (assertOk(await sortBy(big, 'f0')) as Page).rows.map((r) => r.properties.f0);
    assert.deepEqual(
      values,
      [...values].sort((a, b) => a - b),
    );
    // At most 8 fields of a layer get an index: the 9th sort is refused, even to the owner; indexed ones go on.
    for (let f = 1; f < 8; f++) assertOk(await sortBy(big, `f${f}`, users.owner.token));
    const ninth = await sortBy(big, 'f8', users.owner.token);
    assertFieldError(ninth, 'querystring.sort');
    assert.match(JSON.stringify(ninth.json()), /8 fields/);
    assertOk(await sortBy(big, 'f7'));
    // A layer of at most ATTRIBUTES_SCAN_ROWS features: any reader sorts by any field (read whole, no index).
    const small = (
      await createInlineLayer(t.app, publicRoom, users.owner.token, {
        name: 'Few',
        geojson: { type: 'FeatureCollection', features: features.slice(0, SCAN_ROWS) },
      })
    ).id;
    const few = (assertOk(await sortBy(small, 'f9')) as Page).rows.map((r) => r.properties.f9);
    assert.deepEqual(
      few,
      [...few].sort((a, b) => a - b),
    );
  });
});
