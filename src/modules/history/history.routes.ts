import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errors, RoomParams } from '../../http/schemas.js';
import { HistoryEvent, HistoryQuery } from './history.schemas.js';
import type { HistoryService } from './history.service.js';

export const historyRoutes: FastifyPluginAsyncTypebox<{ history: HistoryService }> = async (app, { history }) => {
  app.get('/api/rooms/:roomId/history', {
    config: { access: { room: 'read' } },
    schema: {
      tags: ['history'],
      security: [{ bearer: [] }],
      summary: "The room's changes, newest first",
      description: 'Page back with `before` = the smallest `version` of the previous page.',
      params: RoomParams,
      querystring: HistoryQuery,
      response: { 200: Type.Object({ events: Type.Array(HistoryEvent) }), ...errors(400, 401, 403, 404) },
    },
    handler: async (request) => history.page(request.room, request.query.limit ?? 50, request.query.before),
  });
};
