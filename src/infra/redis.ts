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
