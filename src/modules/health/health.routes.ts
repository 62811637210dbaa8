import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Database } from '../../db/database.js';

/** A part's liveness check; null when the deployment has no such part (no REDIS_URL). */
type Check = (() => Promise<void>) | null;

export interface ReadinessChecks {
  redis: Check;
  objectStore: Check;
  /** How long a part may take to answer before it counts as unavailable (READY_CHECK_TIMEOUT_MS). */
  timeoutMs: number;
  /** Whether the instance is stopping (src/http/stopping.ts): then it is not ready, whatever its parts say. */
  stopping: () => boolean;
}

const PartState = Type.Union([Type.Literal('ok'), Type.Literal('unavailable'), Type.Literal('none')], {
  description: '`ok`: it answered; `unavailable`: it did not (in time); `none`: this deployment has no such part',
});
const Readiness = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable'), Type.Literal('stopping')], {
    description: '`stopping`: the instance is shutting down (SIGTERM) and takes no new work',
  }),
  database: PartState,
  redis: PartState,
  objectStore: PartState,
});

async function stateOf(check: Check, timeoutMs: number): Promise<'ok' | 'unavailable' | 'none'> {
  if (!check) return 'none';
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), timeoutMs);
  });
  try {
    await Promise.race([check(), late]);
    return 'ok';
  } catch {
    return 'unavailable';
  } finally {
    clearTimeout(timer);
  }
}

export const healthRoutes: FastifyPluginAsyncTypebox<{ database: Database; readiness: ReadinessChecks }> = async (
  app,
  { database, readiness },
) => {
  app.get('/api/health', {
    schema: {
      tags: ['service'],
      summary: 'Liveness and database reachability',
      response: {
        200: Type.Object({ status: Type.Literal('ok'), database: Type.String() }),
        503: Type.Object({ status: Type.Literal('unavailable'), database: Type.String() }),
      },
    },
    handler: async (_request, reply) => {
      try {
        await database.ping();
        return { status: 'ok' as const, database: database.dialect };
      } catch {
        return reply.status(503).send({ status: 'unavailable' as const, database: database.dialect });
      }
    },
  });

  app.get('/api/ready', {
    schema: {
      tags: ['service'],
      summary: 'Readiness: whether each part this instance uses answers',
      description:
        'Asks the database, Redis (when REDIS_URL is set) and the object store (S3, or the data directory) ' +
        'for a cheap answer, each within 2 s. 200 while every configured part answers; 503 while one does not, ' +
        'so that a load balancer sends no requests to this instance, and 503 `stopping` once it is shutting down. ' +
        '`GET /api/health` stays the liveness answer.',
      response: { 200: Readiness, 503: Readiness },
    },
    handler: async (_request, reply) => {
      const [db, redis, objectStore] = await Promise.all([
        stateOf(() => database.ping(), readiness.timeoutMs),
        stateOf(readiness.redis, readiness.timeoutMs),
        stateOf(readiness.objectStore, readiness.timeoutMs),
      ]);
      const available = [db, redis, objectStore].every((state) => state !== 'unavailable');
      const status = readiness.stopping() ? 'stopping' : available ? 'ok' : 'unavailable';
      return reply.status(status === 'ok' ? 200 : 503).send({ status, database: db, redis, objectStore });
    },
  });
};
