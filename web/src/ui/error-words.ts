// `.js`: test/web/error-words.test.ts imports this file, type-checked under NodeNext.
import { megabytes } from './limits.js';

/**
 * The service's error answers in words a person reads: `{error, message, details}` becomes a
 * sentence that names the field as the page calls it ("The name may be at most 100
 * characters.") instead of the validator's "body.name must NOT have more than 100 characters";
 * byte counts become megabytes. Pure, so that it is unit-tested (test/web/error-words.test.ts).
 */

/** How the page calls the fields the service names (the last part of `body.x.y`, or a form's part). */
const FIELD_NAMES: Record<string, string> = {
  name: 'name',
  description: 'description',
  title: 'title',
  body: 'text',
  objectName: 'name of the commented object',
  label: 'label',
  email: 'e-mail address',
  password: 'password',
  role: 'role',
  color: 'colour',
  tags: 'tags',
  eventDate: 'date',
  markerIconId: 'icon',
  markerIconSize: 'icon size',
  embeddedMediaUrl: 'video or page link',
  mediaSize: 'media size',
  expiresInDays: 'number of days',
  permissions: 'permissions',
  roomId: 'room id',
  roomName: 'room id',
  layerName: 'layer name',
  image: 'photo',
  thumbnail: 'thumbnail',
  icon: 'icon file',
  file: 'file',
  chunk: 'file part',
  size: 'size',
  opacity: 'opacity',
  strokeWeight: 'line width',
  lat: 'latitude',
  lng: 'longitude',
  latitude: 'latitude',
  longitude: 'longitude',
  zoom: 'zoom',
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
    const list = fieldName(parts.slice(0, -1).join('.'));
    return `${list.replace(/s$/, '')} ${Number(last) + 1}`;
  }
  return FIELD_NAMES[last] ?? last.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}

/** What a field's pattern asks, in words, for the fields whose pattern a person can get wrong. */
const PATTERN_WORDS: Record<string, string> = {
  embeddedMediaUrl: 'must be a web address starting with http:// or https://',
  title: 'may not hold line breaks',
  color: 'must be a colour such as #3388ff',
  roomId: 'must be exactly 10 characters: letters, digits, _ or -',
};

/** The validator's phrases (Ajv's, and the service's own) and how a person says them. */
const PHRASES: [RegExp, (m: RegExpMatchArray, key: string) => string][] = [
  [
    /^must NOT have more than (\d+) characters?$/,
    (m) => `may be at most ${Number(m[1]).toLocaleString('en')} characters`,
  ],
  [
    /^must NOT have fewer than (\d+) characters?$/,
    (m) => (m[1] === '1' ? 'may not be empty' : `must be at least ${m[1]} characters`),
  ],
  [/^must NOT have more than (\d+) items?$/, (m) => `may hold at most ${m[1]}`],
  [/^must NOT have fewer than (\d+) items?$/, (m) => `must hold at least ${m[1]}`],
  [/^must be <= (\S+)$/, (m) => `may be at most ${m[1]}`],
  [/^must be < (\S+)$/, (m) => `must be less than ${m[1]}`],
  [/^must be >= (\S+)$/, (m) => `must be at least ${m[1]}`],
  [/^must be > (\S+)$/, (m) => `must be more than ${m[1]}`],
  [/^must be integer$/, () => 'must be a whole number'],
  [/^must be number$/, () => 'must be a number'],
  [/^must be string$/, () => 'must be text'],
  [/^must be boolean$/, () => 'must be yes or no'],
  [/^must match format "email"$/, () => 'must be an e-mail address'],
  [/^must match format "uri"$/, () => 'must be a web address'],
  [/^must match pattern ".*"$/, (_m, key) => PATTERN_WORDS[key] ?? 'is not in the accepted form'],
  [/^must be one of: (.*)$/, (m) => `must be one of ${m[1]}`],
  [/^must be equal to one of the allowed values$/, () => 'is not one of the accepted values'],
  [/^is required$/, () => 'is missing'],
  [/^is not an accepted field.*$/, () => 'is not accepted here'],
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
  const subject = /\.\d+$/.test(field) ? fieldName(field) : `The ${fieldName(field)}`;
  for (const [pattern, words] of PHRASES) {
    const match = problem.match(pattern);
    if (match) return sentence(`${subject} ${words(match, key)}`);
  }
  return sentence(`${subject} ${problem}`);
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
    const what = typeof details.field === 'string' ? fieldName(details.field) : 'file';
    return sentence(`The ${what} is too large: it may be at most ${megabytes(details.maxBytes)}`);
  }
  if (code === 'quota_exceeded' && isObject(details) && typeof details.neededBytes === 'number') {
    const left = typeof details.availableBytes === 'number' ? megabytes(details.availableBytes) : 'nothing';
    return `The room owner's storage is full: this needs ${megabytes(details.neededBytes)} and ${left} is left.`;
  }
  const retry = /retry in (\d+) s/.exec(message);
  if (code === 'too_many_requests' && retry) return `Too many tries in a short time; try again in ${retry[1]} seconds.`;
  if (code.startsWith('unknown_field:')) return `The field “${code.slice('unknown_field:'.length)}” is not accepted.`;
  return withMegabytes(message);
}
