import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Database } from '../../db/database.js';

export const healthRoutes: FastifyPluginAsyncTypebox<{ database: Database }> = async (app, { database }) => {
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
};
