/**
 * OGC API – Features for every room, with GDAL itself as the client over a real TCP port:
 * `ogrinfo OAPIF:` lists the room's collections with their feature counts and fields,
 * `ogr2ogr` copies a 10,000-feature layer to a GeoPackage equal to the source (every feature,
 * every attribute, every geometry), a bbox read equals GDAL's own `-spat` on the source file,
 * and the credential goes as `GDAL_HTTP_HEADERS` (a room token with read; none for a public
 * room, refused for a private one).
 * Contract: docs/decisions.md ("OGC API – Features").
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { assertOk, call, issueToken, scaffold, type TestApp, type Users } from '../helpers.js';
import type { Layer } from '../support/layers.js';
import { bearer, gdal, type GeoJsonFeature, makeParcels, readFeatures, uploadOneLayer } from '../support/ogc.js';

const COUNT = 10_000;
const SCAN_ROWS = 500;
let t: TestApp;
let users: Users;
let room: string;
let publicRoom: string;
let base: string;
let token: string;
let layer: Layer;
let parcels: ReturnType<typeof makeParcels>;

before(async () => {
  parcels = makeParcels(COUNT);
  let wsBase: string;
  ({ t, users, room, publicRoom, wsBase } = await scaffold({
    rooms: ['room', 'publicRoom'],
    listen: true,
    // Filtered requests read at most this many rows: GDAL must follow the short pages that ends.
    config: { ogcScanRows: SCAN_ROWS },
  }));
  base = wsBase.replace(/^ws/, 'http');
  ({ token } = await issueToken(t.app, users.owner, room, ['read']));
  layer = await uploadOneLayer(t.app, room, parcels.file, users.owner.token);
  for (const [latitude, longitude, eventDate] of [
    [46.95, 7.45, Date.UTC(2024, 0, 5)],
    [47.37, 8.54, null],
  ] as const)
    assertOk(
      await call(t.app, 'POST', `/api/rooms/${room}/markers`, {
        auth: users.owner.token,
        body: { latitude, longitude, title: 'Spot', tags: ['a', 'b'], ...(eventDate && { eventDate }) },
      }),
      201,
    );
  assertOk(
    await call(t.app, 'POST', `/api/rooms/${room}/drawings`, {
      auth: users.owner.token,
      body: {
        geometry: {
          type: 'LineString',
          coordinates: [
            [7.4, 46.9],
            [7.5, 47],
          ],
        },
        label: 'Path',
      },
    }),
    201,
  );
  await createPublicMarker();
});
after(async () => {
  await t?.close();
  parcels?.remove();
});

async function createPublicMarker() {
  assertOk(
    await call(t.app, 'POST', `/api/rooms/${publicRoom}/markers`, {
      auth: users.owner.token,
      body: { latitude: 46.2, longitude: 6.15, title: 'Geneva' },
    }),
    201,
  );
}

const endpoint = (roomId = room) => `OAPIF:${base}/api/rooms/${roomId}/ogc`;
/** The fields ogrinfo prints for a layer: `name: Type`. */
const fieldsIn = (out: string) => [...out.matchAll(/^([a-z]\w*): (\w+(?:\(\w+\))?) /gm)].map((m) => `${m[1]}: ${m[2]}`);

test('ogrinfo lists the collections of the room with their feature counts and the layer fields with their types', async () => {
  const listed = await gdal('ogrinfo', ['-so', endpoint(), ...bearer(token)]);
  assert.ok(listed.ok, listed.out);
  const names = [...listed.out.matchAll(/^\d+: (\S+)/gm)].map((m) => m[1]);
  // The drawn line is in `drawings` and in `drawings-lines` (the kinds the room has are listed).
  assert.deepEqual(names, ['markers', 'drawings', 'drawings-lines', layer.id]);
  const counts: Record<string, number> = {};
  for (const name of names) {
    const info = await gdal('ogrinfo', ['-so', endpoint(), name!, ...bearer(token)]);
    assert.ok(info.ok, info.out);
    counts[name!] = Number(/Feature Count: (\d+)/.exec(info.out)?.[1]);
    if (name === layer.id) {
      assert.deepEqual(fieldsIn(info.out), [
        'name: String',
        'code: Integer',
        'big: Integer64',
        'height: Real',
        'flag: Integer(Boolean)',
        'built: Date',
      ]);
      assert.match(info.out, /Geometry: Polygon/);
      assert.match(info.out, /TITLE=Parcels/);
    }
  }
  assert.deepEqual(counts, { markers: 2, drawings: 1, 'drawings-lines': 1, [layer.id]: COUNT });
});

/** A feature's attributes and rounded coordinates, keyed by its unique `code`. */
function byCode(features: GeoJsonFeature[]): Map<number, string> {
  const round = (value: unknown): unknown =>
    Array.isArray(value) ? value.map(round) : typeof value === 'number' ? Math.round(value * 1e9) / 1e9 : value;
  return new Map(
    features.map((f) => [
      f.properties.code as number,
      JSON.stringify({ properties: f.properties, coordinates: round(f.geometry.coordinates) }),
    ]),
  );
}

