import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Lock files this process holds (a process could otherwise take over its own lock). */
const held = new Set<string>();

/** Whether a process with this id is alive on this machine. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * One service per SQLite data directory: a second one would interleave its writes and its
 * job runner with the first. The lock is a file holding the process id; a lock left by a
 * process that is gone (a crash) is taken over. Returns the release function.
 */
export function lockDataDir(dataDir: string): () => void {
  const file = path.resolve(dataDir, 'maproom.lock');
  const refuse = (holder: number) =>
    new Error(
      `Another Maproom (process ${holder}) is already using the data directory ${path.resolve(dataDir)}; ` +
        'stop it first. Several instances need PostgreSQL (DATABASE_URL).',
    );
  if (held.has(file)) throw refuse(process.pid);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      held.add(file);
      return () => {
        held.delete(file);
        try {
          if (readFileSync(file, 'utf8') === String(process.pid)) unlinkSync(file);
        } catch {
          // already gone
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(readFileSync(file, 'utf8').trim());
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && alive(holder)) throw refuse(holder);
      unlinkSync(file); // left by a process that is gone
    }
  }
  throw new Error(`Could not lock the data directory ${path.resolve(dataDir)}`);
}
