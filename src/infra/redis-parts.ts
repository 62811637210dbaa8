/**
 * The parts that share state between instances through Redis, loaded only when REDIS_URL is
 * set: ioredis is memory (its code and what it builds) that a single process does not need.
 */
export async function redisParts() {
  const [{ RedisBroadcast }, { RedisLiveHub }, { RedisPresence }, { redisProbe }] = await Promise.all([
    import('./redis-broadcast.js'),
    import('./redis-live-hub.js'),
    import('./redis-presence.js'),
    import('./redis-probe.js'),
  ]);
  return { RedisBroadcast, RedisLiveHub, RedisPresence, redisProbe };
}
