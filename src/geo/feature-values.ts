import type { FieldType, LayerField } from './feature-fields.js';

/**
 * The checks of a feature's properties against its layer's fields: each property must be a
 * field of the layer and hold a value of the field's type, or null (no value).
 */

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** What is wrong with `value` as a value of a field of `type`, or null. */
export function fieldValueProblem(type: FieldType, value: unknown): string | null {
  if (value === null) return null;
  switch (type) {
    case 'integer':
      return Number.isSafeInteger(value) ? null : 'must be an integer';
    case 'real':
      return typeof value === 'number' && Number.isFinite(value) ? null : 'must be a number';
    case 'string':
      return typeof value === 'string' ? null : 'must be a string';
    case 'boolean':
      return typeof value === 'boolean' ? null : 'must be true or false';
    case 'date':
      return typeof value === 'string' && DATE.test(value) && isCalendarDate(value)
        ? null
        : 'must be a date as YYYY-MM-DD';
    case 'datetime':
      return typeof value === 'string' && !Number.isNaN(Date.parse(value))
        ? null
        : 'must be a date and time (ISO 8601)';
    case 'json':
      return null;
  }
}

/** A YYYY-MM-DD text that names a day of the calendar (not 2026-02-30). */
function isCalendarDate(text: string): boolean {
  const day = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(day.getTime()) && day.toISOString().slice(0, 10) === text;
}

/**
 * The first property that is not one of `fields` or holds a value not of its field's type:
 * its name and the problem; null when all are right. A layer whose fields were never recorded
 * (`fields` null) takes any properties.
 */
export function propertiesProblem(
  fields: LayerField[] | null,
  properties: Record<string, unknown>,
): { name: string; problem: string } | null {
  if (!fields) return null;
  const types = new Map(fields.map((f) => [f.name, f.type]));
  for (const [name, value] of Object.entries(properties)) {
    const type = types.get(name);
    if (!type) return { name, problem: 'is not a field of the layer' };
    const problem = fieldValueProblem(type, value);
    if (problem) return { name, problem };
  }
  return null;
}
