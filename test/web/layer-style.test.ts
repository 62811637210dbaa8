import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Layer } from '../../web/src/api/types.js';
import {
  categoriesOf,
  classBreaks,
  coloursInUse,
  colorExpression,
  evaluate,
  featureColor,
  legendEntries,
  nextLayerColor,
  orderedLayers,
  rampColors,
  reordered,
  vectorLayerPaint,
} from '../../web/src/map/layer-style.js';
import { labelAnchor } from '../../web/src/map/label-anchor.js';

/**
 * A vector layer's style by data in the page (web/src/map/layer-style.ts): the MapLibre colour
 * expressions, legend rows, class breaks, ramp colours, the shared order and new layers'
 * colours. The browser test (test/web/style.test.ts) shows them on the map.
 */
const base = { color: '3388ff', opacity: 1, strokeWeight: 2, fillOpacity: 0.3, visible: true } as Layer['style'];
const layer = (id: string, order?: number) =>
  ({ id, style: { ...base, ...(order !== undefined && { order }) } }) as Layer;

describe('style by data in the page', () => {
  test('one colour, categories as a match on the text of the field, classes as a step', () => {
    assert.equal(colorExpression(base), '#3388ff');
    assert.equal(colorExpression({ ...base, fillColor: 'aabbcc' }, 'aabbcc'), '#aabbcc');
    const categories = {
      ...base,
      classify: {
        type: 'categories' as const,
        field: 'kind',
        categories: [
          { value: 'a', color: 'ff0000' },
          { value: '1', color: '00ff00' },
          { value: 'a', color: '0000ff' },
        ],
        otherColor: '999999',
      },
    };
    assert.deepEqual(colorExpression(categories), [
      'match',
      ['to-string', ['get', 'kind']],
      'a',
      '#ff0000',
      '1',
      '#00ff00',
      '#999999',
    ]);
    assert.equal(colorExpression({ ...base, classify: { ...categories.classify, categories: [] } }), '#999999');
    const graduated = {
      ...base,
      classify: {
        type: 'graduated' as const,
        field: 'area',
        method: 'equal' as const,
        ramp: 'viridis',
        breaks: [10, 10, 20],
        colors: ['000001', '000002', '000003', '000004'],
      },
    };
    assert.deepEqual(
      colorExpression(graduated),
      ['step', ['to-number', ['get', 'area'], 0], '#000001', 10, '#000002', 20, '#000004'],
      'a repeated break is left out (MapLibre needs ascending stops)',
    );
    assert.deepEqual(
      legendEntries(graduated).map((e) => e.label),
      ['< 10', '10 – 10', '10 – 20', '≥ 20'],
    );
    assert.deepEqual(
      legendEntries(categories)
        .map((e) => [e.label, e.color])
        .at(-1),
      ['other', '#999999'],
    );
    assert.deepEqual(legendEntries(base), [{ label: '', color: '#3388ff' }]);

    // The same rules worked out for one feature (the deck's preview draws without MapLibre).
    assert.equal(featureColor(base, { kind: 'a' }), '#3388ff');
    assert.equal(featureColor({ ...base, fillColor: 'aabbcc' }, {}, 'aabbcc'), '#aabbcc');
    assert.equal(
      featureColor(categories, { kind: 'a' }),
      '#ff0000',
      "the first category of a value wins, as in MapLibre's match",
    );
    assert.equal(featureColor(categories, { kind: 1 }), '#00ff00', 'a number matched as its text');
    assert.equal(featureColor(categories, { kind: 'b' }), '#999999');
    assert.equal(featureColor(categories, {}), '#999999', 'no value: the other colour');
    const area = (value: unknown) => featureColor(graduated, { area: value });
    assert.deepEqual(
      [area(9.99), area(10), area(15), area(20), area(1e6), area('12'), area('wide'), area(undefined)],
      ['#000001', '#000002', '#000002', '#000004', '#000004', '#000002', '#000001', '#000001'],
      'a step: from each break on, the repeated break left out; text read as a number, else 0',
    );
  });

  test('equal intervals and quantiles', () => {
    assert.deepEqual(classBreaks([0, 10, 5, 100], 4, 'equal'), [25, 50, 75]);
    assert.deepEqual(classBreaks([1, 2, 3, 4, 5, 6, 7, 8], 4, 'quantile'), [3, 5, 7]);
    assert.deepEqual(classBreaks([3, 3, 3], 3, 'quantile'), [3], 'equal values give one break');
    assert.deepEqual(classBreaks([], 3, 'equal'), [0]);
  });

  test('ramp colours spread over the stops, blended between them, as hex; no near-white class', () => {
    assert.deepEqual(rampColors(['#000000', 'rgb(128, 0, 255)', '#204080'], 3), ['000000', '8000ff', '204080']);
    assert.deepEqual(rampColors(['#000000', '#204080'], 3), ['000000', '102040', '204080'], 'blended');
    // magma's light end and a white stop: left out, the classes end at the last legible stop.
    assert.deepEqual(rampColors(['#000004', '#b73779', '#fcfdbf'], 2), ['000004', 'b73779']);
    assert.deepEqual(rampColors(['#ffffff', '#808080', '#000000'], 3), ['808080', '404040', '000000']);
    // A ramp of light colours only keeps them (better than none).
    assert.deepEqual(rampColors(['#ffffff', '#fafafa'], 2), ['ffffff', 'fafafa']);
  });

  test('the shared order: new layers on top, newest first, then 0 on top; a move renumbers only what changed', () => {
    const layers = [layer('a'), layer('b', 1), layer('c', 0), layer('d')];
    assert.deepEqual(
      orderedLayers(layers).map((l) => l.id),
      ['d', 'a', 'c', 'b'],
    );
    assert.deepEqual(reordered(orderedLayers(layers), 'b', 0), [
      { id: 'b', order: 0 },
      { id: 'd', order: 1 },
      { id: 'a', order: 2 },
      { id: 'c', order: 3 },
    ]);
    assert.deepEqual(reordered(orderedLayers(layers.slice(0, 3)), 'b', 0), [
      { id: 'b', order: 0 },
      { id: 'a', order: 1 },
      { id: 'c', order: 2 },
    ]);
  });

  test('a new layer takes a palette colour no layer has', () => {
    assert.equal(nextLayerColor([]), 'e6194b');
    assert.equal(nextLayerColor(['E6194B', '3388ff']), '3cb44b');
  });

  test("a layer's categories take colours no other layer draws with, then the palette again", () => {
    const roads = { ...layer('roads'), style: { ...base, color: 'e6194b' } } as Layer;
    const parcels = {
      ...layer('parcels'),
      style: {
        ...base,
        color: '3388ff',
        classify: {
          type: 'categories',
          field: 'kind',
          categories: [{ value: 'a', color: '3cb44b' }],
          otherColor: '999999',
        },
      },
    } as Layer;
    const inUse = coloursInUse([roads, parcels]);
    assert.deepEqual(inUse, ['e6194b', '3388ff', '3cb44b']);
    assert.deepEqual(
      categoriesOf(['x', 'y'], inUse).map((c) => c.color),
      ['4363d8', 'f58231'],
    );
    const spent = categoriesOf(
      Array.from({ length: 12 }, (_, i) => `v${i}`),
      [],
    ).map((c) => c.color);
    assert.equal(new Set(spent.slice(0, 10)).size, 10, 'every palette colour once before any again');
  });

  test("a feature's label point on the screen: the point, a line's middle vertex, a polygon's visible interior", () => {
    assert.deepEqual(labelAnchor('Point', [[[5, 6]]], 100, 100), [5, 6]);
    assert.deepEqual(
      labelAnchor(
        'LineString',
        [
          [
            [0, 0],
            [10, 0],
            [20, 5],
            [30, 0],
            [40, 0],
          ],
        ],
        100,
        100,
      ),
      [20, 5],
    );
    // A U shape: its bbox's centre (50, 50) is outside it; the label goes in the wider arm.
    const u = [
      [
        [0, 0],
        [30, 0],
        [30, 80],
        [70, 80],
        [70, 0],
        [80, 0],
        [80, 100],
        [0, 100],
        [0, 0],
      ],
    ] as [number, number][][];
    assert.deepEqual(labelAnchor('Polygon', u, 200, 200), [15, 50]);
    // Half off the screen: the middle of what is visible.
    assert.deepEqual(
      labelAnchor(
        'Polygon',
        [
          [
            [-100, 10],
            [50, 10],
            [50, 30],
            [-100, 30],
          ],
        ],
        200,
        200,
      ),
      [25, 20],
    );
    // A hole in the middle: a label beside it, not in it.
    const ring = [
      [0, 0],
      [90, 0],
      [90, 90],
      [0, 90],
    ] as [number, number][];
    const hole = [
      [20, 20],
      [80, 20],
      [80, 70],
      [20, 70],
    ] as [number, number][];
    assert.deepEqual(labelAnchor('Polygon', [ring, hole], 200, 200), [10, 45]);
    assert.equal(
      labelAnchor(
        'Polygon',
        [
          [
            [0, -50],
            [10, -50],
            [10, -10],
          ],
        ],
        100,
        100,
      ),
      null,
      'nothing visible',
    );
  });
});

