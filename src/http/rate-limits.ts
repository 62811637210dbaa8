import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';

/**
 * The rate limits routes declare (`config.rateLimit`; none is global). Alone, an instance counts
 * in memory; with REDIS_URL the counts are kept in Redis, so a client meets one limit whichever
 * instance it reaches. While Redis is unreachable requests are let through uncounted rather
 * than refused (decisions: "Rate limits across instances").
 */
export async function registerRateLimits(app: FastifyInstance, config: Config): Promise<void> {
  if (!config.redisUrl) {
    await app.register(rateLimit, { global: false });
    return;
  }
  const { readyRedisConnection, redisNamespace } = await import('../infra/redis.js');
  const redis = await readyRedisConnection(config.redisUrl, app.log);
  app.addHook('onClose', async () => void (await redis.quit().catch(() => redis.disconnect())));
  await app.register(rateLimit, {
    global: false,
    redis,
    nameSpace: `${redisNamespace(config.redisUrl)}rate-limit:`,
    skipOnError: true,
  });
}
