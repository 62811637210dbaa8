import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import ts from 'typescript';
import { LANGUAGES } from '../../web/src/i18n/index.js';
import { assertComplete, catalog, PLURAL } from '../support/catalogs.js';

// The web application speaks through its catalogs (web/src/i18n/locales): every language has
// every message (with the plural forms its grammar needs and the same placeholders), every key
// the code asks for exists, and no component shows words of its own.
const WEB = path.resolve(import.meta.dirname, '../../web/src');
const LOCALES = path.join(WEB, 'i18n/locales');

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'locales' ? [] : sources(file);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [file] : [];
  });

describe('the catalogs of the web application', () => {
  const english = catalog(LOCALES, 'en');

  for (const language of Object.keys(LANGUAGES).filter((l) => l !== 'en')) {
    test(`${language} has every message of English, in each plural form, with the same placeholders`, () => {
      assertComplete(english, catalog(LOCALES, language), language);
    });
  }

  test('every key the code asks for is in English', () => {
    const known = new Set(Object.keys(english).map((key) => key.replace(PLURAL, '')));
    const unknown = sources(WEB).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/\bt\(\s*'([\w.-]+:[\w.-]+)'/g)]
        .map((m) => m[1]!)
        .filter((key) => !known.has(key))
        .map((key) => `${path.relative(WEB, file)}: ${key}`),
    );
    assert.deepEqual(unknown, []);
  });

  test('no component shows words that bypass the catalogs', () => {
    const found = sources(WEB)
      .filter((file) => !NOT_THE_PAGES_WORDS.includes(path.relative(WEB, file)))
      .flatMap((file) => wordsOutsideCatalogs(file).map((words) => `${path.relative(WEB, file)}: ${words}`));
    assert.deepEqual(found, []);
  });
});

/** Attributes a person reads or hears. */
const READ_ATTRIBUTES = new Set(['aria-label', 'title', 'placeholder', 'alt', 'label', 'aria-description']);
/** A sentence or a label: a capital, then a word, then another word (not an identifier or a URL). */
const SENTENCE = /^[A-Z][a-z’']+[,:]? [\p{L}’']+/u;

/** The words a file shows that are not from a catalog. */
function wordsOutsideCatalogs(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isJsxText(node) && /\p{L}/u.test(node.text)) found.push(node.text.trim());
    else if (ts.isJsxAttribute(node) && node.initializer && ts.isStringLiteral(node.initializer)) {
      const name = node.name.getText(source);
      if (READ_ATTRIBUTES.has(name) && /\p{L}/u.test(node.initializer.text)) found.push(node.initializer.text);
    } else if (
      (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node)) &&
      SENTENCE.test(node.text) &&
      !ts.isImportDeclaration(node.parent)
    )
      found.push(node.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * Words that are not the page's own: the entry's one sentence says the application, catalogs and
 * all, did not load; the job words are the service's English, read back to be said in the catalogs'.
 */
const NOT_THE_PAGES_WORDS = ['early.ts', 'room/actions/job-words.ts'];
