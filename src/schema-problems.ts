import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';

/**
 * Checks values against a TypeBox schema outside a route (files that jobs read, multipart
 * fields) and says what is wrong in words taken from the schema, so that the rules are
 * written once: in the schema.
 */
export class SchemaCheck<T extends TSchema> {
  private readonly compiled;

  constructor(private readonly schema: T) {
    this.compiled = Compile(schema);
  }

  /** Null when `value` fits, else `<field> must be <what the schema allows>`. */
  problem(value: unknown): string | null {
    if (this.compiled.Check(value)) return null;
    const [first] = this.compiled.Errors(value);
    const path = (first?.instancePath ?? '').split('/').filter(Boolean);
    const field = path.find((p) => !/^\d+$/.test(p)) ?? 'value';
    const fieldSchema = (this.schema as { properties?: Record<string, TSchema> }).properties?.[field] ?? this.schema;
    return `${field} must be ${describe(fieldSchema)}`;
  }
}

const range = (s: Record<string, unknown>) =>
  s.minimum !== undefined && s.maximum !== undefined ? ` from ${s.minimum} to ${s.maximum}` : '';

/** A schema in a few words: "a string of at most 200 characters", "an integer from 8 to 256". */
export function describe(schema: TSchema, plural = false): string {
  // biome-ignore lint/suspicious/noExplicitAny: reads any TypeBox schema's keywords
  const s = schema as Record<string, any>;
  if (Array.isArray(s.anyOf)) {
    const options = (s.anyOf as TSchema[]).filter((o) => (o as Record<string, unknown>).type !== 'null');
    const nullable = options.length < s.anyOf.length;
    return options.map((o) => describe(o, plural)).join(' or ') + (nullable ? ' or null' : '');
  }
  if (Array.isArray(s.enum)) return `one of ${s.enum.join(', ')}`;
  const note = s.description ? ` (${String(s.description).replace(/\.$/, '').toLowerCase()})` : '';
  const noun = (word: string, article: string, details: string) =>
    `${plural ? `${word}s` : `${article} ${word}`}${details}${note}`;
  switch (s.type) {
    case 'string': {
      const length =
        s.minLength !== undefined && s.maxLength !== undefined
          ? ` of ${s.minLength} to ${s.maxLength} characters`
          : s.maxLength !== undefined
            ? ` of at most ${s.maxLength} characters`
            : '';
      return noun('string', 'a', length);
    }
    case 'number':
      return noun('number', 'a', range(s));
    case 'integer':
      return noun('integer', 'an', range(s));
    case 'boolean':
      return 'true or false';
    case 'array':
      return noun(
        'array',
        'an',
        ` of ${s.maxItems !== undefined ? `at most ${s.maxItems} ` : ''}${describe(s.items, true)}`,
      );
    case 'object':
      return noun('object', 'an', '');
    default:
      return 'valid';
  }
}
