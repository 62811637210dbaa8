import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance, HookHandlerDoneFunction } from 'fastify';
import { shuttingDown } from '../errors.js';
import { isProbe } from './instance-role.js';

/**
 * The close of a live socket whose instance stops: WebSocket's 1012 "service restart". The
 * client connects again (to another instance, through the proxy) with `?since=` the last
 * version it saw, and misses nothing.
 */
export const RESTART_CLOSE = { code: 1012, reason: 'Service restart; reconnect with ?since=' } as const;

/** What a proxy may send again to another instance: nginx retries these, never a POST or PATCH it has sent. */
const READS = new Set(['GET', 'HEAD']);

/**
 * How an instance stops (SIGTERM, src/server.ts) without failing its clients behind a proxy:
 *
 * 1. Drain, for SHUTDOWN_DRAIN_MS: it still serves writes and its open live sockets, while
 *    `GET /api/ready` answers 503 `stopping` and every other read 503 `shutting_down`. A proxy
 *    that asks for readiness takes the instance out; nginx, which does not, sends the read to
 *    another instance (`proxy_next_upstream http_503`) and leaves this one alone for its
 *    `fail_timeout`, writes included. Every answer closes its connection (no keep-alive).
 * 2. Close (`app.close()`): it stops listening, finishes the requests in flight (one that still
 *    comes on an open connection is answered as while draining), closes the live sockets with
 *    1012, then hands its running job back to the queue (another instance runs it from the
 *    start) and closes the rest, the database last.
 */
export class Stopping {
  private draining = false;

  get started(): boolean {
    return this.draining;
  }

  /** Starts step 1; resolves once it has lasted `ms` (then the caller closes the app). */
  async drain(ms: number): Promise<void> {
    this.draining = true;
    if (ms > 0) await sleep(ms);
  }
}

/** The drain's answers (step 1): registered before every other hook but the instance role's. */
export function registerStopping(app: FastifyInstance, stopping: Stopping): void {
  app.addHook('onRequest', async (request) => {
    if (stopping.started && READS.has(request.method) && !isProbe(request)) throw shuttingDown();
  });
  app.addHook('onSend', async (_request, reply) => {
    if (stopping.started) reply.header('connection', 'close');
  });
}

/**
 * The WebSocket plugin's `preClose` (step 2): every live socket closed with 1012, and no new
 * one accepted. The server's close then waits for their connections to end.
 */
export function closeLiveSocketsForRestart(this: FastifyInstance, done: HookHandlerDoneFunction): void {
  for (const client of this.websocketServer.clients) client.close(RESTART_CLOSE.code, RESTART_CLOSE.reason);
  this.websocketServer.close();
  done();
}
