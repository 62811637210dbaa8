#!/usr/bin/env node
// The `maproom` command. It runs the compiled command line, dist/src/cli/main.js, which
// `npm ci` makes (the `prepare` script) and a package or global install carries. In a
// checkout whose src/cli changed since that build, it runs the sources through tsx instead,
// so an edit needs no build step.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const compiled = path.join(root, 'dist/src/cli/main.js');
const sources = path.join(root, 'src/cli');

/** The newest modification time under a directory. */
function newest(dir) {
  return readdirSync(dir, { withFileTypes: true }).reduce((latest, entry) => {
    const full = path.join(dir, entry.name);
    return Math.max(latest, entry.isDirectory() ? newest(full) : statSync(full).mtimeMs);
  }, 0);
}

async function load() {
  const stale = existsSync(sources) && (!existsSync(compiled) || newest(sources) > statSync(compiled).mtimeMs);
  if (stale) {
    try {
      const { register } = await import('tsx/esm/api');
      register();
      return await import(pathToFileURL(path.join(sources, 'main.ts')).href);
    } catch (error) {
      if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !existsSync(compiled)) throw error;
    }
  }
  return import(pathToFileURL(compiled).href);
}

const { run } = await load();
process.exitCode = await run(process.argv);
