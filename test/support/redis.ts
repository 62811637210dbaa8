import { Redis } from 'ioredis';

/** The machine's Redis (REDIS_TEST_URL overrides it); tests use database indexes of their own. */
const REDIS_TEST_BASE = process.env.REDIS_TEST_URL ?? 'redis://127.0.0.1:6379';

/**
 * The Redis database index of each test file that uses Redis, so that files running at the
 * same time never share one (pub/sub channels are namespaced by the index, see infra/redis.ts).
 * Indexes 0 to 9 are left to people's own deployments on the machine.
 */
export const REDIS_TEST_DB = {
  liveHub: 10,
  jobQueue: 11,
  access: 12,
  rateLimits: 13,
  twoInstances: 14,
  sessions: 15,
} as const;

/** The URL of a test file's Redis database, emptied first. */
export async function freshRedisUrl(db: number): Promise<string> {
  const url = `${REDIS_TEST_BASE.replace(/\/\d*$/, '')}/${db}`;
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    await redis.flushdb();
  } finally {
    redis.disconnect();
  }
  return url;
}