test('ogr2ogr copies the 10,000-feature layer to a GeoPackage with every feature, attribute and geometry of the source', async () => {
  const copy = path.join(path.dirname(parcels.file), 'copy.gpkg');
  const copied = await gdal('ogr2ogr', [
    '-f',
    'GPKG',
    copy,
    endpoint(),
    layer.id,
    '-oo',
    'PAGE_SIZE=1000',
    ...bearer(token),
  ]);
  assert.ok(copied.ok, copied.out);
  const source = byCode(await readFeatures(parcels.file));
  const target = byCode(await readFeatures(copy));
  assert.equal(source.size, COUNT);
  assert.equal(target.size, COUNT, 'every feature once');
  const differing = [...source].filter(([code, text]) => target.get(code) !== text);
  assert.deepEqual(differing.slice(0, 3), [], `${differing.length} features differ, e.g. ${differing[0]?.[0]}`);
  // A string field with nulls, a boolean, a 64-bit integer and a date come through typed.
  const sample = JSON.parse(target.get(7)!) as { properties: Record<string, unknown> };
  assert.deepEqual(sample.properties, {
    name: null,
    code: 7,
    big: 5_000_000_007,
    height: 1.875,
    flag: true,
    built: '2007-08-08',
  });
});

test("a bbox read through OAPIF takes exactly the features GDAL's own -spat takes from the source file", async () => {
  let shortPages = 0;
  for (const spat of [
    ['7.0', '46.5', '7.1', '46.6'],
    ['6.01', '45.9', '6.3', '45.97'],
    ['9.9', '47.6', '10', '47.8'],
  ]) {
    const codes = (features: GeoJsonFeature[]) =>
      features.map((f) => f.properties.code as number).sort((a, b) => a - b);
    const expected = codes(await readFeatures(parcels.file, ['-spat', ...spat]));
    const served = codes(
      await readFeatures(endpoint(), [layer.id, '-oo', 'PAGE_SIZE=7', '-spat', ...spat, ...bearer(token)]),
    );
    assert.ok(expected.length > 7, `the bbox ${spat} takes more than one page`);
    assert.deepEqual(served, expected, `bbox ${spat}`);
    // The server filtered: its count for the bbox is near GDAL's (a feature's bbox may meet it where its shape does not).
    const page = assertOk(
      await call(t.app, 'GET', `/api/rooms/${room}/ogc/collections/${layer.id}/items?bbox=${spat.join(',')}&limit=1`, {
        auth: token,
      }),
    );
    assert.ok(
      page.numberMatched >= expected.length && page.numberMatched < expected.length * 2,
      `${page.numberMatched}`,
    );
    // Where the bbox's chunks hold more rows than a request reads, GDAL followed short pages.
    const whole = assertOk(
      await call(
        t.app,
        'GET',
        `/api/rooms/${room}/ogc/collections/${layer.id}/items?bbox=${spat.join(',')}&limit=10000`,
        {
          auth: token,
        },
      ),
    );
    if (whole.numberReturned < expected.length) {
      assert.ok(whole.numberReturned > 0 && whole.links.some((l: { rel: string }) => l.rel === 'next'));
      shortPages += 1;
    }
  }
  assert.ok(shortPages > 0, 'a bbox whose first page ended at the scan bound');
});

test('markers and drawings come as GDAL layers: points with the marker fields, the drawn line with its label', async () => {
  const markers = await readFeatures(endpoint(), ['markers', ...bearer(token)]);
  assert.equal(markers.length, 2);
  const bern = markers.find((m) => m.properties.eventDate !== null)!;
  assert.deepEqual(bern.geometry.coordinates, [7.45, 46.95]);
  assert.equal(bern.properties.title, 'Spot');
  // Tags are the text of a JSON array (a String field whatever a client's first page holds), which
  // GDAL's GeoJSON writer turns back into the array.
  assert.deepEqual(bern.properties.tags, ['a', 'b']);
  assert.equal(bern.properties.eventDate, Date.UTC(2024, 0, 5));
  const drawings = await readFeatures(endpoint(), ['drawings', ...bearer(token)]);
  assert.deepEqual(
    drawings.map((d) => [d.properties.label, d.geometry.coordinates]),
    [
      [
        'Path',
        [
          [7.4, 46.9],
          [7.5, 47],
        ],
      ],
    ],
  );
});

test('the credential: a private room refuses GDAL without a token, a public room opens without one', async () => {
  const refused = await gdal('ogrinfo', ['-so', endpoint()]);
  assert.equal(refused.ok, false);
  assert.match(refused.out, /401/);
  const open = await readFeatures(endpoint(publicRoom), ['markers']);
  assert.deepEqual(
    open.map((m) => m.properties.title),
    ['Geneva'],
  );
});
