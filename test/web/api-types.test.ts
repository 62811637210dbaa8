import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { limitsOf } from '../../scripts/web-api-limits.mjs';
import { openApiDocument, openApiTypes } from '../../scripts/web-api-types.mjs';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { TEST_DB } from '../helpers.js';

/**
 * The web application's API types (web/src/api/schema.d.ts) are generated from the service's
 * OpenAPI document by scripts/web-api-types.mjs; the committed file must be what the service's
 * route schemas give now, or the client would be typed against an interface that no longer
 * is. The document does not depend on the database: this runs once, on SQLite.
 */

const committed = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../web/src/api/schema.d.ts');

test('web/src/api/schema.d.ts is generated from the current OpenAPI document', {
  skip: TEST_DB !== 'sqlite' && 'the OpenAPI document does not depend on the database',
}, async () => {
  const generated = await openApiTypes(buildApp, loadConfig);
  assert.ok(generated.includes('"/api/rooms/{roomId}"'), "the generated types name the interface's paths");
  const current = readFileSync(committed, 'utf8');
  if (current !== generated) {
    const lines = [current.split('\n'), generated.split('\n')] as const;
    const differs = lines[0].findIndex((line, i) => line !== lines[1][i]);
    const first = differs >= 0 ? differs : lines[0].length;
    assert.fail(
      'web/src/api/schema.d.ts is stale: run `npx tsc -p tsconfig.build.json && node scripts/web-api-types.mjs` (or npm run build) and commit the file.\n' +
        `First difference at line ${first + 1}:\n  committed: ${lines[0][first]}\n  generated: ${lines[1][first]}`,
    );
  }
});

test('web/src/api/limits.ts holds the limits of the current OpenAPI document, files included', {
  skip: TEST_DB !== 'sqlite' && 'the OpenAPI document does not depend on the database',
}, async () => {
  const document = await openApiDocument(buildApp, loadConfig);
  const generated = limitsOf(document);
  // What the web's forms rely on: the room's name, a photo's cap (documented as x-upload), the room id.
  assert.match(generated, /"PATCH \/api\/rooms\/\{roomId\}": \{\s+"name": \{\s+"minLength": 1,\s+"maxLength": 100/);
  const photo = document.paths['/api/rooms/{roomId}/markers/upload-image'].post['x-upload'];
  assert.deepEqual(photo?.files.image, { maxBytes: 20 * 1024 * 1024 }, 'the route documents the cap it receives with');
  const current = readFileSync(path.join(path.dirname(committed), 'limits.ts'), 'utf8');
  assert.ok(
    current === generated,
    'web/src/api/limits.ts is stale: run `npx tsc -p tsconfig.build.json && node scripts/web-api-types.mjs` and commit it.',
  );
});
