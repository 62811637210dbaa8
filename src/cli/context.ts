import type { Command } from 'commander';
import { Api } from './client.js';
import { resolveCredentials } from './credentials.js';
import { Output } from './output.js';

/** What every command works with: the service's client and the output, from the global options. */
export interface Context {
  api: Api;
  out: Output;
}

export interface GlobalOptions {
  url?: string;
  token?: string;
  json?: boolean;
}

export function contextOf(command: Command): Context {
  const options = command.optsWithGlobals<GlobalOptions>();
  return { api: new Api(resolveCredentials(options)), out: new Output(options.json === true) };
}
