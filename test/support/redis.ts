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
  /** Shares the access file's index: scale-out files run one at a time (scripts/test-scale-out.sh). */
  presence: 12,
  /** Shares the two-instances file's index, for the same reason (Redis has 16: 0 to 15). */
  oidcTwoInstances: 14,
  /** Shares the sessions file's index, for the same reason. */
  webhooksTwoInstances: 15,
  /** Shares the rate limits file's index, for the same reason. */
  metricsPrometheus: 13,
  /** Shares the live hub file's index, for the same reason. */
  rollingRestart: 10,
  /** The backed-up deployment's and the restored one's: apart, so that the second joins none of the first's queues. */
  backups: 10,
  restoredBackup: 12,
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

/** Runs `work` with a connection of its own to the test database, then closes it. */
async function withRedis<T>(url: string, work: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    return await work(redis);
  } finally {
    redis.disconnect();
  }
}

/** The ids of the connections to the test database (other than the asking one), publishers and subscribers apart. */
export function redisClientIds(url: string): Promise<{ subscribers: Set<string>; others: Set<string> }> {
  return withRedis(url, async (redis) => {
    const db = new URL(url).pathname.slice(1);
    const own = String(await redis.client('ID'));
    const lines = String(await redis.client('LIST'))
      .split('\n')
      .filter(Boolean);
    const subscribers = new Set<string>();
    const others = new Set<string>();
    for (const line of lines) {
      const fields = Object.fromEntries(line.split(' ').map((pair) => pair.split('=') as [string, string]));
      if (fields.id === own || fields.db !== db) continue;
      (fields.flags?.includes('P') ? subscribers : others).add(fields.id!);
    }
    return { subscribers, others };
  });
}

/** Drops connections as a network failure would (the server closes them; the clients reconnect). */
export function killRedisClients(url: string, ids: Iterable<string>): Promise<void> {
  return withRedis(url, async (redis) => {
    for (const id of ids) await redis.client('KILL', 'ID', id);
  });
}
