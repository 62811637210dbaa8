import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, test } from 'node:test';
import { GeoJsonError, pointOf } from '../../src/geo/geojson-points.js';
import { collectionHead, collectionOutside, readFeatures } from '../../src/geo-engine/geojson-stream.js';
import { importedMarkerOf } from '../../src/modules/markers/imported-markers.js';

/** A bulk-imported feature as a marker: the point checked, then its properties against the marker schema. */
const pointMarkerOf = (feature: unknown, index: number) => importedMarkerOf(pointOf(feature, index), index);

const point = (lng: number, lat: number, properties: unknown = {}) => ({
  type: 'Feature',
  geometry: { type: 'Point', coordinates: [lng, lat] },
  properties,
});

/** Feeds the text in small pieces, as a network stream would. */
const streamOf = (text: string) => Readable.from(text.match(/[\s\S]{1,7}/g) ?? []);

async function collect(text: string) {
  const out: unknown[] = [];
  for await (const { feature } of readFeatures(streamOf(text))) out.push(feature);
  return out;
}

describe('readFeatures', () => {
  test('yields each feature in order, whatever the key order of the collection', async () => {
    const features = [point(7.4, 46.9, { title: 'Bern' }), point(8.5, 47.4)];
    assert.deepEqual(await collect(JSON.stringify({ type: 'FeatureCollection', features })), features);
    assert.deepEqual(await collect(JSON.stringify({ features, name: 'x', type: 'FeatureCollection' })), features);
  });

  test('an empty collection yields nothing', async () => {
    assert.deepEqual(await collect('{"type":"FeatureCollection","features":[]}'), []);
  });

  test('a feature property named type does not count as the collection type', async () => {
    const text = JSON.stringify({ features: [point(1, 2, { type: 'x' })] });
    await assert.rejects(collect(text), /must be a GeoJSON FeatureCollection/);
  });

  test('rejects what is not a FeatureCollection, and broken JSON', async () => {
    await assert.rejects(collect(JSON.stringify(point(1, 2))), GeoJsonError);
    await assert.rejects(collect('{"type":"FeatureCollection","features":[{"type":'), /not valid JSON/);
    await assert.rejects(collect('not json'), /not valid JSON/);
  });
});

describe('readFeatures: the file cut into feature texts', () => {
  const bytesOf = (text: string, size: number) => {
    const all = Buffer.from(text, 'utf8');
    const parts: Buffer[] = [];
    for (let i = 0; i < all.length; i += size) parts.push(all.subarray(i, i + size));
    return parts;
  };
  const collectBytes = async (text: string, size: number) => {
    const out: unknown[] = [];
    for await (const { feature } of readFeatures(Readable.from(bytesOf(text, size)))) out.push(feature);
    return out;
  };

  test('strings holding brackets, commas, quotes and characters of several bytes, cut anywhere, come back as written', async () => {
    const features = [
      point(1, 2, { title: 'a ] } , [ { "quoted" \\ back\\slash', description: 'Zürich – 東京 😀' }),
      point(3, 4, { tags: ['x,y', '}{'], nested: { deep: [[1, [2, { k: ']' }]]] } }),
      point(-5.5e-3, 1e2),
    ];
    const text = JSON.stringify({ name: 'a "features": [', bbox: [0, 0, 1, 1], type: 'FeatureCollection', features });
    for (const size of [1, 2, 3, 5, 7, 64, 1 << 16])
      assert.deepEqual(await collectBytes(text, size), features, `size ${size}`);
  });

  test('a byte-order mark and whitespace around the values are accepted; a features key elsewhere is not the features', async () => {
    const features = [point(1, 2)];
    const text = `\ufeff \n{ "crs" : {"features": [1, 2]} ,\n "features" :\n [\n ${JSON.stringify(features[0])} \n ] ,"type":"FeatureCollection"}\n`;
    assert.deepEqual(await collect(text), features);
  });

  test('numbers are read as JSON.parse reads them: 1e309 is Infinity, which the point check refuses', async () => {
    const [feature] = await collect(
      '{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[1e309,0]}}]}',
    );
    assert.equal((feature as { geometry: { coordinates: number[] } }).geometry.coordinates[0], Infinity);
    assert.throws(() => pointOf(feature, 0), /Feature 1 \(features\[0\]\): longitude must be a number/);
  });

  test('what is not JSON fails, wherever it is', async () => {
    const f = JSON.stringify(point(1, 2));
    for (const text of [
      `{"type":"FeatureCollection","features":[${f},]}`,
      `{"type":"FeatureCollection","features":[,${f}]}`,
      `{"type":"FeatureCollection","features":[${f},,${f}]}`,
      `{"type":"FeatureCollection","features":[${f} ${f}]}`,
      `{"type":"FeatureCollection","features":[${f}}}`,
      `{"type":"FeatureCollection","features":[${f}]} trailing`,
      `{"type":"FeatureCollection" "features":[${f}]}`,
      `{"type":"FeatureCollection","features":[${f}]`,
      '',
      '   ',
    ]) {
      await assert.rejects(collect(text), /not valid JSON/, text);
    }
  });

  test('other JSON than an object is not a FeatureCollection', async () => {
    for (const text of [
      '[]',
      '"FeatureCollection"',
      '42',
      'null',
      '{"type":"FeatureCollection","features":{}}'.replace('FeatureCollection', 'Feature'),
    ]) {
      await assert.rejects(collect(text), /must be a GeoJSON FeatureCollection/, text);
    }
  });

  test("a collection's members are read without its features, however large one is", async () => {
    const big = `{"type":"Feature","properties":{"junk":"${'x'.repeat(17 * 1024 ** 2)}"}}`;
    const links = [{ rel: 'next', href: '/items?page=2' }];
    const text = `{"type":"FeatureCollection","features":[${big},{"type":"Feature"}],"links":${JSON.stringify(links)}}`;
    assert.deepEqual(await collectionOutside(Readable.from([Buffer.from(text)])), {
      type: 'FeatureCollection',
      features: [],
      links,
    });
    await assert.rejects(
      collectionOutside(streamOf('{"type":"FeatureCollection","features":[')),
      /ends before the JSON/,
    );
  });

  test('collectionHead reads up to the features array only; a file without one, whole', async () => {
    const features = JSON.stringify([point(7.4, 46.9), point(8.5, 47.4)]);
    const text = `{"type":"FeatureCollection","name":"x","features":${features},"crs":{"type":"name"}}`;
    assert.deepEqual(await collectionHead(streamOf(text)), {
      value: { type: 'FeatureCollection', name: 'x', features: [] },
      whole: false,
    });
    assert.deepEqual(await collectionHead(streamOf('{"type":"Feature","properties":{"a":[1]}}')), {
      value: { type: 'Feature', properties: { a: [1] } },
      whole: true,
    });
  });

  test('a feature of more than 16 MiB of text, or a file with more than 1 MiB outside its features, is refused', async () => {
    const big = `{"type":"Feature","properties":{"junk":"${'x'.repeat(17 * 1024 ** 2)}"}}`;
    await assert.rejects(
      collect(`{"type":"FeatureCollection","features":[${big}]}`),
      /Feature 1 \(features\[0\]\) is too large/,
    );
    const outside = `{"type":"FeatureCollection","name":"${'n'.repeat(1024 ** 2 + 10)}","features":[]}`;
    await assert.rejects(collect(outside), /more than 1 MiB of JSON outside its "features" array/);
  });
});

