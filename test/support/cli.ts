import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from '../../src/config.js';
import { scaffold, type TestApp, type TestUser, uniqueRoomId } from '../helpers.js';

/**
 * The `maproom` command line as a process, for tests: built once (`npm run build:cli`, as
 * `npm ci` does), then run through its bin script against a listening service, each run with
 * its own config directory unless given one.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(ROOT, 'bin/maproom.mjs');
/** A guard against a command that hangs (not a timing assertion). */
const WAIT_MS = 60_000;

/**
 * A unique room id that does not start with `-` (which the command line would read as an
 * option; such an id goes after `--`).
 */
export const cliRoomId = () => `c${uniqueRoomId().slice(1)}`;

/** The newest modification time under a directory. */
function newest(dir: string): number {
  return readdirSync(dir, { withFileTypes: true }).reduce((latest, entry) => {
    const full = path.join(dir, entry.name);
    return Math.max(latest, entry.isDirectory() ? newest(full) : statSync(full).mtimeMs);
  }, 0);
}

const COMPILED = path.join(ROOT, 'dist/src/cli/main.js');
const stale = () => !existsSync(COMPILED) || newest(path.join(ROOT, 'src/cli')) > statSync(COMPILED).mtimeMs;

/**
 * Compiles src/cli into dist/src/cli, as the `prepare` script does on `npm ci`, unless it is
 * current. Test files running at once build it once: the others wait for the first's lock.
 */
export async function buildCli(): Promise<void> {
  const lock = path.join(ROOT, 'dist/.cli-build-lock');
  mkdirSync(path.dirname(lock), { recursive: true });
  for (;;) {
    if (!stale()) return;
    try {
      mkdirSync(lock);
    } catch {
      // Another file is building; a lock left by a killed run is taken over after two minutes.
      if (Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > 120_000)
        rmSync(lock, { recursive: true });
      await new Promise((resolve) => setTimeout(resolve, 200));
      continue;
    }
    try {
      const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
      execFileSync(process.execPath, [tsc, '-p', 'tsconfig.cli.json'], { cwd: ROOT, stdio: 'inherit' });
      return;
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A running command: its output so far, a wait for a line, and its end. */
export interface CliProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves once `pattern` appears in standard output or error; rejects when the process ends first. */
  waitFor(stream: 'stdout' | 'stderr', pattern: RegExp): Promise<RegExpMatchArray>;
  done: Promise<CliRun>;
}

export interface CliOptions {
  /** The service's address (MAPROOM_URL). */
  url: string;
  /** MAPROOM_TOKEN, when given. */
  token?: string;
  /** The config directory (XDG_CONFIG_HOME): the stored login and upload states. */
  configHome: string;
  /** Written to standard input, which is then closed. */
  input?: string;
  env?: Record<string, string>;
}

export function startCli(args: string[], options: CliOptions): CliProcess {
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_CONFIG_HOME: options.configHome, MAPROOM_URL: options.url };
  delete env.MAPROOM_TOKEN;
  if (options.token) env.MAPROOM_TOKEN = options.token;
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...env, ...options.env } });
  const out = { stdout: '', stderr: '' };
  const watchers = new Set<() => void>();
  for (const stream of ['stdout', 'stderr'] as const)
    child[stream]!.on('data', (chunk: Buffer) => {
      out[stream] += chunk;
      for (const watcher of watchers) watcher();
    });
  child.stdin!.end(options.input ?? '');
  const done = new Promise<CliRun>((resolve) =>
    child.once('close', (code) => {
      resolve({ code, ...out });
      for (const watcher of watchers) watcher();
    }),
  );
  return {
    child,
    stdout: () => out.stdout,
    stderr: () => out.stderr,
    done,
    waitFor(stream, pattern) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => finish(new Error(`no ${pattern} within ${WAIT_MS} ms:\n${out.stderr}`)),
          WAIT_MS,
        );
        const finish = (error?: Error, match?: RegExpMatchArray) => {
          clearTimeout(timer);
          watchers.delete(check);
          if (error) reject(error);
          else resolve(match!);
        };
        const check = () => {
          const match = out[stream].match(pattern);
          if (match) return finish(undefined, match);
          if (child.exitCode !== null || child.signalCode !== null)
            finish(new Error(`ended (${child.exitCode ?? child.signalCode}) before ${pattern}:\n${out.stderr}`));
        };
        watchers.add(check);
        check();
      });
    },
  };
}

/** Runs a command to its end. */
export function runCli(args: string[], options: CliOptions): Promise<CliRun> {
  const running = startCli(args, options);
  const timer = setTimeout(() => running.child.kill('SIGKILL'), WAIT_MS);
  return running.done.finally(() => clearTimeout(timer));
}

/** What a test file of the command line works with: a listening service, its owner, and a config directory of its own. */
export interface CliWorld {
  t: TestApp;
  owner: TestUser;
  /** The service's address (http://127.0.0.1:port). */
  url: string;
  /** The config directory (XDG_CONFIG_HOME) the commands run with; also a place for test files. */
  home: string;
  close(): Promise<void>;
}

/** Builds the command line and starts a service (with `config`) listening on a loopback port, with one user. */
export async function cliWorld(config: Partial<Config> = {}): Promise<CliWorld> {
  await buildCli();
  const { t, users, wsBase } = await scaffold({ users: ['owner'], rooms: [], listen: true, config });
  const home = mkdtempSync(path.join(tmpdir(), 'maproom-cli-'));
  return {
    t,
    owner: users.owner,
    url: wsBase.replace(/^ws/, 'http'),
    home,
    async close() {
      await t.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