describe("the paint the map is given, worked out per feature as the deck's preview draws it", () => {
  test("a layer's paint: its fill, line and circles from its style", () => {
    const paint = vectorLayerPaint({ ...base, fillColor: 'aabbcc', opacity: 0.5, strokeWeight: 4 });
    assert.deepEqual(paint.fill, { 'fill-color': '#aabbcc', 'fill-opacity': 0.15 });
    assert.deepEqual(paint.line, { 'line-color': '#3388ff', 'line-opacity': 0.5, 'line-width': 4 });
    assert.deepEqual(paint.point, { 'circle-color': '#aabbcc', 'circle-opacity': 0.5, 'circle-radius': 6 });
  });

  test('the expressions of the drawings: a property, else the default; a product', () => {
    const color = ['coalesce', ['get', 'fillColor'], ['coalesce', ['get', 'color'], '#7b3fe4']];
    assert.equal(evaluate(color, {}), '#7b3fe4');
    assert.equal(evaluate(color, { color: '#111111' }), '#111111');
    assert.equal(evaluate(color, { color: '#111111', fillColor: '#222222' }), '#222222');
    const opacity = ['*', 0.35, ['coalesce', ['get', 'opacity'], 1]];
    assert.equal(evaluate(opacity, {}), 0.35);
    assert.equal(evaluate(opacity, { opacity: 0.5 }), 0.175);
    assert.throws(() => evaluate(['interpolate', ['linear'], ['zoom'], 0, 1], {}), /not an expression/);
  });
});
