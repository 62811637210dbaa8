import type { DeclaredField } from './feature-fields.js';

/**
 * The fields of a GeoJSON's features typed as GDAL's GeoJSON driver types them, for a file
 * read without GDAL (a remote layer's source in longitude/latitude): each property becomes
 * a field in the order it first appears, its type widened as later values need (an integer
 * then a real is Real; a number then a text is text), lists typed by their items, objects
 * and mixtures text (GDAL's JSON subtype), and texts that all read as dates (or dates and
 * times) Date or DateTime. A whole number written with a decimal point (`12.0`) parses as an
 * integer here, so a field of only such numbers is Integer where GDAL would say Real.
 */

type OgrType =
  | 'Integer'
  | 'Integer64'
  | 'Real'
  | 'String'
  | 'Date'
  | 'Time'
  | 'DateTime'
  | 'IntegerList'
  | 'Integer64List'
  | 'RealList'
  | 'StringList';
type SubType = 'None' | 'Boolean' | 'JSON';

interface FieldState {
  type: OgrType;
  subtype: SubType;
  /** Only nulls so far: the first value decides the type. */
  undetermined: boolean;
  /** A number or boolean was seen: a text field's such values are made text. */
  sawScalar: boolean;
}

const INT32 = 2 ** 31;

const DATE = /^\d{4}[-/]\d{1,2}[-/]\d{1,2}$/;
const TIME = /^\d{1,2}:\d{1,2}(:\d{1,2}(\.\d+)?)?$/;
const DATE_TIME = /^\d{4}[-/]\d{1,2}[-/]\d{1,2}[T ]\d{1,2}:\d{1,2}(:\d{1,2}(\.\d+)?)?(Z|[+-]\d{2}(:?\d{2})?)?$/i;

/** A text's own type: a date, time or date and time as GDAL recognises them, else String. */
function textType(text: string): OgrType {
  if (DATE.test(text)) return 'Date';
  if (DATE_TIME.test(text)) return 'DateTime';
  if (TIME.test(text)) return 'Time';
  return 'String';
}

/** GDAL's type of one value (its GeoJSONPropertyToFieldType), before texts are told apart. */
function valueType(value: unknown): [OgrType, SubType] {
  if (typeof value === 'boolean') return ['Integer', 'Boolean'];
  if (typeof value === 'number')
    return Number.isInteger(value)
      ? [Math.abs(value) < INT32 || value === -INT32 ? 'Integer' : 'Integer64', 'None']
      : ['Real', 'None'];
  if (typeof value === 'string') return ['String', 'None'];
  if (Array.isArray(value)) return listType(value);
  return ['String', 'JSON'];
}

function listType(items: unknown[]): [OgrType, SubType] {
  if (items.length === 0) return ['String', 'JSON'];
  let type: OgrType = 'IntegerList';
  let subtype: SubType = 'None';
  for (const [i, item] of items.entries()) {
    if (typeof item === 'string') {
      if (i === 0 || type === 'StringList') type = 'StringList';
      else return ['String', 'JSON'];
    } else if (typeof item === 'number' && !Number.isInteger(item)) {
      if (subtype === 'None' && type !== 'StringList') type = 'RealList';
      else return ['String', 'JSON'];
    } else if (typeof item === 'number') {
      if (subtype === 'None' && type === 'IntegerList') {
        if (Math.abs(item) >= INT32 && item !== -INT32) type = 'Integer64List';
      } else if (!(subtype === 'None' && (type === 'Integer64List' || type === 'RealList'))) return ['String', 'JSON'];
    } else if (typeof item === 'boolean') {
      if (i === 0 || (type === 'IntegerList' && subtype === 'Boolean')) subtype = 'Boolean';
      else return ['String', 'JSON'];
    } else return ['String', 'JSON'];
  }
  return [type, subtype];
}

