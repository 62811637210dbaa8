import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import type { Credentials } from './client.js';

/** Where the service is when nothing names it: the address `npm start` listens on. */
export const DEFAULT_URL = 'http://127.0.0.1:8080';

/** The command line's own directory: `$XDG_CONFIG_HOME/maproom`, else `~/.config/maproom`. */
export function configDir(): string {
  const base = process.env.XDG_CONFIG_HOME || path.join(homedir(), '.config');
  return path.join(base, 'maproom');
}

const loginFile = () => path.join(configDir(), 'credentials.json');

/** A stored login: the service's address, the session token and whose it is. */
export interface StoredLogin {
  url: string;
  token: string;
  email: string;
}

/** Writes a file only its owner can read (0600) in the config directory (0700), atomically. */
export function writePrivate(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  chmodSync(path.dirname(file), 0o700);
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, text, { mode: 0o600 });
  chmodSync(partial, 0o600);
  renameSync(partial, file);
}

export function readLogin(): StoredLogin | undefined {
  try {
    const login = JSON.parse(readFileSync(loginFile(), 'utf8')) as Partial<StoredLogin>;
    return typeof login.url === 'string' && typeof login.token === 'string' ? (login as StoredLogin) : undefined;
  } catch {
    return undefined;
  }
}

export const saveLogin = (login: StoredLogin) => writePrivate(loginFile(), `${JSON.stringify(login, null, 2)}\n`);
export const forgetLogin = () => rmSync(loginFile(), { force: true });

/** An address without a trailing slash, so that equal services compare equal. */
export const normalUrl = (url: string) => url.replace(/\/+$/, '');

/**
 * The service and credential a command uses: `--url` and `--token`, else `MAPROOM_URL` and
 * `MAPROOM_TOKEN`, else the stored login. The stored session goes only to the service it was
 * made on: with another address and no token, the command calls anonymously.
 */
export function resolveCredentials(flags: { url?: string; token?: string }): Credentials {
  const stored = readLogin();
  const url = normalUrl(flags.url ?? process.env.MAPROOM_URL ?? stored?.url ?? DEFAULT_URL);
  const token =
    flags.token ??
    (process.env.MAPROOM_TOKEN || undefined) ??
    (stored && normalUrl(stored.url) === url ? stored.token : undefined);
  return { url, token };
}
