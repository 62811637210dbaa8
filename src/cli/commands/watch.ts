import type { IncomingMessage } from 'node:http';
import { type Command, InvalidArgumentError } from 'commander';
import WebSocket from 'ws';
import type { components } from '../../../web/src/api/schema.js';
import { type Api, ApiError, CliError } from '../client.js';
import { contextOf } from '../context.js';
import type { Output } from '../output.js';

type LiveEvent = components['schemas']['LiveEvent'];

/** Close codes after which listening again cannot help: no credential, no read access, no room. */
const FINAL_CLOSE = new Set([4401, 4403, 4404]);
/** Refusals before the upgrade that are final (others, a restart's 502 or 503, are retried). */
const FINAL_STATUS = new Set([400, 401, 403, 404, 426]);
const MAX_BACKOFF_MS = 30_000;

const version = (text: string) => {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0) throw new InvalidArgumentError('must be a version number');
  return value;
};

/**
 * Listens to a room's live channel and prints each change as one JSON line. When the
 * connection drops, it connects again with `?since=` the last version printed, so the service
 * sends what was missed, in order, before the new changes.
 */
class RoomWatch {
  private version: number | undefined;
  private retries = 0;
  private lastError?: string;

  constructor(
    private readonly api: Api,
    private readonly out: Output,
    private readonly roomId: string,
    since: number | undefined,
  ) {
    this.version = since;
  }

  /** Runs until a final refusal (rejected with its message); an interrupt ends the process. */
  run(): Promise<never> {
    return new Promise((_resolve, reject) => this.connect(reject));
  }

  private connect(fail: (error: Error) => void) {
    const url = this.api.wsUrl(`/api/rooms/${encodeURIComponent(this.roomId)}/live`, { since: this.version });
    const socket = new WebSocket(url, { headers: this.api.headers() });
    // The first of a refusal before the upgrade and a close decides what comes next.
    let settled = false;
    socket.on('unexpected-response', (request, response: IncomingMessage) => {
      settled = true;
      let text = '';
      response.on('data', (chunk) => (text += chunk));
      response.on('end', () => {
        request.destroy();
        const status = response.statusCode ?? 0;
        if (!FINAL_STATUS.has(status)) return this.again(fail, `status ${status}`);
        const body = (text.startsWith('{') ? JSON.parse(text) : {}) as { error?: string; message?: string };
        fail(new ApiError(status, body.error ?? 'error', body.message ?? `status ${status}`));
      });
    });
    socket.on('message', (raw) => this.receive(JSON.parse(String(raw)) as LiveEvent));
    socket.on('error', () => undefined); // a close follows
    socket.on('close', (code, reason) => {
      if (settled) return;
      settled = true;
      if (FINAL_CLOSE.has(code)) return fail(new CliError(this.lastError ?? (String(reason) || `closed (${code})`)));
      this.again(fail, `closed (${code})`);
    });
  }

  private receive(event: LiveEvent) {
    if (event.type === 'hello') {
      this.retries = 0;
      this.version ??= event.version;
      return this.out.note(`Watching ${this.roomId} from version ${this.version}`);
    }
    if (event.type === 'error') {
      this.lastError = event.message;
      return;
    }
    // Presence news and pointers (sent only with ?presence=true, which watch does not ask) are not changes.
    if (!('version' in event)) return;
    this.version = event.version;
    this.out.line(JSON.stringify(event));
  }

  private again(fail: (error: Error) => void, why: string) {
    const wait = Math.min(MAX_BACKOFF_MS, 500 * 2 ** this.retries++);
    this.out.note(`Connection lost (${why}); connecting again in ${wait / 1000} s`);
    setTimeout(() => this.connect(fail), wait);
  }
}

export function watchCommand(program: Command): void {
  program
    .command('watch')
    .description(
      "print a room's changes as they happen, one JSON object per line; reconnects and catches up on its own",
    )
    .argument('<roomId>', 'the room')
    .option('--since <version>', 'first print the changes after this version (as `version` in each line)', version)
    .action(async (roomId: string, options: { since?: number }, command: Command) => {
      const { api, out } = contextOf(command);
      await new RoomWatch(api, out, roomId, options.since).run();
    });
}
