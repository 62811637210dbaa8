/**
 * The shape of the code, checked: no module imports a higher layer, and the domains under
 * src/modules import each other without cycles. Layers, lowest first (docs/patterns.md):
 * base files (errors, ids, emails, config, schema-types, schema-problems) < geo, db < infra < auth < http
 * < modules < app, server.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src');

/** What each part of src/ may import from (besides itself and packages). */
const MAY_IMPORT: Record<string, string[]> = {
  base: [],
  geo: ['base'],
  db: ['base'],
  infra: ['base', 'db'],
  auth: ['base', 'db', 'infra'],
  http: ['base', 'db', 'infra', 'auth'],
  modules: ['base', 'geo', 'db', 'infra', 'auth', 'http'],
  root: ['base', 'geo', 'db', 'infra', 'auth', 'http', 'modules'],
};

const ROOT_FILES = new Set(['app.ts', 'server.ts']);

function partOf(file: string): string {
  const relative = path.relative(SRC, file);
  const [first] = relative.split(path.sep);
  if (relative === first) return ROOT_FILES.has(first!) ? 'root' : 'base';
  return first!;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** The project files a file imports (relative specifiers, `.js` mapped back to `.ts`). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]/g)].map(
    (m) => m[1]!,
  );
  return specifiers.map((s) => path.resolve(path.dirname(file), s.replace(/\.js$/, '.ts')));
}

const files = sourceFiles(SRC);

test('no file imports a layer above its own', () => {
  const violations: string[] = [];
  for (const file of files) {
    const from = partOf(file);
    for (const target of importsOf(file)) {
      const to = partOf(target);
      if (to !== from && !MAY_IMPORT[from]!.includes(to)) {
        violations.push(`${path.relative(SRC, file)} (${from}) imports ${path.relative(SRC, target)} (${to})`);
      }
    }
  }
  assert.deepEqual(violations, []);
});

test('the domains under src/modules depend on each other without cycles', () => {
  const domainOf = (file: string) => path.relative(path.join(SRC, 'modules'), file).split(path.sep)[0]!;
  const edges = new Map<string, Set<string>>();
  for (const file of files.filter((f) => partOf(f) === 'modules')) {
    for (const target of importsOf(file).filter((t) => partOf(t) === 'modules')) {
      const [a, b] = [domainOf(file), domainOf(target)];
      if (a !== b) edges.set(a, (edges.get(a) ?? new Set()).add(b));
    }
  }
  const cycles: string[] = [];
  const visit = (node: string, trail: string[]) => {
    if (trail.includes(node)) {
      cycles.push([...trail.slice(trail.indexOf(node)), node].join(' -> '));
      return;
    }
    for (const next of edges.get(node) ?? []) visit(next, [...trail, node]);
  };
  for (const node of edges.keys()) visit(node, []);
  assert.deepEqual([...new Set(cycles)], []);
});

test('the check sees the imports it is meant to judge', () => {
  // A guard against a regular expression that matches nothing: app.ts imports every layer.
  const parts = new Set(importsOf(path.join(SRC, 'app.ts')).map(partOf));
  for (const part of ['db', 'infra', 'auth', 'http', 'modules']) assert.ok(parts.has(part), part);
});
