import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { mailTexts } from '../../src/infra/mail-texts.js';
import { LOCALES } from '../../src/locales.js';
import { LANGUAGES } from '../../web/src/i18n/index.js';
import { assertComplete, catalog, PLURAL, placeholders } from '../support/catalogs.js';

// The e-mails' catalogs (src/infra/locales/<lang>/mail.json): every language the web
// application offers has every message, in the plural forms its grammar needs, with the same
// placeholders; every key the code asks for exists; and each message renders whole.
const SRC = path.resolve(import.meta.dirname, '../../src');
const LOCALES_DIR = path.join(SRC, 'infra/locales');

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(file);
    return entry.name.endsWith('.ts') ? [file] : [];
  });

describe('the catalogs of the e-mails', () => {
  const english = catalog(LOCALES_DIR, 'en');

  test('the service speaks the languages of the web application, each with a folder', () => {
    assert.deepEqual([...LOCALES].sort(), Object.keys(LANGUAGES).sort());
    assert.deepEqual(readdirSync(LOCALES_DIR).sort(), [...LOCALES].sort());
  });

  for (const language of LOCALES.filter((l) => l !== 'en')) {
    test(`${language} has every message of English, in each plural form, with the same placeholders`, () => {
      assertComplete(english, catalog(LOCALES_DIR, language), language);
    });
  }

  test('every key the mail code asks for is in English', () => {
    const known = new Set(Object.keys(english).map((key) => key.replace(PLURAL, '').replace(/^mail:/, '')));
    const asked = sources(SRC).flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      if (!text.includes('mailTexts(')) return [];
      return [...text.matchAll(/\bt\(\s*['`]([\w.]+)(?:\$\{[^}]+\})?['`]/g)].map((m) => [file, m[1]!] as const);
    });
    assert.ok(asked.length >= 12, `only ${asked.length} keys found`);
    const unknown = asked
      // A key built from a value (`invitation.role.${role}`) names its group.
      .filter(([, key]) => !known.has(key) && ![...known].some((k) => key.endsWith('.') && k.startsWith(key)))
      .map(([file, key]) => `${path.relative(SRC, file)}: ${key}`);
    assert.deepEqual(unknown, []);
  });

  for (const language of LOCALES) {
    test(`${language}: every message renders with its values, nothing left unfilled`, () => {
      const t = mailTexts(language);
      for (const key of new Set(Object.keys(english).map((k) => k.replace(/^mail:/, '').replace(PLURAL, '')))) {
        const values = Object.fromEntries(
          placeholders(english[`mail:${key}`] ?? english[`mail:${key}_other`]!).map((p) => [p, `<${p}>`]),
        );
        for (const count of [0, 1, 2, 5, 24, 30, 1000000]) {
          const text = t(key, { ...values, count });
          assert.doesNotMatch(text, /\{\{|\}\}|\$t\(/, `${language} ${key}`);
          assert.notEqual(text, key, `${language} ${key} is missing`);
          for (const p of Object.keys(values).filter((p) => p !== 'count'))
            assert.ok(text.includes(`<${p}>`), `${language} ${key}: ${p}`);
        }
      }
    });
  }

  test('a count is written the way the language writes numbers', () => {
    for (const language of LOCALES) {
      const expected = new Intl.NumberFormat(language).format(1000000);
      assert.ok(mailTexts(language)('withinHours', { count: 1000000 }).includes(expected), language);
    }
  });
});
