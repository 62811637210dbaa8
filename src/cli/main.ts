import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError } from 'commander';
import { ApiError, CliError } from './client.js';
import { authCommands } from './commands/auth.js';
import { exchangeCommands } from './commands/exchange.js';
import { layerCommands } from './commands/layers.js';
import { markerCommands } from './commands/markers.js';
import { roomCommands } from './commands/rooms.js';
import { watchCommand } from './commands/watch.js';
import { webhookCommands } from './commands/webhooks.js';
import { DEFAULT_URL, resolveCredentials } from './credentials.js';
import { printable, printableJson } from './output.js';

/** The exit codes: success, refused or failed, wrong usage. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** This package's version (package.json above src/cli or dist/src/cli). */
function packageVersion(): string {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  }
  return 'unknown';
}

const CREDENTIALS_HELP = `
Credentials: --url and --token, else MAPROOM_URL and MAPROOM_TOKEN, else the session stored by
\`maproom login\` (used only with the service it was made on). The default address is ${DEFAULT_URL}.
A token is a session (maproom login) or a room API token (maproom token create).

Results go to standard output (--json for scripts), progress to standard error.
Exit codes: 0 success, 1 refused or failed (with the service's message), 2 wrong usage.

Examples:
  maproom login
  maproom room create team-map01 --name "Field survey"
  maproom upload team-map01 districts.shp.zip dem.tif
  maproom watch team-map01`;

export function buildProgram(): Command {
  const program = new Command('maproom')
    .description(
      'Work on Maproom rooms from the command line: rooms, tokens, uploads, markers, export, live changes, webhooks.',
    )
    .version(packageVersion())
    .option('--url <url>', 'the service, e.g. https://maps.example.org (env MAPROOM_URL)')
    .option('--token <token>', 'a session or room API token (env MAPROOM_TOKEN)')
    .option('--json', 'print results as JSON')
    .addHelpText('after', CREDENTIALS_HELP)
    .showHelpAfterError('(maproom --help lists the commands)')
    .exitOverride();
  authCommands(program);
  roomCommands(program);
  layerCommands(program);
  markerCommands(program);
  exchangeCommands(program);
  watchCommand(program);
  webhookCommands(program);
  return program;
}

/** The sentence to show for a failure, and whether it is a failure the command can name. */
function messageOf(error: unknown): string | undefined {
  if (error instanceof ApiError || error instanceof CliError) return error.message;
  if (error instanceof TypeError && error.message === 'fetch failed') {
    const cause = error.cause as { code?: string; message?: string } | undefined;
    return `Cannot reach the service: ${cause?.code ?? cause?.message ?? error.message}`;
  }
  const code = (error as NodeJS.ErrnoException).code;
  if (code && (error as NodeJS.ErrnoException).syscall) return (error as Error).message;
  return undefined;
}

/** Runs the command line on `argv` (as process.argv) and resolves with the exit code. */
export async function run(argv: string[]): Promise<number> {
  // A reader that stopped early (`maproom markers export ... | head`) ends the command quietly.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(EXIT.ok);
  });
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return EXIT.ok;
  } catch (error) {
    // Commander has already printed its message (and the help, when asked).
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    let message = messageOf(error);
    if (message === undefined) throw error;
    if (error instanceof ApiError && error.status === 401 && !resolveCredentials(program.opts()).token)
      message += ' (no credential was sent: maproom login, --token or MAPROOM_TOKEN)';
    if (program.opts().json) {
      const status = error instanceof ApiError ? { status: error.status, error: error.code } : {};
      process.stderr.write(`${printableJson({ ...status, message })}\n`);
    } else process.stderr.write(`maproom: ${printable(message)}\n`);
    return EXIT.failed;
  }
}
