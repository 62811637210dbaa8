import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('./fixtures/make_vector_fixtures.py', import.meta.url));

/** Bigger files the script writes only when asked (see make_vector_fixtures.py). */
export type OptionalFixtureSet = 'many' | 'over5mb' | 'over50mb';

/**
 * Writes the vector test files (test/fixtures/make_vector_fixtures.py, GDAL through Debian's
 * python3) into a fresh temporary folder, with the optional sets named; `remove()` deletes it.
 */
export function makeVectorFixtures(...sets: OptionalFixtureSet[]): {
  dir: string;
  file(name: string): string;
  remove(): void;
} {
  const dir = mkdtempSync(path.join(tmpdir(), 'maproom-vector-'));
  const run = spawnSync('/usr/bin/python3', [SCRIPT, dir, ...sets], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`make_vector_fixtures.py failed: ${run.stderr}`);
  return { dir, file: (name) => path.join(dir, name), remove: () => rmSync(dir, { recursive: true, force: true }) };
}
