import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LayerField } from '../../src/geo/feature-fields.js';
import { fieldValueProblem, propertiesProblem, withDefaults } from '../../src/geo/feature-values.js';
import { featureGeometryProblem } from '../../src/geo/geometry.js';

test('each field type takes its values and null, and refuses the others', () => {
  const cases: [LayerField['type'], unknown[], unknown[]][] = [
    ['integer', [0, -4, 2 ** 40, null], [1.5, '3', true, 2 ** 60, Number.NaN]],
    ['real', [1.5, -2, 0, null], ['1.5', Number.POSITIVE_INFINITY, false]],
    ['string', ['', 'x', null], [1, false, {}]],
    ['boolean', [true, false, null], [0, 'true']],
    ['date', ['2026-02-28', '2024-02-29', null], ['2026-02-30', '2026-2-3', '2026-02-28T10:00:00Z', 20260228]],
    ['datetime', ['2026-02-28T10:00:00Z', '2026-02-28', null], ['yesterday', 5]],
    ['json', [{ a: [1] }, [1, 2], 'x', 3, null], []],
  ];
  for (const [type, good, bad] of cases) {
    for (const value of good)
      assert.equal(fieldValueProblem(type, value), null, `${type} takes ${JSON.stringify(value)}`);
    for (const value of bad) assert.ok(fieldValueProblem(type, value), `${type} refuses ${JSON.stringify(value)}`);
  }
});

test('properties must be fields of the layer; a layer without recorded fields takes any', () => {
  const fields: LayerField[] = [
    { name: 'name', type: 'string' },
    { name: 'lots', type: 'integer' },
  ];
  assert.equal(propertiesProblem(fields, { name: 'a', lots: null }), null);
  assert.deepEqual(propertiesProblem(fields, { name: 'a', colour: 'red' }), {
    name: 'colour',
    problem: 'is not a field of the layer',
  });
  assert.deepEqual(propertiesProblem(fields, { lots: 1.5 }), { name: 'lots', problem: 'must be an integer' });
  assert.equal(propertiesProblem(null, { anything: [1] }), null);
});

test('a required field or a default named like an object member (constructor) is still checked and filled', () => {
  const fields: LayerField[] = [
    { name: 'constructor', type: 'string', required: true },
    { name: 'toString', type: 'string', default: 'x' },
  ];
  assert.deepEqual(propertiesProblem(fields, {}, { creating: true }), { name: 'constructor', problem: 'is required' });
  assert.deepEqual(withDefaults(fields, {}), { toString: 'x' });
});

test("a feature's geometry may be multi-part; every part is checked", () => {
  const ring = [
    [0, 0],
    [1, 0],
    [1, 1],
    [0, 0],
  ];
  assert.equal(featureGeometryProblem({ type: 'MultiPoint', coordinates: [[1, 2]] }), null);
  assert.equal(featureGeometryProblem({ type: 'MultiLineString', coordinates: [ring.slice(0, 2)] }), null);
  assert.equal(featureGeometryProblem({ type: 'MultiPolygon', coordinates: [[ring], [ring]] }), null);
  assert.equal(featureGeometryProblem({ type: 'Polygon', coordinates: [ring] }), null);
  assert.match(featureGeometryProblem({ type: 'MultiPoint', coordinates: [] })!, /at least one part/);
  assert.match(featureGeometryProblem({ type: 'MultiPolygon', coordinates: [[ring.slice(0, 3)]] })!, /\[0\]\[0\]/);
  assert.match(featureGeometryProblem({ type: 'MultiPoint', coordinates: [[1, 95]] })!, /latitude/);
  assert.match(featureGeometryProblem({ type: 'MultiPoint', coordinates: [[1, 2]], bbox: [] })!, /unexpected member/);
  assert.match(featureGeometryProblem({ type: 'GeometryCollection', geometries: [] })!, /geometry.type must be/);
});
