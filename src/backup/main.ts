import path from 'node:path';
import { Command, CommanderError } from 'commander';
import { ConfigError, loadConfig } from '../config.js';
import { backup, restore, verify } from './backup.js';
import { BackupRefused } from './database-copy.js';
import { BackupDamaged, type Manifest } from './manifest.js';

const HELP = `
It reads the same settings as the service (DATABASE_URL, DATA_DIR, S3_BUCKET, ...): run it with
the service's environment. Exit codes: 0 done, 1 failed, 2 usage.`;

/** Labels of the counted tables, for people. */
const LABELS: Record<string, string> = {
  users: 'users',
  rooms: 'rooms',
  markers: 'markers',
  layers: 'layers',
  history: 'history entries',
  stored_files: 'stored files',
  api_tokens: 'room tokens',
};

const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** What a backup holds, in a few lines. */
export function describe(manifest: Manifest): string {
  const files = manifest.files.reduce((sum, file) => sum + file.bytes, 0);
  const counts = Object.entries(manifest.holds).map(([table, n]) => `${n} ${LABELS[table] ?? table}`);
  return [
    `A backup of a ${manifest.dialect === 'postgres' ? 'PostgreSQL' : 'SQLite'} deployment made ${manifest.createdAt} (migration ${manifest.migration})`,
    `  ${counts.join(', ')}`,
    `  database ${megabytes(manifest.database.bytes)}; ${manifest.files.length} files, ${megabytes(files)}` +
      (manifest.secret ? '; the session-signing secret the service generated' : ''),
  ].join('\n');
}

function buildProgram(env: NodeJS.ProcessEnv): Command {
  const program = new Command('maproom-admin')
    .description('Back up and restore a Maproom deployment: its database and every stored file.')
    .addHelpText('after', HELP)
    .showHelpAfterError('(maproom-admin --help lists the commands)')
    .exitOverride();
  program
    .command('backup')
    .description('back up the running deployment into DIR, a new or empty folder')
    .requiredOption('--out <dir>', 'where the backup goes')
    .action(async ({ out }: { out: string }) => {
      const manifest = await backup(loadConfig(env), path.resolve(out));
      console.log(`${describe(manifest)}\nBacked up into ${path.resolve(out)}`);
    });
  program
    .command('restore')
    .description('restore a backup into an empty deployment (database and file store)')
    .requiredOption('--from <dir>', 'the backup')
    .action(async ({ from }: { from: string }) => {
      const config = loadConfig(env);
      const manifest = await restore(config, path.resolve(from));
      console.log(`${describe(manifest)}\nRestored: start the service.`);
      if (manifest.secret && config.jwtSecret)
        console.log(
          'Note: JWT_SECRET is set, so sessions signed with the backed-up generated secret need signing in again.',
        );
    });
  program
    .command('verify')
    .description('check every checksum of a backup and say what it holds')
    .argument('<dir>', 'the backup')
    .action(async (dir: string) => {
      const { manifest, damage } = await verify(path.resolve(dir));
      console.log(describe(manifest));
      if (damage.length)
        throw new BackupDamaged(
          `Damaged: ${damage.length} of its files do not match the manifest:\n  ${damage.join('\n  ')}`,
        );
      console.log('Every checksum matches.');
    });
  return program;
}

/** Runs the command line on its arguments (without node and the script); resolves with the exit code. */
export async function run(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  // What it writes (a backup, a restored database, the secret) is its owner's only.
  process.umask(0o077);
  try {
    await buildProgram(env).parseAsync(args, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    const known = error instanceof BackupRefused || error instanceof BackupDamaged || error instanceof ConfigError;
    console.error(known ? (error as Error).message : error);
    return 1;
  }
}

const invoked = process.argv[1] && import.meta.filename === path.resolve(process.argv[1]);
if (invoked) process.exitCode = await run(process.argv.slice(2));