describe('pointOf and importedMarkerOf', () => {
  test('maps the listed properties and ignores others', () => {
    const marker = pointMarkerOf(
      point(7.44, 46.95, {
        title: 'Bern',
        description: 'capital',
        tags: ['a', 'b'],
        eventDate: '2024-05-01T00:00:00Z',
        markerIconSize: 32,
        markerIconId: 'icon-api-x',
        imageKey: 'markers/r/a.jpg',
        thumbnailKey: 'markers/r/a_thumb.jpg',
        color: 'ignored',
      }),
      0,
    );
    assert.deepEqual(marker, {
      latitude: 46.95,
      longitude: 7.44,
      title: 'Bern',
      description: 'capital',
      tags: ['a', 'b'],
      eventDate: Date.UTC(2024, 4, 1),
      markerIconSize: 32,
      markerIconId: 'icon-api-x',
      imageKey: 'markers/r/a.jpg',
      thumbnailKey: 'markers/r/a_thumb.jpg',
    });
  });

  test('says which feature is wrong and why', () => {
    const cases: [unknown, RegExp][] = [
      [
        {
          type: 'Feature',
          geometry: {
            type: 'LineString',
            coordinates: [
              [0, 0],
              [1, 1],
            ],
          },
        },
        /Feature 4 \(features\[3\]\): geometry must be a Point/,
      ],
      [point(181, 0), /longitude must be a number from -180 to 180/],
      [point(0, -91), /latitude must be/],
      [{ type: 'Feature', geometry: { type: 'Point', coordinates: [1] } }, /coordinates must be/],
      [point(0, 0, { title: 'a\nb' }), /title must be a string .*no newline/],
      [point(0, 0, { title: 'x'.repeat(201) }), /title must be a string of at most 200 characters/],
      [point(0, 0, { description: 5 }), /description must be a string/],
      [point(0, 0, { tags: Array(51).fill('t') }), /tags must be/],
      [point(0, 0, { tags: [''] }), /tags must be/],
      [point(0, 0, { markerIconSize: 7 }), /markerIconSize/],
      [point(0, 0, { eventDate: 'yesterday' }), /eventDate/],
      [point(0, 0, { imageKey: 'markers/r/a.jpg' }), /imageKey and thumbnailKey go together/],
      [point(0, 0, 'nope'), /properties must be an object/],
      [{ type: 'Point', coordinates: [0, 0] }, /"type": "Feature"/],
    ];
    for (const [feature, expected] of cases) assert.throws(() => pointMarkerOf(feature, 3), expected);
  });

  test('accepts an altitude and null properties', () => {
    const marker = pointMarkerOf(
      { type: 'Feature', geometry: { type: 'Point', coordinates: [1, 2, 300] }, properties: null },
      0,
    );
    assert.deepEqual(marker, { latitude: 2, longitude: 1 });
  });
});

test('a feature too large to be a point is refused before it is assembled', async () => {
  const junk = Array(30_000).fill('{}').join(',');
  const text = `{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[0,0]},"properties":{}},{"type":"Feature","properties":{"junk":[${junk}]}}]}`;
  await assert.rejects(collect(text), /Feature 2 \(features\[1\]\) is too large/);
});
