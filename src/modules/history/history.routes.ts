import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errors, RoomParams } from '../../http/schemas.js';
import { presentHistoryEvent } from './history.presenter.js';
import type { HistoryRepository } from './history.repository.js';

const HistoryEvent = Type.Object({
  id: Type.String(),
  version: Type.Integer({ description: "The room's state version after this change" }),
  type: Type.String({ description: '`<objectType>.<created|updated|deleted>`, `room.cleared` or `room.imported`' }),
  objectType: Type.String(),
  objectId: Type.String(),
  actor: Type.Object({ kind: Type.Enum(['user', 'token']), id: Type.String() }),
  at: Type.Integer(),
  changes: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});

export const historyRoutes: FastifyPluginAsyncTypebox<{ history: HistoryRepository }> = async (app, { history }) => {
  app.get('/api/rooms/:roomId/history', {
    config: { access: { room: 'read' } },
    schema: {
      tags: ['history'],
      security: [{ bearer: [] }],
      summary: "The room's changes, newest first",
      description: 'Page back with `before` = the smallest `version` of the previous page.',
      params: RoomParams,
      querystring: Type.Object({
        before: Type.Optional(Type.Integer({ minimum: 1 })),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
      }),
      response: { 200: Type.Object({ events: Type.Array(HistoryEvent) }), ...errors(400, 401, 403, 404) },
    },
    handler: async (request) => {
      const rows = await history.page(request.room.id, request.query.limit ?? 50, request.query.before);
      return { events: rows.map(presentHistoryEvent) };
    },
  });
};
