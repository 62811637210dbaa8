/**
 * Feature properties whose names hold a quote, an apostrophe, a backslash or path characters
 * (an uploaded file names them): the attribute table searches and sorts by them, and the OGC
 * API filters on them, each finding exactly its own values, never a 500 nor another key's.
 * On SQLite each name becomes a JSON path (src/modules/layers/json-path.ts), on PostgreSQL a
 * jsonb key; a sort by one also becomes an index expression.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertOk, call, scaffold, type TestApp, type Users } from '../helpers.js';
import { createInlineLayer, squareFeature } from '../support/layers.js';

/** `say "hi"` and `say` both: a quote cut short would read the other one. */
const NAMES = ['say "hi"', 'say', "it's", 'back\\', 'a.b[0]', '$', 'tab\there'] as const;
const COUNT = 6;

let t: TestApp;
let users: Users;
let room: string;
let layerId: string;

before(async () => {
  ({ t, users, room } = await scaffold());
  const features = Array.from({ length: COUNT }, (_, i) =>
    squareFeature(7 + i * 0.1, 46, 0.01, Object.fromEntries(NAMES.map((name) => [name, `${name} ${i}`]))),
  );
  layerId = (
    await createInlineLayer(t.app, room, users.owner.token, {
      name: 'Odd names',
      geojson: { type: 'FeatureCollection', features },
    })
  ).id;
});
after(async () => t?.close());

type Row = { properties: Record<string, string> };
const get = (path: string, query: Record<string, string>) =>
  call(t.app, 'GET', `${path}?${new URLSearchParams(query)}`, { auth: users.owner.token });
const attributes = (query: Record<string, string>) => get(`/api/layers/${layerId}/attributes`, query);

test('the attribute table searches each such field and sorts by it', async () => {
  const all: { fields: { name: string }[] } = assertOk(await attributes({}));
  assert.deepEqual(
    all.fields.map((f) => f.name),
    [...NAMES],
  );
  for (const name of NAMES) {
    const found: { rows: Row[] } = assertOk(await attributes({ q: `${name} 3` }));
    assert.deepEqual(
      found.rows.map((r) => r.properties[name]),
      [`${name} 3`],
      `q in ${JSON.stringify(name)}`,
    );
    const sorted: { rows: Row[] } = assertOk(await attributes({ sort: name, order: 'desc' }));
    assert.deepEqual(
      sorted.rows.map((r) => r.properties[name]),
      Array.from({ length: COUNT }, (_, i) => `${name} ${COUNT - 1 - i}`),
      `sorted by ${JSON.stringify(name)}`,
    );
  }
});

test('the OGC API filters on each such field', async () => {
  for (const name of NAMES) {
    const found: { features: Row[] } = assertOk(
      await get(`/api/rooms/${room}/ogc/collections/${layerId}/items`, { [name]: `${name} 4` }),
    );
    assert.deepEqual(
      found.features.map((f) => f.properties[name]),
      [`${name} 4`],
      `filter on ${JSON.stringify(name)}`,
    );
  }
});
