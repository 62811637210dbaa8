import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { geoLimitsOf, loadConfig } from '../../src/config.js';
import { fieldTypeOf } from '../../src/geo/feature-fields.js';
import { GeoJsonFieldTypes } from '../../src/geo/geojson-field-types.js';
import { openVectorFile } from '../../src/geo-engine/vector-open.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'field-types-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Each property's values, one per feature (a missing one where the array is shorter). */
const COLUMNS: Record<string, unknown[]> = {
  whole: [1, 2, -3],
  big: [1, 2 ** 40],
  mixedNumbers: [1, 2.5],
  realThenWhole: [2.5, 3],
  text: ['a', 'b'],
  numberThenText: [1, 'two'],
  textThenNumber: ['one', 2],
  textThenObject: ['one', { a: 1 }],
  textThenList: ['one', ['a']],
  textThenNumberList: ['one', [1]],
  realThenText: [2.5, 'x'],
  bigThenText: [2 ** 40, 'x'],
  timeThenDate: ['10:20', '2024-05-01'],
  dateTimeThenDate: ['2024-05-01T10:20:30', '2024-05-01'],
  slashDate: ['2024/05/01'],
  shortDate: ['2024-5-1'],
  dateTimeZone: ['2024-05-01T10:20:30+02:00'],
  dateTimeMillis: ['2024-05-01T10:20:30.123Z'],
  notQuiteDate: ['2024-05-01x'],
  yearOnly: ['2024'],
  flag: [true, false],
  flagThenNumber: [true, 7],
  numberThenFlag: [7, true],
  onlyNulls: [null, null],
  nullThenNumber: [null, 4],
  nullThenDate: [null, '2024-05-01'],
  date: ['2024-05-01', '2023-12-31'],
  dateTime: ['2024-05-01T10:20:30Z', '2024-05-01 08:00:00'],
  dateThenDateTime: ['2024-05-01', '2024-05-01T10:20:30'],
  dateThenText: ['2024-05-01', 'soon'],
  dateThenNumber: ['2024-05-01', 3],
  time: ['10:20:30', '08:00'],
  object: [{ a: 1 }, { b: 2 }],
  objectThenText: [{ a: 1 }, 'x'],
  intList: [[1, 2], [3]],
  intThenRealList: [[1, 2], [2.5]],
  textList: [['a', 'b'], ['c']],
  flagList: [[true, false]],
  mixedList: [[1, 'a']],
  emptyList: [[], [1]],
  numberThenList: [1, [1, 2]],
  listThenText: [[1], 'x'],
};

function features(): Record<string, unknown>[] {
  const count = Math.max(...Object.values(COLUMNS).map((values) => values.length));
  return Array.from({ length: count }, (_, i) =>
    Object.fromEntries(
      Object.entries(COLUMNS).flatMap(([name, values]) => (i < values.length ? [[name, values[i]]] : [])),
    ),
  );
}

test('fields get the types GDAL gives the same GeoJSON, property by property', async () => {
  const file = path.join(dir, 'kinds.geojson');
  const collection = {
    type: 'FeatureCollection',
    features: features().map((properties, i) => ({
      type: 'Feature',
      geometry: { type: 'Point', coordinates: [i, i] },
      properties,
    })),
  };
  writeFileSync(file, JSON.stringify(collection));
  const [gdal] = (await openVectorFile(file, 'kinds.geojson', geoLimitsOf(loadConfig({})))).tables;
  const typing = new GeoJsonFieldTypes();
  for (const properties of features()) typing.add(properties);
  const ours = typing.declared();
  assert.deepEqual(
    ours.map((field) => field.name),
    Object.keys(COLUMNS),
  );
  // Compared as the layer's field types: GDAL's versions differ in subtypes that make no difference to them.
  const theirs = gdal!.fields!.map((field) => `${field.name}: ${fieldTypeOf(field)}`);
  const mine = ours.map((field) => `${field.name}: ${fieldTypeOf(field)}`);
  assert.deepEqual(mine, theirs);
});

test('the text fields holding numbers or booleans are named, and no other', () => {
  const typing = new GeoJsonFieldTypes();
  for (const properties of features()) typing.add(properties);
  assert.deepEqual(typing.textFields().sort(), [
    'bigThenText',
    'dateThenNumber',
    'numberThenText',
    'realThenText',
    'textThenNumber',
  ]);
});
