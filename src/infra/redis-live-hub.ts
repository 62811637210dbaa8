import type { Redis } from 'ioredis';
import type { LiveHub, LiveListener, LiveSubscription, RoomEvent } from './live-hub.js';
import { readyRedisConnection, redisNamespace } from './redis.js';

type Log = Parameters<typeof readyRedisConnection>[1];

/** The listeners of one room on this instance, and the Redis subscription they share. */
interface Room {
  listeners: Map<LiveListener, () => void>;
  subscribed: Promise<void>;
}

/**
 * Live changes through Redis pub/sub, so that every instance's sockets hear every instance's
 * writes: one channel per room, one publishing and one subscribing connection per instance.
 * The instance subscribes to a room's channel with its first listener and leaves it with its
 * last. Pub/sub keeps nothing for a disconnected subscriber: when the subscribing connection
 * comes back, it subscribes again and tells every listener it may have missed changes.
 */
export class RedisLiveHub implements LiveHub {
  private readonly rooms = new Map<string, Room>();
  private readonly prefix: string;

  private constructor(
    url: string,
    private readonly publisher: Redis,
    private readonly subscriber: Redis,
    private readonly log: Log,
  ) {
    this.prefix = `${redisNamespace(url)}live:`;
    subscriber.on('message', (channel: string, text: string) => this.deliver(channel, text));
    subscriber.on('ready', () => void this.resubscribe());
  }

  /** Connects both connections; rejects when Redis does not answer. */
  static async open(url: string, log: Log): Promise<RedisLiveHub> {
    const [publisher, subscriber] = await Promise.all([readyRedisConnection(url, log), readyRedisConnection(url, log)]);
    return new RedisLiveHub(url, publisher, subscriber, log);
  }

  async publish(event: RoomEvent): Promise<void> {
    await this.publisher.publish(this.prefix + event.roomId, JSON.stringify(event));
  }

  subscribe(roomId: string, listener: LiveListener, missed: () => void = () => {}): LiveSubscription {
    let room = this.rooms.get(roomId);
    if (!room) {
      room = { listeners: new Map(), subscribed: this.subscriber.subscribe(this.prefix + roomId).then(() => {}) };
      room.subscribed.catch(() => {}); // each listener hears of it through `ready`
      this.rooms.set(roomId, room);
    }
    const current = room;
    current.listeners.set(listener, missed);
    return {
      ready: current.subscribed,
      unsubscribe: () => {
        current.listeners.delete(listener);
        if (current.listeners.size > 0 || this.rooms.get(roomId) !== current) return;
        this.rooms.delete(roomId);
        this.subscriber.unsubscribe(this.prefix + roomId).catch(() => {}); // a lost connection forgot it anyway
      },
    };
  }

  private deliver(channel: string, text: string) {
    const room = this.rooms.get(channel.slice(this.prefix.length));
    if (!room || !channel.startsWith(this.prefix)) return;
    let event: unknown;
    try {
      event = JSON.parse(text);
    } catch {
      return; // not ours: only the write path publishes on these channels
    }
    // Whoever else can publish on the server (another deployment, an older version) must not
    // reach the sockets or stop the process: only a change of this channel's room goes on.
    if (!isRoomEvent(event, channel.slice(this.prefix.length))) return;
    for (const listener of room.listeners.keys()) {
      try {
        listener(event);
      } catch (error) {
        this.log.warn({ err: error }, 'a live listener failed');
      }
    }
  }

  /** After a lost connection: the rooms' channels again, then every listener catches up. */
  private async resubscribe() {
    const rooms = [...this.rooms.entries()];
    if (rooms.length === 0) return;
    try {
      await this.subscriber.subscribe(...rooms.map(([roomId]) => this.prefix + roomId));
    } catch {
      return; // lost again: the next `ready` tries again
    }
    for (const [, room] of rooms) {
      room.subscribed = Promise.resolve(); // listeners that come now need not wait
      for (const missed of room.listeners.values()) missed();
    }
  }

  async close(): Promise<void> {
    this.rooms.clear();
    this.subscriber.disconnect();
    await this.publisher.quit().catch(() => this.publisher.disconnect());
  }
}

/** A change as the write path publishes it: of `roomId`, with a version and the event's names. */
function isRoomEvent(value: unknown, roomId: string): value is RoomEvent {
  const event = value as Partial<Record<'roomId' | 'type' | 'objectType' | 'objectId' | 'version', unknown>> | null;
  return (
    typeof event === 'object' &&
    event !== null &&
    event.roomId === roomId &&
    typeof event.type === 'string' &&
    typeof event.objectType === 'string' &&
    typeof event.objectId === 'string' &&
    Number.isSafeInteger(event.version) &&
    (event.version as number) > 0
  );
}
