/**
 * OGC API – Features over HTTP: the documents (landing page, conformance, the room's OpenAPI
 * 3.0 document, collections with extents and the links the standard requires, the JSON schema
 * of a layer's fields), paging by `next` links (every feature once, `numberMatched` on every
 * page, a larger limit served as 10,000), property filters by equality (each request reading
 * at most OGC_SCAN_ROWS rows, set low here: short pages with next links, no numberMatched),
 * `datetime` on markers,
 * single features, and the refusals (a bad bbox, another bbox-crs, a forged cursor, an unknown
 * parameter, datetime on a layer) as the service's error body.
 * Contract: docs/decisions.md ("OGC API – Features").
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { up as addPagingIndexes } from '../../src/db/migrations/0011_ogc_paging_indexes.js';
import { assertError, assertFieldError, assertOk, call, scaffold, type TestApp, type Users } from '../helpers.js';
import { type Layer, storageKeyOf } from '../support/layers.js';
import { makeParcels, uploadOneLayer } from '../support/ogc.js';

const COUNT = 2_500;
/** The most rows a filtered request reads (OGC_SCAN_ROWS), far below COUNT so that filters end pages early. */
const SCAN_ROWS = 400;
let t: TestApp;
let users: Users;
let room: string;
let layer: Layer;
let parcels: ReturnType<typeof makeParcels>;
const markerDates = [Date.UTC(2024, 0, 1), Date.UTC(2024, 5, 15, 12), Date.UTC(2025, 2, 1), null];

before(async () => {
  parcels = makeParcels(COUNT);
  ({ t, users, room } = await scaffold({ config: { ogcScanRows: SCAN_ROWS } }));
  layer = await uploadOneLayer(t.app, room, parcels.file, users.owner.token);
  for (const [i, eventDate] of markerDates.entries())
    assertOk(
      await call(t.app, 'POST', `/api/rooms/${room}/markers`, {
        auth: users.owner.token,
        body: { latitude: 46 + i, longitude: 7 + i, title: `M${i}`, ...(eventDate !== null && { eventDate }) },
      }),
      201,
    );
});
after(async () => {
  await t?.close();
  parcels?.remove();
});

const ogc = (path = '') => `/api/rooms/${room}/ogc${path}`;
const get = (url: string, auth: string | undefined = users.viewer.token) => call(t.app, 'GET', url, { auth });
const items = (collection: string, query = '') =>
  get(ogc(`/collections/${collection}/items${query ? `?${query}` : ''}`));
const relOf = (body: { links: { rel: string; href: string; type?: string }[] }, rel: string) =>
  body.links.find((link) => link.rel === rel);

