import assert from 'node:assert/strict';
import { test } from 'node:test';
import { geometryProblem } from '../../src/geo/geometry.js';

const square = [
  [0, 0],
  [1, 0],
  [1, 1],
  [0, 1],
  [0, 0],
];

test('valid points, lines and polygons (with holes and altitudes) pass', () => {
  assert.equal(geometryProblem({ type: 'Point', coordinates: [7.4, 46.9] }), null);
  assert.equal(geometryProblem({ type: 'Point', coordinates: [-180, -90, 1200] }), null);
  assert.equal(
    geometryProblem({
      type: 'LineString',
      coordinates: [
        [0, 0],
        [1, 1],
      ],
    }),
    null,
  );
  assert.equal(
    geometryProblem({
      type: 'Polygon',
      coordinates: [
        square,
        [
          [0.2, 0.2],
          [0.4, 0.2],
          [0.4, 0.4],
          [0.2, 0.2],
        ],
      ],
    }),
    null,
  );
});

test('each problem is named', () => {
  const cases: [unknown, RegExp][] = [
    [null, /GeoJSON object/],
    [{ type: 'MultiPoint', coordinates: [[0, 0]] }, /Point, LineString or Polygon/],
    [{ type: 'Point', coordinates: [181, 0] }, /longitude/],
    [{ type: 'Point', coordinates: [0, 90.5] }, /latitude/],
    [{ type: 'Point', coordinates: [0] }, /\[longitude, latitude\]/],
    [{ type: 'Point', coordinates: [0, Number.NaN] }, /finite/],
    [{ type: 'Point', coordinates: ['1', 2] }, /finite/],
    [{ type: 'LineString', coordinates: [[0, 0]] }, /at least 2 positions/],
    [{ type: 'Polygon', coordinates: [] }, /list of rings/],
    [
      {
        type: 'Polygon',
        coordinates: [
          [
            [0, 0],
            [1, 0],
            [1, 1],
          ],
        ],
      },
      /at least 4 positions/,
    ],
    [
      {
        type: 'Polygon',
        coordinates: [
          [
            [0, 0],
            [1, 0],
            [1, 1],
            [0, 1],
          ],
        ],
      },
      /closed/,
    ],
    [
      {
        type: 'Polygon',
        coordinates: [
          square,
          [
            [0, 0],
            [2, 0],
            [2, 2],
            [0, 3],
          ],
        ],
      },
      /coordinates\[1\] must be closed/,
    ],
    [{ type: 'Point', coordinates: [0, 0], crs: {} }, /unexpected member "crs"/],
  ];
  for (const [geometry, expected] of cases)
    assert.match(geometryProblem(geometry) ?? 'valid', expected, JSON.stringify(geometry));
});
