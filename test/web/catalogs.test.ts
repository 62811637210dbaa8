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
      .filter((file) => ![...NOT_YET_IN_CATALOGS, ...BEFORE_CATALOGS].includes(path.relative(WEB, file)))
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
 * Files whose words are still to move into the catalogs (the list only shrinks). The page's
 * entry is not among them: its one sentence says the application, catalogs and all, did not load.
 */
const NOT_YET_IN_CATALOGS: string[] = [
  'map/base-map.ts',
  'map/measure.ts',
  'pages/account-page.tsx',
  'pages/admin/admin-audit.tsx',
  'pages/admin/admin-format.ts',
  'pages/admin/admin-jobs.tsx',
  'pages/admin/admin-limits.tsx',
  'pages/admin/admin-list.tsx',
  'pages/admin/admin-page.tsx',
  'pages/admin/admin-rooms.tsx',
  'pages/admin/admin-users.tsx',
  'pages/auth-form.tsx',
  'pages/confirm-address.tsx',
  'pages/deck-page.tsx',
  'pages/forgot-password.tsx',
  'pages/home-page.tsx',
  'pages/password-field.tsx',
  'pages/reset-password-page.tsx',
  'pages/room-page.tsx',
  'pages/sign-in-again.tsx',
  'pages/sign-in.tsx',
  'pages/signed-in-page.tsx',
  'pages/verify-email-page.tsx',
  'room/actions/layer-upload.ts',
  'room/actions/markers.ts',
  'room/actions/members.ts',
  'room/actions/room.ts',
  'room/announcer.tsx',
  'room/bottom-sheet.tsx',
  'room/deck-player.tsx',
  'room/find.ts',
  'room/in-view.tsx',
  'room/keyboard.tsx',
  'room/legend.tsx',
  'room/map-view.tsx',
  'room/panels/attribute-table.tsx',
  'room/panels/comments-thread.tsx',
  'room/panels/draw-panel.tsx',
  'room/panels/drawing-details.tsx',
  'room/panels/export-import-section.tsx',
  'room/panels/feature-attributes.tsx',
  'room/panels/history-panel.tsx',
  'room/panels/icon-picker.tsx',
  'room/panels/layer-style-form.tsx',
  'room/panels/layers-panel.tsx',
  'room/panels/marker-details.tsx',
  'room/panels/marker-media.tsx',
  'room/panels/markers-panel.tsx',
  'room/panels/members-section.tsx',
  'room/panels/raster-display-form.tsx',
  'room/panels/selection-panel.tsx',
  'room/panels/settings-panel.tsx',
  'room/panels/slides-panel.tsx',
  'room/panels/time-slider.tsx',
  'room/panels/timeline-settings-section.tsx',
  'room/panels/tokens-section.tsx',
  'room/placing.ts',
  'room/presence-avatars.tsx',
  'room/raster-identify.ts',
  'room/room-layout.tsx',
  'room/search-box.tsx',
  'room/time-bar.tsx',
  'room/timeline.ts',
  'room/undo.ts',
  'ui/confirm-dialog.ts',
  'ui/error-words.ts',
  'ui/fields.tsx',
  'ui/inline-error.tsx',
  'ui/limits.ts',
  'ui/notice-toast.tsx',
  'ui/notices.ts',
  'ui/upload.ts',
];
const BEFORE_CATALOGS = ['early.ts'];
