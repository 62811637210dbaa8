import { execFile } from 'node:child_process';
import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { Sweep } from '../infra/scheduler.js';
import { MANIFEST } from './manifest.js';

const run = promisify(execFile);
/** A scheduled backup's folder: `maproom-` and its UTC time, so that names sort by age. */
const NAMED = /^maproom-\d{8}T\d{6}Z$/;
/** The command line beside this file (main.ts from the sources, main.js from the build). */
const ADMIN_MAIN = path.join(import.meta.dirname, `main${path.extname(import.meta.filename)}`);

/**
 * The sweep of scheduled backups (BACKUP_SCHEDULE), or none. The scheduler runs it once per
 * scheduled time for the whole deployment. Each backup is `maproom-admin backup` in a child
 * process with the service's environment (the settings it reads), so that copying the
 * database never holds up this process; then the oldest beyond BACKUP_KEEP are removed.
 */
export function scheduledBackups(config: Config, log: FastifyBaseLogger): Sweep | null {
  const { backupSchedule, backupDir, backupKeep } = config;
  if (!backupSchedule || !backupDir) return null;
  return {
    name: 'scheduled backup',
    cron: backupSchedule,
    run: async () => {
      const stamp = new Date()
        .toISOString()
        .replace(/[-:]/g, '')
        .replace(/\.\d+Z$/, 'Z');
      const out = path.join(backupDir, `maproom-${stamp}`);
      try {
        await run(process.execPath, [...process.execArgv, ADMIN_MAIN, 'backup', '--out', out]);
      } catch (error) {
        const stderr = (error as { stderr?: string }).stderr?.trim();
        throw new Error(`The scheduled backup into ${out} failed: ${stderr || (error as Error).message}`);
      }
      log.info({ backup: out }, 'scheduled backup made');
      await keepNewest(backupDir, backupKeep);
    },
  };
}

/**
 * Removes the oldest complete scheduled backups in `dir` beyond the newest `keep`, and any
 * incomplete one (no manifest: its process was killed) older than the newest complete one.
 */
async function keepNewest(dir: string, keep: number): Promise<void> {
  const named = (await readdir(dir)).filter((name) => NAMED.test(name)).sort();
  const complete: string[] = [];
  for (const name of named) if (await stat(path.join(dir, name, MANIFEST)).catch(() => null)) complete.push(name);
  const newest = complete.at(-1) ?? '';
  const kept = new Set(complete.slice(-keep));
  for (const name of named.filter((name) => !kept.has(name) && name < newest))
    await rm(path.join(dir, name), { recursive: true, force: true });
}
