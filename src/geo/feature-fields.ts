/**
 * The attribute fields of a vector layer: names and types, recorded at ingest so that an
 * export can write each layer as a table with typed columns (features keep their properties
 * as JSON). The types come from what GDAL declares for the file's fields; a property no
 * field declares (a GeoJSON feature's `id`, kept as a property) is typed from its values.
 */

export type FieldType = 'integer' | 'real' | 'string' | 'boolean' | 'date' | 'datetime' | 'json' | 'choice';

/**
 * A field of a layer. Fields made or changed through the API may also say that a feature
 * needs a value (`required`), the values a `choice` field takes (`choices`, texts), and the
 * value a new feature gets when it sends none (`default`).
 */
export interface LayerField {
  name: string;
  type: FieldType;
  required?: boolean;
  choices?: string[];
  default?: unknown;
}

/** A field as GDAL describes it (OGR's type and subtype names). */
export interface DeclaredField {
  name: string;
  type: string;
  subtype?: string;
}

/** OGR's field type (and subtype) as ours: lists become JSON arrays, binary and time stay text. */
export function fieldTypeOf(declared: DeclaredField): FieldType {
  if (declared.subtype === 'Boolean') return 'boolean';
  switch (declared.type) {
    case 'Integer':
    case 'Integer64':
      return 'integer';
    case 'Real':
      return 'real';
    case 'Date':
      return 'date';
    case 'DateTime':
      return 'datetime';
    case 'IntegerList':
    case 'Integer64List':
    case 'RealList':
    case 'StringList':
      return 'json';
    default:
      return 'string';
  }
}

const INTEGER = 1;
const REAL = 2;
const STRING = 4;
const BOOLEAN = 8;
const OTHER = 16;

function kindOf(value: unknown): number {
  if (value === null || value === undefined) return 0;
  switch (typeof value) {
    case 'number':
      return Number.isInteger(value) ? INTEGER : REAL;
    case 'string':
      return STRING;
    case 'boolean':
      return BOOLEAN;
    default:
      return OTHER;
  }
}

function typeOfKinds(kinds: number): FieldType {
  if (kinds === 0 || kinds === STRING) return 'string';
  if (kinds === INTEGER) return 'integer';
  if ((kinds & ~(INTEGER | REAL)) === 0) return 'real';
  if (kinds === BOOLEAN) return 'boolean';
  return 'json';
}

/** Sees every feature's properties and answers the layer's fields: the declared ones first, in order. */
export class FieldCollector {
  private readonly seen = new Map<string, number>();

  add(properties: Record<string, unknown>): void {
    for (const name in properties) this.seen.set(name, (this.seen.get(name) ?? 0) | kindOf(properties[name]));
  }

  fields(declared: DeclaredField[]): LayerField[] {
    const fields = declared.map((field) => ({ name: field.name, type: fieldTypeOf(field) }));
    const named = new Set(fields.map((field) => field.name));
    for (const [name, kinds] of this.seen) if (!named.has(name)) fields.push({ name, type: typeOfKinds(kinds) });
    return fields;
  }
}
