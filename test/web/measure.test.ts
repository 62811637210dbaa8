import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Drawing, Layer, Marker, RasterLayer } from '../../web/src/api/types.js';
import { contentExtent } from '../../web/src/map/content-extent.js';
import { describeMeasure, formatArea, formatLength, measureOf } from '../../web/src/map/measure.js';

/**
 * The pure parts of the map as a tool: the geodesic measure of shapes and its words
 * (web/src/map/measure.ts), and the extent of a room's content a room opens at
 * (web/src/map/content-extent.ts).
 */

// 0.01° by 0.01° at the equator: 1,105.7 m by 1,113.2 m on the WGS84 ellipsoid.
const SQUARE: GeoJSON.Polygon = {
  type: 'Polygon',
  coordinates: [
    [
      [10, 0],
      [10.01, 0],
      [10.01, 0.01],
      [10, 0.01],
      [10, 0],
    ],
  ],
};
const near = (actual: number, expected: number, tolerance: number) =>
  assert.ok(Math.abs(actual - expected) / expected < tolerance, `${actual} within ${tolerance} of ${expected}`);

describe('measures', () => {
  test('a square of known size: its area and perimeter within 1% of the ellipsoid', () => {
    const { area, length } = measureOf(SQUARE);
    near(area!, 1_105.7 * 1_113.2, 0.01);
    near(length!, 2 * (1_105.7 + 1_113.2), 0.01);
  });

  test("a line's length is along the earth, not in degrees; a point has no measure", () => {
    // Bern to Zürich, about 95.5 km.
    const { length, area } = measureOf({
      type: 'LineString',
      coordinates: [
        [7.4474, 46.948],
        [8.5417, 47.3769],
      ],
    });
    near(length!, 95_500, 0.01);
    assert.equal(area, null);
    assert.deepEqual(measureOf({ type: 'Point', coordinates: [1, 2] }), { length: null, area: null });
    assert.equal(describeMeasure({ type: 'Point', coordinates: [1, 2] }), '');
  });

  test('lengths in metric and imperial units, in the unit that reads best', () => {
    assert.equal(formatLength(5.25), '5.3 m (17 ft)');
    assert.equal(formatLength(300), '300 m (984 ft)');
    assert.equal(formatLength(850), '850 m (0.53 mi)');
    assert.equal(formatLength(12_345), '12.3 km (7.67 mi)');
    assert.equal(formatLength(1_234_567), '1,235 km (767 mi)');
  });

  test('areas in metric and imperial units', () => {
    assert.equal(formatArea(5_000), '5,000 m² (1.24 ac)');
    assert.equal(formatArea(1_230_900), '1.23 km² (0.48 mi²)');
    assert.equal(formatArea(41_285_000_000), '41,285 km² (15,940 mi²)');
  });

  test('a polygon is described by its area and perimeter, a line by its length', () => {
    assert.match(describeMeasure(SQUARE), /^Area 1\.2\d km² \(0\.4\d mi²\) · perimeter 4\.4\d km \(2\.7\d mi\)$/);
    assert.match(
      describeMeasure({
        type: 'MultiLineString',
        coordinates: [
          [
            [0, 0],
            [0, 1],
          ],
          [
            [1, 0],
            [1, 1],
          ],
        ],
      }),
      /^Length 22\d km \(13\d mi\)$/,
    );
  });
});

describe('the extent of a room', () => {
  const empty = { markers: new Map<string, Marker>(), drawings: new Map<string, Drawing>(), layers: [], rasters: [] };

  test('is null for an empty room', () => {
    assert.equal(contentExtent(empty), null);
  });

  test('covers its markers, drawings, and layers and rasters by their bboxes', () => {
    const extent = contentExtent({
      markers: new Map([['m', { id: 'm', title: 'Bern', latitude: 46.948, longitude: 7.4474 } as Marker]]),
      drawings: new Map([
        [
          'd',
          {
            id: 'd',
            geometry: {
              type: 'LineString',
              coordinates: [
                [7.3, 46.9],
                [7.5, 47.1],
              ],
            },
          } as unknown as Drawing,
        ],
      ]),
      layers: [{ id: 'l', bbox: [7.0, 46.5, 7.2, 46.6] } as unknown as Layer],
      rasters: [{ id: 'r', bbox: [7.6, 46.8, 7.9, 46.95] } as unknown as RasterLayer, { id: 'x', bbox: null } as never],
    });
    assert.deepEqual(extent, [7.0, 46.5, 7.9, 47.1]);
  });

  test('a single marker is a point extent', () => {
    const markers = new Map([['m', { id: 'm', title: 'x', latitude: 1, longitude: 2 } as Marker]]);
    assert.deepEqual(contentExtent({ ...empty, markers }), [2, 1, 2, 1]);
  });
});
