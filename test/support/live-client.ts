import WebSocket from 'ws';

/**
 * A WebSocket client of the live channel for tests: it keeps every message, waits for the
 * ones a test expects, and can tell when nothing more is on its way.
 */

/** How long a client waits for a message before it gives up (a guard against hangs, not a timing assertion). */
export const WAIT_MS = 8_000;

export interface LiveMessage {
  type: string;
  [key: string]: any;
}

/** A WebSocket client that keeps every message it receives, in order. */
export class LiveClient {
  readonly ws: WebSocket;
  readonly messages: LiveMessage[] = [];
  readonly opened: Promise<void>;
  readonly closed: Promise<{ code: number; reason: string }>;
  private listeners = new Set<() => void>();
  private isClosed = false;

  constructor(url: string) {
    this.ws = new WebSocket(url);
    this.ws.on('error', () => undefined); // reported through `closed` and the waits
    this.ws.on('message', (raw) => {
      this.messages.push(JSON.parse(String(raw)) as LiveMessage);
      this.notify();
    });
    this.opened = new Promise((resolve, reject) => {
      this.ws.once('open', () => resolve());
      this.ws.once('close', () => reject(new Error('closed before it opened')));
    });
    this.opened.catch(() => undefined);
    this.closed = new Promise((resolve) => {
      this.ws.once('close', (code, reason) => {
        this.isClosed = true;
        resolve({ code, reason: reason.toString() });
        this.notify();
      });
    });
  }

  private notify() {
    for (const listener of this.listeners) listener();
  }

  /** Resolves once `done` holds; fails when the socket closes first or after WAIT_MS. */
  private until(done: () => boolean, expectation: string): Promise<void> {
    if (done()) return Promise.resolve();
    if (this.isClosed)
      return Promise.reject(new Error(`socket closed after ${JSON.stringify(this.messages)}; expected ${expectation}`));
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.listeners.delete(check);
        reject(new Error(`expected ${expectation} within ${WAIT_MS} ms, got ${JSON.stringify(this.messages)}`));
      }, WAIT_MS);
      const check = () => {
        if (!done() && !this.isClosed) return;
        clearTimeout(timer);
        this.listeners.delete(check);
        if (done()) resolve();
        else reject(new Error(`socket closed after ${JSON.stringify(this.messages)}; expected ${expectation}`));
      };
      this.listeners.add(check);
    });
  }

  /** Resolves once at least `count` messages have arrived; returns them all. */
  async waitFor(count: number): Promise<LiveMessage[]> {
    await this.until(() => this.messages.length >= count, `${count} messages`);
    return this.messages;
  }

  /** The message at position `index` (0 = hello), waiting for it. */
  async at(index: number): Promise<LiveMessage> {
    return (await this.waitFor(index + 1))[index]!;
  }

  /** The first message that satisfies `predicate`, waiting for it; `expectation` names it in a failure. */
  async waitUntil(predicate: (message: LiveMessage) => boolean, expectation: string): Promise<LiveMessage> {
    await this.until(() => this.messages.some(predicate), expectation);
    return this.messages.find(predicate)!;
  }

  /**
   * Resolves once every message the server sent this socket before now has arrived: the
   * server answers a ping on the same ordered stream, after what it had sent.
   */
  settled(): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to a ping within ${WAIT_MS} ms`)), WAIT_MS);
      this.ws.once('pong', () => {
        clearTimeout(timer);
        resolve();
      });
      this.ws.ping();
    });
  }

  /** Waits until the socket is closed by the server. */
  async closedWithin(): Promise<{ code: number; reason: string }> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new Error(
              `the server neither refused nor closed the socket within ${WAIT_MS} ms; messages so far ${JSON.stringify(this.messages)}`,
            ),
          ),
        WAIT_MS,
      );
    });
    try {
      return await Promise.race([this.closed, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  send(message: unknown) {
    this.ws.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  terminate() {
    if (this.ws.readyState !== WebSocket.CLOSED) this.ws.terminate();
  }
}

/** Opens a socket that the server must refuse at the upgrade; returns the HTTP status and JSON body. */
export function refusedUpgrade(url: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new Error(`no answer to the upgrade of ${url}`));
    }, WAIT_MS);
    ws.on('error', () => undefined);
    ws.once('open', () => {
      clearTimeout(timer);
      ws.terminate();
      reject(new Error(`the upgrade of ${url} was accepted`));
    });
    ws.once('unexpected-response', (req, res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        clearTimeout(timer);
        req.destroy();
        ws.terminate();
        const text = Buffer.concat(chunks).toString();
        let body: any = null;
        try {
          body = JSON.parse(text);
        } catch {
          body = text;
        }
        resolve({ status: res.statusCode ?? 0, body });
      });
    });
  });
}
