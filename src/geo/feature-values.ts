import type { FieldType, LayerField } from './feature-fields.js';

/**
 * The checks of a feature's properties against its layer's fields: each property must be a
 * field of the layer and hold a value of the field's type (one of its choices), or null (no
 * value) unless the field is required.
 */

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** What is wrong with `value` as a value of a field of `type`, or null. */
export function fieldValueProblem(type: FieldType, value: unknown, choices: string[] = []): string | null {
  if (value === null) return null;
  switch (type) {
    case 'choice':
      return typeof value === 'string' && choices.includes(value)
        ? null
        : `must be one of ${choices.map((c) => JSON.stringify(c)).join(', ')}`;
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
 * The first property that is not one of `fields`, holds a value not of its field's type, or
 * null in a required field: its name and the problem; null when all are right. `creating`: the
 * properties of a new feature, which must hold every required field. A layer whose fields were
 * never recorded (`fields` null) takes any properties.
 */
export function propertiesProblem(
  fields: LayerField[] | null,
  properties: Record<string, unknown>,
  { creating = false }: { creating?: boolean } = {},
): { name: string; problem: string } | null {
  if (!fields) return null;
  const byName = new Map(fields.map((f) => [f.name, f]));
  for (const [name, value] of Object.entries(properties)) {
    const field = byName.get(name);
    if (!field) return { name, problem: 'is not a field of the layer' };
    if (value === null && field.required) return { name, problem: 'is required' };
    const problem = fieldValueProblem(field.type, value, field.choices);
    if (problem) return { name, problem };
  }
  if (creating) {
    const missing = fields.find(
      (f) => f.required && (Object.hasOwn(properties, f.name) ? properties[f.name] : null) === null,
    );
    if (missing) return { name: missing.name, problem: 'is required' };
  }
  return null;
}

/** A new feature's properties with each field it does not give set to the field's default, where it has one. */
export function withDefaults(
  fields: LayerField[] | null,
  properties: Record<string, unknown>,
): Record<string, unknown> {
  const filled = { ...properties };
  for (const field of fields ?? [])
    if (field.default !== undefined && field.default !== null && !Object.hasOwn(filled, field.name))
      filled[field.name] = field.default;
  return filled;
}
