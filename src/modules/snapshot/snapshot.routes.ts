import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors, RoomParams } from '../../http/schemas.js';
import { Snapshot, SnapshotQuery } from './snapshot.schemas.js';
import type { SnapshotService } from './snapshot.service.js';

export const snapshotRoutes: FastifyPluginAsyncTypebox<{ snapshot: SnapshotService }> = async (app, { snapshot }) => {
  app.get('/api/rooms/:roomId/history/snapshot', {
    config: { access: { room: 'read' } },
    schema: {
      tags: ['history'],
      security: [{ bearer: [] }],
      summary: "The room's markers, drawings, layers and rasters as they were at a moment (read)",
      description:
        'Read from the states history keeps: each object as its newest entry at or before `at` left it. A moment in ' +
        'the future answers the current state; one before the first change, an empty room with version 0.',
      params: RoomParams,
      querystring: SnapshotQuery,
      response: { 200: Snapshot, ...errors(400, 401, 403, 404) },
    },
    handler: async (request) => snapshot.at(request.room, request.query.at),
  });
};
