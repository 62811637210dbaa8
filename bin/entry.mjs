// Loads a command's compiled entry under dist/, or, in a checkout whose sources changed since
// that build, its TypeScript sources through tsx, so that an edit needs no build step.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The newest modification time under a directory. */
function newest(dir) {
  return readdirSync(dir, { withFileTypes: true }).reduce((latest, entry) => {
    const full = path.join(dir, entry.name);
    return Math.max(latest, entry.isDirectory() ? newest(full) : statSync(full).mtimeMs);
  }, 0);
}

/**
 * The module `source` (a .ts path from the root), or its build under dist/ when that is newer
 * than everything under `watched` (the folder whose changes make the build stale).
 */
export async function loadEntry(source, watched) {
  const compiled = path.join(root, 'dist', source.replace(/\.ts$/, '.js'));
  const sources = path.join(root, watched);
  const stale = existsSync(sources) && (!existsSync(compiled) || newest(sources) > statSync(compiled).mtimeMs);
  if (stale) {
    try {
      const { register } = await import('tsx/esm/api');
      register();
      return await import(pathToFileURL(path.join(root, source)).href);
    } catch (error) {
      if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !existsSync(compiled)) throw error;
    }
  }
  return import(pathToFileURL(compiled).href);
}
