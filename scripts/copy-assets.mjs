// Copies the files the built service reads next to its code (tsc copies only what it compiles):
// the Python helper scripts GDAL's bindings run.
import { cpSync, readdirSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

function copy(dir) {
  for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) copy(relative);
    else if (entry.name.endsWith('.py')) cpSync(path.join(root, relative), path.join(root, 'dist', relative));
  }
}

copy('src');
