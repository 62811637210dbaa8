import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { readyRedisConnection, redisNamespace } from './redis.js';

type Log = Parameters<typeof readyRedisConnection>[1];

/** Tells the other instances of the deployment small messages; alone, an instance needs none. */
export interface Broadcast<M> {
  /** Sends to every other instance, at most once (a failure is logged, not thrown). */
  send(message: M): void;
  /** `heard` gets each message of another instance; `lost` is called when some may have been lost. */
  listen(heard: (message: M) => void, lost: () => void): void;
  close(): Promise<void>;
}

/**
 * A broadcast through one Redis pub/sub channel of the deployment. Each instance leaves out its
 * own messages (it acted on them already). Pub/sub keeps nothing for a lost connection: when
 * the subscriber is back, `lost` tells the listener to forget what it may have missed.
 */
export class RedisBroadcast<M> implements Broadcast<M> {
  private readonly from = randomUUID();
  private readonly channel: string;
  private heard: (message: M) => void = () => {};
  private lost: () => void = () => {};

  private constructor(
    url: string,
    name: string,
    private readonly publisher: Redis,
    private readonly subscriber: Redis,
    private readonly log: Log,
  ) {
    this.channel = `${redisNamespace(url)}${name}`;
    subscriber.on('message', (channel: string, text: string) => {
      if (channel !== this.channel) return;
      let parsed: { from: string; message: M };
      try {
        parsed = JSON.parse(text);
      } catch {
        return; // not ours
      }
      if (parsed?.from === this.from) return;
      try {
        this.heard(parsed?.message);
      } catch (error) {
        this.log.warn({ err: error, channel }, 'a broadcast message could not be applied');
      }
    });
    subscriber.on('ready', () => {
      subscriber.subscribe(this.channel).then(
        () => this.lost(),
        () => {}, // lost again: the next `ready` tries again
      );
    });
  }

  /** Connects and subscribes; rejects when Redis does not answer. */
  static async open<M>(url: string, name: string, log: Log): Promise<RedisBroadcast<M>> {
    const [publisher, subscriber] = await Promise.all([readyRedisConnection(url, log), readyRedisConnection(url, log)]);
    const broadcast = new RedisBroadcast<M>(url, name, publisher, subscriber, log);
    await subscriber.subscribe(broadcast.channel);
    return broadcast;
  }

  send(message: M): void {
    this.publisher.publish(this.channel, JSON.stringify({ from: this.from, message })).catch((error) => {
      this.log.warn({ err: error, channel: this.channel }, 'could not tell the other instances');
    });
  }

  listen(heard: (message: M) => void, lost: () => void): void {
    this.heard = heard;
    this.lost = lost;
  }

  async close(): Promise<void> {
    this.subscriber.disconnect();
    await this.publisher.quit().catch(() => this.publisher.disconnect());
  }
}
