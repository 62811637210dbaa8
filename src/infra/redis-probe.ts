import { redisConnection } from './redis.js';

/**
 * A connection that only answers whether Redis is reachable now (GET /api/ready): it fails at
 * once while Redis is down, rather than waiting, and keeps trying to reconnect in the background.
 */
export function redisProbe(url: string) {
  const redis = redisConnection(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => 1000,
  });
  redis.on('error', () => undefined); // the answer is the ping's; a reconnect loop must not crash the process
  redis.connect().catch(() => undefined);
  return {
    ping: async () => void (await redis.ping()),
    close: () => redis.disconnect(),
  };
}
