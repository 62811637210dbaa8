import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import type { Response } from '../helpers.js';

/** A built web application in a temporary directory (the smallest index.html), as test/web/app.test.ts makes it. */
export function builtWebDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'maproom-embed-web-'));
  mkdirSync(path.join(dir, 'assets'));
  writeFileSync(
    path.join(dir, 'index.html'),
    '<!doctype html>\n<html lang="en">\n  <head>\n    <meta charset="utf-8" />\n    <title>Maproom</title>\n    <!--maproom-config-->\n  </head>\n  <body><div id="app"></div></body>\n</html>\n',
  );
  writeFileSync(path.join(dir, 'assets', 'app.js'), '');
  return dir;
}

/** The page's Content-Security-Policy directives by name, each with its sources. */
export function policyOf(res: Response): Map<string, string[]> {
  const header = res.headers['content-security-policy'];
  assert.equal(typeof header, 'string', 'a Content-Security-Policy header');
  return new Map(
    (header as string)
      .split(';')
      .map((directive) => directive.trim().split(/\s+/))
      .filter((parts) => parts[0])
      .map(([name, ...sources]) => [name!, sources]),
  );
}
