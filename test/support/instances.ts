import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { adminQuery, PG_ADMIN_URL } from '../helpers.js';

/**
 * Service processes for the scale-out tests: each a real `src/server.ts` with its own data
 * and temporary directories, started with the environment a deployment would give it, and
 * stopped the way a deployment stops one (SIGTERM) or loses one (SIGKILL).
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** A guard against hangs while a process starts (not a timing assertion). */
const START_MS = 60_000;

export interface Instance {
  name: string;
  /** http://127.0.0.1:<port> */
  url: string;
  process: ChildProcess;
  /** What the process wrote to stdout and stderr so far (for failure messages). */
  output(): string;
  /** Ends it with a signal and waits until it has exited. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** A fresh PostgreSQL database for a deployment, and how to drop it. */
export async function freshDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `maproom_scale_${randomBytes(6).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) =>
    child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve()),
  );

/**
 * Starts one service process with `env` (DATABASE_URL, REDIS_URL, S3_*, ...) on a free port
 * and resolves once it listens. Rejects with its output when it exits first.
 */
export async function startInstance(name: string, env: Record<string, string>): Promise<Instance> {
  const dataDir = mkdtempSync(path.join(tmpdir(), `maproom-${name}-`));
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/server.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
      PASSWORD_HASH_COST: '12',
      AUTH_RATE_LIMIT_PER_MINUTE: '100000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${name} did not start within ${START_MS} ms:\n${output}`)),
      START_MS,
    );
    const look = () => {
      const match = /Maproom is running at (http:\/\/[^\s]+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', look);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${code ?? signal}) before it listened:\n${output}`));
    });
  });
  child.once('exit', () => rmSync(dataDir, { recursive: true, force: true }));
  return {
    name,
    url,
    process: child,
    output: () => output,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited(child);
    },
  };
}

/** Starts a process that must refuse to start; resolves with what it printed and its exit code. */
export async function startRefused(
  name: string,
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  try {
    const instance = await startInstance(name, env);
    await instance.stop();
    throw new Error(`${name} started, but it should have refused`);
  } catch (error) {
    const message = (error as Error).message;
    const match = /exited \((\S+)\) before it listened:\n([\s\S]*)$/.exec(message);
    if (!match) throw error;
    return { code: Number(match[1]), output: match[2]! };
  }
}

/** JSON over HTTP to an instance, with an optional bearer credential. */
export async function request(
  instance: Instance,
  method: string,
  url: string,
  options: { auth?: string; body?: unknown } = {},
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${instance.url}${url}`, {
    method,
    headers: {
      ...(options.auth && { authorization: `Bearer ${options.auth}` }),
      ...(options.body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body };
}
