// Builds the service (npm run build) unless dist/ is newer than every source file, so that
// `npm start` starts at once when nothing changed since the last build.
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const stamp = path.join(root, 'dist', '.built');
const sources = ['src', 'web', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];

function newest(file) {
  if (!existsSync(file)) return 0;
  const info = statSync(file);
  if (!info.isDirectory()) return info.mtimeMs;
  return readdirSync(file)
    .filter((name) => name !== 'node_modules' && name !== 'dist')
    .reduce((latest, name) => Math.max(latest, newest(path.join(file, name))), info.mtimeMs);
}

const built = existsSync(stamp) ? statSync(stamp).mtimeMs : 0;
const changed = Math.max(...sources.map((s) => newest(path.join(root, s))));
if (changed > built) {
  execSync('npm run build', { cwd: root, stdio: 'inherit' });
  writeFileSync(stamp, new Date().toISOString());
} else {
  console.log('The build is current.');
}
