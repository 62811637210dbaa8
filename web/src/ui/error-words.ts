// `.js`: test/web/error-words.test.ts imports this file, type-checked under NodeNext.
import { formatNumber, t } from '../i18n/index.js';
import { megabytes } from './limits.js';

/**
 * The service's error answers in words a person reads: `{error, message, details}` becomes a
 * sentence that names the field as the page calls it ("The name may be at most 100
 * characters.") instead of the validator's "body.name must NOT have more than 100 characters";
 * byte counts become megabytes. Pure, so that it is unit-tested (test/web/error-words.test.ts).
 */

/** How the page calls the fields the service names (the last part of `body.x.y`, or a form's part). */
const FIELD_NAMES: Record<string, () => string> = {
  name: () => t('ui:fieldNames.name'),
  description: () => t('ui:fieldNames.description'),
  title: () => t('ui:fieldNames.title'),
  body: () => t('ui:fieldNames.body'),
  objectName: () => t('ui:fieldNames.objectName'),
  label: () => t('ui:fieldNames.label'),
  email: () => t('ui:fieldNames.email'),
  password: () => t('ui:fieldNames.password'),
  role: () => t('ui:fieldNames.role'),
  color: () => t('ui:fieldNames.color'),
  tags: () => t('ui:fieldNames.tags'),
  eventDate: () => t('ui:fieldNames.eventDate'),
  markerIconId: () => t('ui:fieldNames.markerIconId'),
  markerIconSize: () => t('ui:fieldNames.markerIconSize'),
  embeddedMediaUrl: () => t('ui:fieldNames.embeddedMediaUrl'),
  mediaSize: () => t('ui:fieldNames.mediaSize'),
  expiresInDays: () => t('ui:fieldNames.expiresInDays'),
  permissions: () => t('ui:fieldNames.permissions'),
  roomId: () => t('ui:fieldNames.roomId'),
  roomName: () => t('ui:fieldNames.roomId'),
  layerName: () => t('ui:fieldNames.layerName'),
  image: () => t('ui:fieldNames.image'),
  thumbnail: () => t('ui:fieldNames.thumbnail'),
  icon: () => t('ui:fieldNames.icon'),
  file: () => t('ui:fieldNames.file'),
  chunk: () => t('ui:fieldNames.chunk'),
  size: () => t('ui:fieldNames.size'),
  opacity: () => t('ui:fieldNames.opacity'),
  strokeWeight: () => t('ui:fieldNames.strokeWeight'),
  lat: () => t('ui:fieldNames.latitude'),
  lng: () => t('ui:fieldNames.longitude'),
  latitude: () => t('ui:fieldNames.latitude'),
  longitude: () => t('ui:fieldNames.longitude'),
  zoom: () => t('ui:fieldNames.zoom'),
};

/** How the page calls one item of a list the service names (`body.tags.2` is "tag 3"). */
const ITEM_NAMES: Record<string, () => string> = {
  tags: () => t('ui:itemNames.tags'),
  permissions: () => t('ui:itemNames.permissions'),
};

const sentence = (text: string) => {
  const trimmed = text.trim().replace(/[.;:\s]+$/, '');
  return `${trimmed.charAt(0).toUpperCase()}${trimmed.slice(1)}.`;
};

/** `body.tags.2` is "tag 3"; `body.defaultView.lat` is "latitude"; an unknown name is split into words. */
export function fieldName(field: string): string {
  const parts = field.split('.').filter((p) => !['body', 'querystring', 'params'].includes(p));
  const last = parts.at(-1) ?? field;
  if (/^\d+$/.test(last) && parts.length > 1) {
    const list = parts.at(-2)!;
    const item = Object.hasOwn(ITEM_NAMES, list)
      ? ITEM_NAMES[list]!()
      : fieldName(parts.slice(0, -1).join('.')).replace(/s$/, '');
    return t('ui:field.item', { name: item, number: Number(last) + 1 });
  }
  return Object.hasOwn(FIELD_NAMES, last)
    ? FIELD_NAMES[last]!()
    : last.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}

/** What a field's pattern asks, in words, for the fields whose pattern a person can get wrong. */
const PATTERN_WORDS: Record<string, () => string> = {
  embeddedMediaUrl: () => t('ui:patterns.embeddedMediaUrl'),
  title: () => t('ui:patterns.title'),
  color: () => t('ui:patterns.color'),
  roomId: () => t('ui:patterns.roomId'),
};