/** The type a field of `current` takes after a value of `next` (GDAL's OGRGeoJSONReaderAddOrUpdateField). */
function widened(current: FieldState, next: [OgrType, SubType], value: unknown): void {
  const [type, subtype] = next;
  const json = () => {
    current.type = 'String';
    current.subtype = 'JSON';
  };
  const set = (to: OgrType) => {
    current.type = to;
    current.subtype = 'None';
  };
  const emptyList = Array.isArray(value) && value.length === 0;
  switch (current.type) {
    case 'Integer':
      if (type === 'Integer' && current.subtype === 'Boolean' && subtype !== 'Boolean') current.subtype = 'None';
      else if (
        type === 'Integer64' ||
        type === 'Real' ||
        type === 'Integer64List' ||
        type === 'RealList' ||
        type === 'StringList'
      )
        set(type);
      else if (type === 'IntegerList') {
        if (current.subtype === 'Boolean' && subtype !== 'Boolean') current.subtype = 'None';
        current.type = type;
      } else if (type !== 'Integer') json();
      return;
    case 'Integer64':
      if (type === 'Real' || type === 'RealList' || type === 'StringList') set(type);
      else if (type === 'IntegerList' || type === 'Integer64List') set('Integer64List');
      else if (type !== 'Integer' && type !== 'Integer64') json();
      return;
    case 'Real':
      if (type === 'IntegerList' || type === 'Integer64List' || type === 'RealList') set('RealList');
      else if (type === 'StringList') set('StringList');
      else if (type !== 'Integer' && type !== 'Integer64' && type !== 'Real') json();
      return;
    case 'String':
      if (current.subtype === 'None') {
        if (type === 'StringList') current.type = 'StringList';
        else if (type !== 'String') current.subtype = 'JSON';
      }
      return;
    case 'IntegerList':
    case 'Integer64List':
    case 'RealList':
      listWidened(current, type, subtype, emptyList, json, set);
      return;
    case 'StringList':
      if (type === 'String' && subtype === 'JSON' && !emptyList) json();
      return;
    default: {
      // Date, Time, DateTime: a text of another kind makes the field text; a date and a date-time make DateTime.
      const kind = type === 'String' && subtype === 'None' ? textType(value as string) : type;
      if (kind === current.type) return;
      if (kind === 'String') {
        current.type = 'String';
        current.subtype = subtype;
      } else if (current.type === 'Date' && kind === 'DateTime') set('DateTime');
      else if (!(current.type === 'DateTime' && kind === 'Date')) json();
    }
  }
}

function listWidened(
  current: FieldState,
  type: OgrType,
  subtype: SubType,
  emptyList: boolean,
  json: () => void,
  set: (to: OgrType) => void,
): void {
  if (type === 'String') {
    if (!emptyList) json();
    return;
  }
  if (current.type === 'IntegerList') {
    if (type === 'Integer64List' || type === 'RealList' || type === 'StringList') set(type);
    else if (type === 'Integer64') set('Integer64List');
    else if (type === 'Real') set('RealList');
    else if (type === 'Integer' || type === 'IntegerList') {
      if (current.subtype === 'Boolean' && subtype !== 'Boolean') current.subtype = 'None';
    } else json();
  } else if (current.type === 'Integer64List') {
    if (type === 'RealList' || type === 'StringList') set(type);
    else if (type === 'Real') set('RealList');
    else if (type !== 'Integer' && type !== 'Integer64' && type !== 'IntegerList' && type !== 'Integer64List') json();
  } else if (type === 'StringList') set(type);
  else if (!['Integer', 'Integer64', 'Real', 'IntegerList', 'Integer64List', 'RealList'].includes(type)) json();
}

export class GeoJsonFieldTypes {
  private readonly fields = new Map<string, FieldState>();

  /** Sees one feature's properties. */
  add(properties: Record<string, unknown>): void {
    for (const name in properties) {
      const value = properties[name];
      const known = this.fields.get(name);
      const isScalar = typeof value === 'number' || typeof value === 'boolean';
      if (!known) {
        this.fields.set(name, { ...this.firstType(value), undetermined: value === null, sawScalar: isScalar });
        continue;
      }
      if (value === null || value === undefined) continue;
      if (isScalar) known.sawScalar = true;
      if (known.undetermined) {
        Object.assign(known, this.firstType(value), { undetermined: false });
        continue;
      }
      widened(known, valueType(value), value);
    }
  }

  /** The fields as GDAL would declare them, in the order their properties first appeared. */
  declared(): DeclaredField[] {
    return [...this.fields].map(([name, { type, subtype }]) => ({
      name,
      type,
      ...(subtype !== 'None' && { subtype }),
    }));
  }

  /** Fields of text that hold numbers or booleans: those values are made text, as GDAL writes a text field's. */
  textFields(): string[] {
    return [...this.fields].filter(([, field]) => field.sawScalar && field.type === 'String').map(([name]) => name);
  }

  private firstType(value: unknown): Pick<FieldState, 'type' | 'subtype'> {
    if (value === null) return { type: 'String', subtype: 'None' };
    const [type, subtype] = valueType(value);
    return { type: type === 'String' && subtype === 'None' ? textType(value as string) : type, subtype };
  }
}
