import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a receiver got. */
export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A webhook receiver on loopback: it keeps every request and answers with `status` (a test may
 * change it, or make it wait `delayMs`). `waitFor(n)` resolves once n requests have arrived.
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  /** When each request arrived (`performance.now()`), in the order of `received`. */
  readonly arrivedAt: number[] = [];
  status = 204;
  delayMs = 0;
  private readonly waiters: { n: number; resolve: () => void }[] = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(path = '/hook'): Promise<WebhookReceiver> {
    let receiver: WebhookReceiver | undefined;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const answer = () => {
          res.statusCode = receiver!.status;
          res.end(receiver!.status >= 400 ? 'receiver is down' : '');
          receiver!.got({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        };
        if (receiver!.delayMs > 0) setTimeout(answer, receiver!.delayMs);
        else answer();
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    receiver = new WebhookReceiver(server, `http://127.0.0.1:${port}${path}`);
    return receiver;
  }

  /** The bodies received, parsed. */
  events<T = Record<string, unknown>>(): T[] {
    return this.received.map((r) => JSON.parse(r.body) as T);
  }

  waitFor(n: number): Promise<void> {
    if (this.received.length >= n) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ n, resolve }));
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private got(request: Received): void {
    this.received.push(request);
    this.arrivedAt.push(performance.now());
    for (const waiter of [...this.waiters]) {
      if (this.received.length >= waiter.n) {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  }
}
