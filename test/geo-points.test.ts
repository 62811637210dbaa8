import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, test } from 'node:test';
import { GeoJsonError, pointOf } from '../src/geo/geojson-points.js';
import { readFeatures } from '../src/geo-engine/geojson-stream.js';
import { importedMarkerOf } from '../src/modules/markers/imported-markers.js';

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
