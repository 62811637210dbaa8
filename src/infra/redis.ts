import { Redis, type RedisOptions } from 'ioredis';

/**
 * Connections to the deployment's Redis (REDIS_URL). Each use opens its own: a subscriber
 * cannot send other commands, and BullMQ's blocking reads want theirs.
 */
export function redisConnection(url: string, options: RedisOptions = {}): Redis {
  return new Redis(url, { connectionName: 'maproom', ...options });
}

/**
 * The prefix of every key and channel this deployment uses in Redis: `maproom:<database
 * index>:`. Pub/sub channels are shared by all of a server's databases, so two deployments
 * on one Redis (or two test files) stay apart by choosing different indexes.
 */
export function redisNamespace(url: string): string {
  const index = new URL(url).pathname.replace(/^\//, '') || '0';
  return `maproom:${index}:`;
}

/** How long an instance waits for Redis at start before it refuses to start: fixed, a start that fails names Redis. */
export const CONNECT_TIMEOUT_MS = 10_000;

/**
 * A connection that is ready for commands, for uses that must fail at once while Redis is
 * unreachable instead of queueing (a publish answers 502; a subscription is refused). Rejects
 * when Redis does not answer at start.
 */
export async function readyRedisConnection(url: string, log: { warn(o: object, m: string): void }): Promise<Redis> {
  const redis = redisConnection(url, { enableOfflineQueue: false, autoResubscribe: false });
  let lastError: unknown;
  redis.on('error', (error) => {
    lastError = error;
  });
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`Redis at REDIS_URL did not answer within ${CONNECT_TIMEOUT_MS} ms: ${lastError}`)),
        CONNECT_TIMEOUT_MS,
      );
      redis.once('ready', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  } catch (error) {
    redis.disconnect();
    throw error;
  }
  let down = false;
  redis.on('error', (error) => {
    if (!down) log.warn({ err: error }, 'Redis connection lost; reconnecting');
    down = true;
  });
  redis.on('ready', () => {
    down = false;
  });
  return redis;
}
