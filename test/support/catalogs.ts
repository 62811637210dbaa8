import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

// Message catalogs as i18next reads them (a folder per language, a JSON file per namespace),
// flattened to `namespace:key` for the tests that check them.
export const PLURAL = /_(zero|one|two|few|many|other)$/;

export type Messages = Record<string, string>;
const flatten = (value: unknown, prefix = ''): [string, string][] =>
  Object.entries(value as Record<string, unknown>).flatMap(([key, inner]) => {
    const name = prefix.endsWith(':') || !prefix ? `${prefix}${key}` : `${prefix}.${key}`;
    return typeof inner === 'string' ? [[name, inner] as [string, string]] : flatten(inner, name);
  });
export const catalog = (locales: string, language: string): Messages =>
  Object.fromEntries(
    readdirSync(path.join(locales, language)).flatMap((file) =>
      flatten(JSON.parse(readFileSync(path.join(locales, language, file), 'utf8')), file.replace(/\.json$/, ':')),
    ),
  );
export const placeholders = (message: string) => [...message.matchAll(/\{\{\s*(\w+)/g)].map((m) => m[1]).sort();

/** Each message of English, as the keys a language must have for it. */
export function expectedKeys(english: Messages, language: string): Map<string, string> {
  const categories = new Intl.PluralRules(language).resolvedOptions().pluralCategories;
  const expected = new Map<string, string>();
  for (const [key, message] of Object.entries(english)) {
    if (!PLURAL.test(key)) expected.set(key, message);
    else for (const category of categories) expected.set(key.replace(PLURAL, `_${category}`), message);
  }
  return expected;
}

/** Fails unless a language has every message of English, in each plural form, with the same placeholders. */
export function assertComplete(english: Messages, own: Messages, language: string): void {
  const expected = expectedKeys(english, language);
  const missing = [...expected.keys()].filter((key) => !(key in own));
  assert.deepEqual(missing, [], `missing in ${language}`);
  const extra = Object.keys(own).filter((key) => !expected.has(key));
  assert.deepEqual(extra, [], `not in English, in ${language}`);
  for (const [key, message] of Object.entries(own)) {
    const wanted = placeholders(expected.get(key)!).filter((p) => p !== 'count');
    const used = placeholders(message).filter((p) => p !== 'count');
    assert.deepEqual(used, wanted, `${language} ${key}: placeholders`);
  }
}
