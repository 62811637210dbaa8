import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { dateInput, dateOf, numberOf, numberOrNull, tagsOf } from '../../web/src/ui/field-values.js';

/**
 * The parsing of the web application's shared form fields (web/src/ui/fields.tsx reads its
 * inputs through web/src/ui/field-values.ts): what a typed value becomes in the request.
 */

describe("a form field's text as the value the page sends", () => {
  test('a number field reads its text as a number, an emptied one as 0', () => {
    assert.equal(numberOf('3'), 3);
    assert.equal(numberOf('0.35'), 0.35);
    assert.equal(numberOf('-12'), -12);
    assert.equal(numberOf(''), 0);
  });

  test('a number field that may stay empty reads empty as null, and 0 as 0', () => {
    assert.equal(numberOrNull(''), null);
    assert.equal(numberOrNull('0'), 0);
    assert.equal(numberOrNull('-1.5'), -1.5);
    assert.equal(numberOrNull('1e3'), 1000);
  });

  test('tags are split at commas, trimmed, and the empty ones dropped', () => {
    assert.deepEqual(tagsOf('survey, day 1'), ['survey', 'day 1']);
    assert.deepEqual(tagsOf(' a , , b,'), ['a', 'b']);
    assert.deepEqual(tagsOf(''), []);
  });

  test("a date field holds a moment's UTC day, and gives back the start of that day", () => {
    const noon = Date.UTC(2026, 10, 26, 12, 30);
    assert.equal(dateInput(noon), '2026-11-26');
    assert.equal(dateOf('2026-11-26'), Date.UTC(2026, 10, 26));
    assert.equal(dateOf(dateInput(Date.UTC(2024, 1, 29, 23, 59))), Date.UTC(2024, 1, 29));
    assert.equal(dateInput(null), '');
    assert.equal(dateInput(undefined), '');
    assert.equal(dateOf(''), null);
  });
});
