import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { after, before, test } from 'node:test';
import { assertError, call, uniqueEmail } from '../helpers.js';
import { REDIS_TEST_DB } from '../support/redis.js';
import { type TwoInstances, twoInstances } from '../support/two-instances.js';

/**
 * Rate limits across instances (decisions: "Rate limits across instances"): the counts are
 * kept in Redis, so a client meets one limit whichever instance its requests reach.
 */

const LIMIT = 5;
let two: TwoInstances;
before(async () => {
  two = await twoInstances(REDIS_TEST_DB.rateLimits, { authRateLimitPerMinute: LIMIT });
});
after(() => two?.close());

test("log-in attempts spread over A and B count against one limit, kept under the deployment's namespace", async () => {
  const body = { email: uniqueEmail('limited'), password: 'wrong password' };
  const attempt = (app: TwoInstances['a']['app']) => call(app, 'POST', '/api/auth/login', { body });
  const statuses: number[] = [];
  for (let i = 0; i < LIMIT; i++) statuses.push((await attempt(i % 2 === 0 ? two.a.app : two.b.app)).statusCode);
  assert.deepEqual(statuses, Array(LIMIT).fill(401), 'each instance alone is below the limit');
  assertError(await attempt(two.b.app), 429, 'too_many_requests');
  assertError(await attempt(two.a.app), 429, 'too_many_requests');

  const redis = new Redis(two.redisUrl);
  try {
    const keys = await redis.keys('*');
    // Every key is the deployment's (the job queue's are there too); the counts are among them.
    assert.ok(
      keys.every((key) => key.startsWith(`maproom:${REDIS_TEST_DB.rateLimits}:`)),
      keys.join(),
    );
    assert.ok(
      keys.some((key) => key.startsWith(`maproom:${REDIS_TEST_DB.rateLimits}:rate-limit:`)),
      keys.join(),
    );
  } finally {
    redis.disconnect();
  }
});