test('the landing page links the OpenAPI 3.0 document, the conformance classes and the collections', async () => {
  const landing = assertOk(await get(ogc()));
  const host = 'http://localhost:80';
  assert.equal(relOf(landing, 'service-desc')?.href, `${host}${ogc('/api')}`);
  assert.equal(relOf(landing, 'service-desc')?.type, 'application/vnd.oai.openapi+json;version=3.0');
  assert.equal(relOf(landing, 'conformance')?.href, `${host}${ogc('/conformance')}`);
  assert.equal(relOf(landing, 'data')?.href, `${host}${ogc('/collections')}`);
  assert.deepEqual(assertOk(await get(ogc('/conformance'))).conformsTo, [
    'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core',
    'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson',
    'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/oas30',
    'http://www.opengis.net/spec/ogcapi-features-4/1.0/conf/create-replace-delete',
    'http://www.opengis.net/spec/ogcapi-features-4/1.0/conf/update',
    'http://www.opengis.net/spec/ogcapi-features-4/1.0/conf/optimistic-locking-etags',
  ]);
  const api = await get(ogc('/api'));
  assert.match(api.headers['content-type'] as string, /^application\/vnd\.oai\.openapi\+json; ?version="?3\.0/);
  const doc = api.json();
  assert.equal(doc.openapi, '3.0.3');
  const limit = doc.paths['/collections/{collectionId}/items'].get.parameters.find(
    (p: { name: string }) => p.name === 'limit',
  );
  assert.deepEqual(limit.schema, { type: 'integer', minimum: 1, maximum: 10000, default: 100 });
  assert.deepEqual(doc.paths['/collections/{collectionId}'].get.parameters[0].schema.enum, [
    'markers',
    'drawings',
    layer.id,
  ]);
});

test('collections: markers, drawings and the layer, each with its extent, item type and the required links', async () => {
  const { collections } = assertOk(await get(ogc('/collections')));
  assert.deepEqual(
    collections.map((c: { id: string }) => c.id),
    ['markers', 'drawings', layer.id],
  );
  const parcelsCollection = collections[2];
  assert.equal(parcelsCollection.title, 'Parcels');
  assert.equal(parcelsCollection.itemType, 'feature');
  assert.deepEqual(parcelsCollection.extent.spatial.bbox, [layer.bbox]);
  assert.deepEqual(parcelsCollection.links.map((l: { rel: string }) => l.rel).sort(), [
    'alternate',
    'describedby',
    'items',
    'self',
  ]);
  const markers = collections[0];
  assert.deepEqual(markers.extent.spatial.bbox, [[7, 46, 10, 49]]);
  assert.deepEqual(markers.extent.temporal.interval, [['2024-01-01T00:00:00.000Z', '2025-03-01T00:00:00.000Z']]);
  assert.equal(collections[1].extent, undefined, 'no drawings, no extent');
  assert.deepEqual(assertOk(await get(ogc(`/collections/${layer.id}`))), parcelsCollection);
  const schema = assertOk(await get(relOf(parcelsCollection, 'describedby')!.href.replace('http://localhost:80', '')));
  assert.deepEqual(schema.properties.properties.properties, {
    name: { type: 'string' },
    code: { type: 'integer' },
    big: { type: 'integer' },
    height: { type: 'number' },
    flag: { type: 'boolean' },
    built: { type: 'string', format: 'date' },
  });
});

/** Follows `next` links from `first`; answers every page. */
async function allPages(first: string) {
  const pages = [];
  let url: string | undefined = first;
  while (url) {
    const res = await get(url);
    assert.match(res.headers['content-type'] as string, /^application\/geo\+json/);
    const page = assertOk(res);
    pages.push(page);
    url = relOf(page, 'next')?.href.replace('http://localhost:80', '');
    assert.ok(pages.length < 1000, 'paging ends');
  }
  return pages;
}

test('paging by next links: every feature exactly once, numberMatched on every page, numberReturned per page', async () => {
  const pages = await allPages(ogc(`/collections/${layer.id}/items?limit=700`));
  assert.deepEqual(
    pages.map((p) => p.numberReturned),
    [700, 700, 700, 400],
  );
  assert.ok(pages.every((p) => p.numberMatched === COUNT && p.features.length === p.numberReturned));
  const codes = pages.flatMap((p) => p.features.map((f: { properties: { code: number } }) => f.properties.code));
  assert.equal(new Set(codes).size, COUNT);
  // The default page is 100; a limit above 10,000 is served as 10,000 (here: the whole layer, no next link).
  assert.equal(assertOk(await items(layer.id)).numberReturned, 100);
  const big = assertOk(await items(layer.id, 'limit=50000'));
  assert.equal(big.numberReturned, COUNT);
  assert.equal(relOf(big, 'next'), undefined);
});

type ParcelFeature = { id: number; geometry: { coordinates: number[][][] }; properties: Record<string, unknown> };
const codesOf = (features: ParcelFeature[]) => features.map((f) => f.properties.code as number).sort((a, b) => a - b);
const touches = (f: ParcelFeature, [w, s, e, n]: number[]) => {
  const lons = f.geometry.coordinates[0]!.map((c) => c[0]!);
  const lats = f.geometry.coordinates[0]!.map((c) => c[1]!);
  return Math.max(...lons) >= w! && Math.min(...lons) <= e! && Math.max(...lats) >= s! && Math.min(...lats) <= n!;
};

test('property filters read at most OGC_SCAN_ROWS rows a request: short pages with next links, each match once, uncounted', async () => {
  // The whole layer unfiltered in one page (an unfiltered walk is not bounded) is what the filters are checked against.
  const all: ParcelFeature[] = assertOk(await items(layer.id, 'limit=10000')).features;
  assert.equal(all.length, COUNT);
  const bbox = [6.5, 46, 8, 47];
  const pages = await allPages(ogc(`/collections/${layer.id}/items?bbox=${bbox}&flag=true&limit=60`));
  const features: ParcelFeature[] = pages.flatMap((p) => p.features);
  const expected = all.filter((f) => f.properties.flag === true && touches(f, bbox));
  assert.ok(expected.length > 60, 'more than a page');
  assert.deepEqual(codesOf(features), codesOf(expected), 'every match exactly once');
  assert.ok(pages.every((p) => !('numberMatched' in p) && p.features.length === p.numberReturned));
  assert.ok(
    pages.some((p) => p.numberReturned < 60 && relOf(p, 'next')),
    'a page ended early at the scan bound still links the next',
  );
  assert.ok(relOf(pages[0], 'next')!.href.includes('flag=true'), 'the next link keeps the filters');

  // One match in 2,500 rows: pages of no features with next links until the scan reaches it, then on to the end.
  const one = await allPages(ogc(`/collections/${layer.id}/items?code=42`));
  assert.deepEqual(codesOf(one.flatMap((p) => p.features)), [42]);
  assert.equal(one.length, Math.ceil(COUNT / SCAN_ROWS), 'each request read SCAN_ROWS rows, the last the rest');
  assert.ok(one.some((p) => p.numberReturned === 0 && relOf(p, 'next')));
  assert.ok(one.every((p) => !('numberMatched' in p)));
  assert.equal(relOf(one.at(-1), 'next'), undefined);
  const byName = (query: string) => allPages(ogc(`/collections/${layer.id}/items?${query}`));
  assert.equal((await byName('name=Parzelle%2043%20%C3%BC&height=10.875')).flatMap((p) => p.features).length, 1);
  assert.equal((await byName('name=Parzelle%2043%20%C3%BC&height=11')).flatMap((p) => p.features).length, 0);
});

test('a bbox alone is counted up to OGC_SCAN_ROWS on the first page, the count carried to the next; a larger one is not', async () => {
  const all: ParcelFeature[] = assertOk(await items(layer.id, 'limit=10000')).features;
  const small = [7, 46.5, 7.5, 47];
  const inSmall = all.filter((f) => touches(f, small)).length;
  assert.ok(inSmall > 20 && inSmall <= SCAN_ROWS, `${inSmall}`);
  const pages = await allPages(ogc(`/collections/${layer.id}/items?bbox=${small}&limit=20`));
  assert.ok(pages.length > 1 && pages.every((p) => p.numberMatched === inSmall));
  assert.equal(pages.flatMap((p) => p.features).length, inSmall);
  const large = [6, 45.9, 9.5, 47.8];
  const inLarge = all.filter((f) => touches(f, large));
  assert.ok(inLarge.length > SCAN_ROWS && inLarge.length < COUNT, `${inLarge.length}`);
  const largePages = await allPages(ogc(`/collections/${layer.id}/items?bbox=${large}&limit=1000`));
  assert.ok(largePages.every((p) => !('numberMatched' in p)));
  assert.deepEqual(codesOf(largePages.flatMap((p) => p.features)), codesOf(inLarge));
});

test('one feature by its id: a layer feature by its integer id, a marker by its id; others are 404', async () => {
  const [first] = (await allPages(ogc(`/collections/${layer.id}/items?code=3`))).flatMap((p) => p.features);
  const feature = assertOk(await get(ogc(`/collections/${layer.id}/items/${first.id}`)));
  assert.equal(feature.properties.code, 3);
  assert.deepEqual(feature.geometry, first.geometry);
  assert.ok(relOf(feature, 'collection'));
  const marker = assertOk(await items('markers', 'limit=1')).features[0];
  assert.equal(
    assertOk(await get(ogc(`/collections/markers/items/${marker.id}`))).properties.title,
    marker.properties.title,
  );
  assertError(await get(ogc(`/collections/${layer.id}/items/99999999`)), 404, 'not_found');
  assertError(await get(ogc(`/collections/${layer.id}/items/not-a-number`)), 404, 'not_found');
  assertError(await get(ogc('/collections/markers/items/marker-absent')), 404, 'not_found');
  assertError(await get(ogc('/collections/layer-absent/items')), 404, 'not_found');
});

test('datetime selects markers by eventDate: an instant, a day, closed and open intervals', async () => {
  const titles = async (datetime: string) =>
    assertOk(await items('markers', `datetime=${encodeURIComponent(datetime)}`))
      .features.map((f: { properties: { title: string } }) => f.properties.title)
      .sort();
  assert.deepEqual(await titles('2024-06-15T12:00:00Z'), ['M1']);
  assert.deepEqual(await titles('2024-06-15'), ['M1']);
  assert.deepEqual(await titles('2024-01-01T00:00:00Z/2024-12-31T23:59:59Z'), ['M0', 'M1']);
  assert.deepEqual(await titles('../2024-03-01T00:00:00Z'), ['M0']);
  assert.deepEqual(await titles('2024-03-01T00:00:00Z/..'), ['M1', 'M2']);
  assert.equal(assertOk(await items('markers')).numberMatched, 4, 'without datetime, markers without a date too');
});

test('refusals are 400 validation_error naming the parameter', async () => {
  assertFieldError(await items(layer.id, 'bbox=1,2,3'), 'querystring.bbox');
  assertFieldError(await items(layer.id, 'bbox=1,2,x,4'), 'querystring.bbox');
  assertFieldError(await items(layer.id, 'bbox=10,2,3,4'), 'querystring.bbox');
  assertFieldError(
    await items(layer.id, 'bbox=1,2,3,4&bbox-crs=http://www.opengis.net/def/crs/EPSG/0/2056'),
    'querystring.bbox-crs',
  );
  assertFieldError(await items(layer.id, 'cursor=forged'), 'querystring.cursor');
  assertFieldError(
    await items('markers', `cursor=${Buffer.from('[5,1]').toString('base64url')}`),
    'querystring.cursor',
  );
  assertFieldError(await items(layer.id, 'colour=red'), 'querystring.colour');
  assertFieldError(await items(layer.id, 'code=4.5'), 'querystring.code');
  assertFieldError(await items(layer.id, 'flag=yes'), 'querystring.flag');
  assertFieldError(await items(layer.id, 'datetime=2024-01-01'), 'querystring.datetime');
  assertFieldError(await items('markers', 'title=M1'), 'querystring.title');
  assertFieldError(await items('markers', 'datetime=yesterday'), 'querystring.datetime');
  assertFieldError(await items('markers', 'datetime=2025-01-01/2024-01-01'), 'querystring.datetime');
  assertFieldError(await items('markers', 'limit=0'), 'querystring.limit');
});

test("the ingest indexes the features' ids, and migration 0011 indexes the ids of a layer that has no index", async () => {
  const index = `layer_${await storageKeyOf(t, layer.id)}_features_id`;
  const db = t.database.db;
  const exists = async () =>
    (
      await (t.database.dialect === 'sqlite'
        ? sql`SELECT name FROM sqlite_master WHERE type = 'index' AND name = ${index}`
        : sql`SELECT indexname FROM pg_indexes WHERE indexname = ${index}`
      ).execute(db)
    ).rows.length === 1;
  assert.ok(await exists(), 'made by the ingest');
  await sql`DROP INDEX ${sql.id(index)}`.execute(db);
  assert.equal(await exists(), false);
  await addPagingIndexes(db, t.database.dialect);
  assert.ok(await exists(), 'made by the migration');
});

test('drawings: all in `drawings`, each kind in its own collection (listed once the room has one), with its geometry type declared', async () => {
  const square = [
    [
      [7, 46],
      [7.1, 46],
      [7.1, 46.1],
      [7, 46],
    ],
  ];
  const { drawing } = assertOk(
    await call(t.app, 'POST', `/api/rooms/${room}/drawings`, {
      auth: users.owner.token,
      body: { geometry: { type: 'Polygon', coordinates: square }, label: 'Area' },
    }),
    201,
  );
  const { collections } = assertOk(await get(ogc('/collections')));
  assert.deepEqual(
    collections.map((c: { id: string }) => c.id),
    ['markers', 'drawings', 'drawings-polygons', layer.id],
  );
  assert.deepEqual(collections[2].extent.spatial.bbox, [[7, 46, 7.1, 46.1]]);
  // A kind the room has none of is still answered (a saved connection keeps working), empty.
  const points = assertOk(await get(ogc('/collections/drawings-points')));
  assert.equal(points.extent, undefined);
  assert.equal(assertOk(await items('drawings-points')).numberMatched, 0);
  const polygons = assertOk(await items('drawings-polygons'));
  assert.deepEqual(
    polygons.features.map((f: { id: string }) => f.id),
    [drawing.id],
  );
  assertOk(await get(ogc(`/collections/drawings-polygons/items/${drawing.id}`)));
  assertError(await get(ogc(`/collections/drawings-lines/items/${drawing.id}`)), 404, 'not_found');
  // The schema (describedby) declares the geometry type, as OGC API – Features Part 5 names it.
  const schema = (id: string) => get(ogc(`/collections/${id}/schema`)).then((res) => res.json().properties.geometry);
  assert.deepEqual(await schema('drawings-polygons'), {
    $ref: 'https://geojson.org/schema/Polygon.json',
    format: 'geometry-polygon',
    'x-ogc-role': 'primary-geometry',
  });
  assert.equal((await schema('drawings')).format, 'geometry-any');
  assert.equal((await schema('markers')).format, 'geometry-point');
  assert.equal((await schema(layer.id)).format, 'geometry-polygon-or-multipolygon');
});

test("markers' tags are the text of a JSON array (one type on every feature, whatever a client's first page holds)", async () => {
  const { marker } = assertOk(
    await call(t.app, 'POST', `/api/rooms/${room}/markers`, {
      auth: users.owner.token,
      body: { latitude: 45, longitude: 6, title: 'Tagged', tags: ['a', 'b'] },
    }),
    201,
  );
  const page = assertOk(await items('markers'));
  const tags = new Map(
    page.features.map((f: { id: string; properties: { tags: unknown } }) => [f.id, f.properties.tags]),
  );
  assert.equal(tags.get(marker.id), '["a","b"]');
  assert.ok(
    [...tags].every(([id, value]) => id === marker.id || value === null),
    'untagged: null',
  );
  const schema = assertOk(await get(ogc('/collections/markers/schema')));
  assert.equal(schema.properties.properties.properties.tags.type, 'string');
});