/** The validator's phrases (Ajv's, and the service's own) and how a person says them. */
const PHRASES: [RegExp, (m: RegExpMatchArray, key: string) => string][] = [
  [
    /^must NOT have more than (\d+) characters?$/,
    (m) => t('ui:problems.maxLength', { count: Number(m[1]), max: formatNumber(Number(m[1])) }),
  ],
  [
    /^must NOT have fewer than (\d+) characters?$/,
    (m) => (m[1] === '1' ? t('ui:problems.empty') : t('ui:problems.minLength', { count: Number(m[1]), min: m[1] })),
  ],
  [/^must NOT have more than (\d+) items?$/, (m) => t('ui:problems.maxItems', { max: m[1] })],
  [/^must NOT have fewer than (\d+) items?$/, (m) => t('ui:problems.minItems', { min: m[1] })],
  [/^must be <= (\S+)$/, (m) => t('ui:problems.atMost', { value: m[1] })],
  [/^must be < (\S+)$/, (m) => t('ui:problems.lessThan', { value: m[1] })],
  [/^must be >= (\S+)$/, (m) => t('ui:problems.atLeast', { value: m[1] })],
  [/^must be > (\S+)$/, (m) => t('ui:problems.moreThan', { value: m[1] })],
  [/^must be integer$/, () => t('ui:problems.integer')],
  [/^must be number$/, () => t('ui:problems.number')],
  [/^must be string$/, () => t('ui:problems.string')],
  [/^must be boolean$/, () => t('ui:problems.boolean')],
  [/^must match format "email"$/, () => t('ui:problems.email')],
  [/^must match format "uri"$/, () => t('ui:problems.uri')],
  [
    /^must match pattern ".*"$/,
    (_m, key) => (Object.hasOwn(PATTERN_WORDS, key) ? PATTERN_WORDS[key]!() : t('ui:problems.pattern')),
  ],
  [/^must be one of: (.*)$/, (m) => t('ui:problems.oneOf', { values: m[1] })],
  [/^must be equal to one of the allowed values$/, () => t('ui:problems.allowedValues')],
  [/^is required$/, () => t('ui:problems.required')],
  [/^is not an accepted field.*$/, () => t('ui:problems.notAccepted')],
];

/** One field's problem as a sentence: "The name may be at most 100 characters." */
export function fieldProblem(field: string, message: string): string {
  // The service's detail repeats the field's name first (`body.name must NOT ...`) or not (`is required`).
  const problem = message.startsWith(`${field} `) ? message.slice(field.length + 1) : message;
  const key =
    field
      .split('.')
      .filter((p) => !/^\d+$/.test(p))
      .at(-1) ?? field;
  // An item of a list is named by its number ("Tag 2 may ..."), a field with "the" ("The name may ...").
  const subject = /\.\d+$/.test(field) ? fieldName(field) : t('ui:field.the', { name: fieldName(field) });
  for (const [pattern, words] of PHRASES) {
    const match = problem.match(pattern);
    if (match) return sentence(t('ui:field.problem', { subject, problem: words(match, key) }));
  }
  return sentence(t('ui:field.problem', { subject, problem }));
}

/** Byte counts in a message ("larger than 20971520 bytes") as megabytes. */
export const withMegabytes = (text: string) =>
  text.replace(/(\d{4,}) bytes(?: \([^)]*\))?/g, (_all, n: string) => megabytes(Number(n)));

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** An error answer (`code`, `message`, `details`) as a sentence a person understands. */
export function errorWords(code: string, message: string, details?: unknown): string {
  const first = Array.isArray(details) ? details[0] : undefined;
  if (isObject(first) && typeof first.field === 'string' && typeof first.message === 'string')
    return fieldProblem(first.field, first.message);
  if (code === 'file_too_large' && isObject(details) && typeof details.maxBytes === 'number') {
    const name = fieldName(typeof details.field === 'string' ? details.field : 'file');
    return sentence(t('ui:errors.fileTooLarge', { name, max: megabytes(details.maxBytes) }));
  }
  if (code === 'quota_exceeded' && isObject(details) && typeof details.neededBytes === 'number') {
    const needed = megabytes(details.neededBytes);
    return typeof details.availableBytes === 'number'
      ? t('ui:errors.quotaFull', { needed, left: megabytes(details.availableBytes) })
      : t('ui:errors.quotaFullNothingLeft', { needed });
  }
  const retry = /retry in (\d+) s/.exec(message);
  if (code === 'too_many_requests' && retry)
    return t('ui:errors.tooManyRequests', { count: Number(retry[1]), seconds: retry[1] });
  if (code === 'not_points') return t('ui:errors.notPoints');
  if (code.startsWith('unknown_field:'))
    return t('ui:errors.unknownField', { field: code.slice('unknown_field:'.length) });
  return withMegabytes(message);
}
