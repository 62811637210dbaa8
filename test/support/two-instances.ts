import type { BuildOptions } from '../../src/app.js';
import type { Config } from '../../src/config.js';
import { buildTestApp, type TestApp } from '../helpers.js';
import { freshRedisUrl, redisClientIds } from './redis.js';
import { s3TestServer } from './swift.js';

/** Two instances of one deployment, each listening on a loopback port (`wsBase`). */
export interface TwoInstances {
  a: TestApp;
  b: TestApp;
  wsA: string;
  wsB: string;
  redisUrl: string;
  /** The ids of B's own connections to Redis (to drop them as a network failure would). */
  redisClientsOfB: Set<string>;
  close(): Promise<void>;
}

const listen = async (t: TestApp) => (await t.app.listen({ port: 0, host: '127.0.0.1' })).replace(/^http/, 'ws');

/**
 * Instances A and B on one fresh PostgreSQL database and one Redis database (`redisDb`, a
 * REDIS_TEST_DB index, emptied first), as two service processes of a deployment would be.
 */
export async function twoInstances(
  redisDb: number,
  config: Partial<Config> = {},
  build: { a?: BuildOptions; b?: BuildOptions } = {},
): Promise<TwoInstances> {
  const redisUrl = await freshRedisUrl(redisDb);
  // Instances share a database only with Redis and S3 both (docs/decisions.md): a bucket of their own.
  const s3 = await s3TestServer();
  const shared = { redisUrl, s3Bucket: await s3.newBucket(), s3Endpoint: s3.endpoint, s3ForcePathStyle: true };
  const a = await buildTestApp({ ...shared, ...config }, build.a);
  let b: TestApp | undefined;
  try {
    const before = await redisClientIds(redisUrl);
    b = await buildTestApp(
      { ...shared, ...config, databaseUrl: a.config.databaseUrl, jwtSecret: a.config.jwtSecret },
      build.b,
    );
    const after = await redisClientIds(redisUrl);
    const known = new Set([...before.subscribers, ...before.others]);
    const redisClientsOfB = new Set([...after.subscribers, ...after.others].filter((id) => !known.has(id)));
    const [wsA, wsB] = [await listen(a), await listen(b)];
    const both = b;
    const close = async () => {
      await both.close();
      await a.close();
      await s3.stop();
    };
    return { a, b, wsA, wsB, redisUrl, redisClientsOfB, close };
  } catch (error) {
    await b?.close();
    await a.close();
    await s3.stop();
    throw error;
  }
}
