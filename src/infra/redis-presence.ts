import type { Redis } from 'ioredis';
import { type Present, type Presence, type PresentHere, presentHere, presentOnce, sameOne } from './presence.js';
import { readyRedisConnection, redisNamespace } from './redis.js';

type Log = Parameters<typeof readyRedisConnection>[1];

/** How long an entry lives unless its instance renews it: a lost instance's sockets are gone within this. */
export const PRESENCE_TTL_MS = 30_000;
/** How often an instance renews the entries of its own sockets. */
const RENEW_MS = 10_000;

interface Stored extends Present {
  expiresAt: number;
}

/**
 * Presence shared by the instances of a deployment: one Redis hash per room
 * (`…presence:<roomId>`), a field per open socket holding its entry and when it expires. Each
 * instance renews its own sockets' entries every 10 s; an entry not renewed for 30 s (its instance
 * stopped or lost Redis) is left out of lists and removed, and the whole hash expires with its last
 * entry. Reading a room is one HGETALL: rooms have tens of sockets, not thousands.
 */
export class RedisPresence implements Presence {
  private readonly prefix: string;
  /** This instance's sockets, to renew. */
  private readonly mine = new Map<string, { roomId: string; who: Present }>();
  private readonly timer: NodeJS.Timeout;

  private constructor(
    url: string,
    private readonly redis: Redis,
    private readonly log: Log,
    private readonly ttlMs: number,
  ) {
    this.prefix = `${redisNamespace(url)}presence:`;
    this.timer = setInterval(() => void this.renew(), Math.min(RENEW_MS, ttlMs / 3)).unref();
  }

  static async open(url: string, log: Log, ttlMs = PRESENCE_TTL_MS): Promise<RedisPresence> {
    return new RedisPresence(url, await readyRedisConnection(url, log), log, ttlMs);
  }

  private key(roomId: string) {
    return `${this.prefix}${roomId}`;
  }

  async join(roomId: string, connectionId: string, who: Present): Promise<boolean> {
    this.mine.set(connectionId, { roomId, who });
    const others = await this.entries(roomId);
    await this.write(roomId, connectionId, who);
    return !others.some((entry) => sameOne(entry, who));
  }

  async leave(roomId: string, connectionId: string): Promise<boolean> {
    const mine = this.mine.get(connectionId);
    this.mine.delete(connectionId);
    if (!mine) return false;
    await this.redis.hdel(this.key(roomId), connectionId);
    return !(await this.entries(roomId)).some((entry) => sameOne(entry, mine.who));
  }

  async list(roomId: string): Promise<Present[]> {
    return presentOnce(await this.entries(roomId));
  }

  /** From this instance's own sockets: the other instances count theirs. */
  here(): PresentHere {
    return presentHere(this.mine.values());
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    // This instance's sockets are leaving with it.
    const byRoom = new Map<string, string[]>();
    for (const [connectionId, { roomId }] of this.mine)
      byRoom.set(roomId, [...(byRoom.get(roomId) ?? []), connectionId]);
    await Promise.all([...byRoom].map(([roomId, ids]) => this.redis.hdel(this.key(roomId), ...ids))).catch(() => {});
    this.mine.clear();
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  /** The room's unexpired entries; expired ones are removed on the way. */
  private async entries(roomId: string): Promise<Present[]> {
    const fields = await this.redis.hgetall(this.key(roomId));
    const now = Date.now();
    const live: Present[] = [];
    const expired: string[] = [];
    for (const [field, text] of Object.entries(fields)) {
      const entry = parseEntry(text);
      if (entry && entry.expiresAt > now)
        live.push({
          kind: entry.kind,
          id: entry.id,
          name: entry.name,
          since: entry.since,
          ...(typeof entry.email === 'string' && { email: entry.email }),
        });
      else expired.push(field);
    }
    if (expired.length > 0) await this.redis.hdel(this.key(roomId), ...expired);
    return live;
  }

  private async write(roomId: string, connectionId: string, who: Present) {
    const stored: Stored = { ...who, expiresAt: Date.now() + this.ttlMs };
    await this.redis
      .multi()
      .hset(this.key(roomId), connectionId, JSON.stringify(stored))
      .pexpire(this.key(roomId), this.ttlMs)
      .exec();
  }

  private async renew() {
    try {
      for (const [connectionId, { roomId, who }] of this.mine) await this.write(roomId, connectionId, who);
    } catch (error) {
      this.log.warn({ err: error }, 'could not renew presence in Redis');
    }
  }
}

/** An entry as stored, or null when it is not one (another version's, or damaged). */
function parseEntry(text: string): Stored | null {
  try {
    const value = JSON.parse(text) as Partial<Stored>;
    if (
      (value.kind === 'user' || value.kind === 'token') &&
      typeof value.id === 'string' &&
      typeof value.name === 'string' &&
      typeof value.since === 'number' &&
      typeof value.expiresAt === 'number'
    ) {
      return value as Stored;
    }
  } catch {}
  return null;
}
