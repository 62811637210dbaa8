import type { WebSocket } from '@fastify/websocket';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { RoomParams } from '../../http/schemas.js';
import type { LiveService } from './live.service.js';

export const liveRoutes: FastifyPluginAsyncTypebox<{ live: LiveService }> = async (app, { live }) => {
  app.get('/api/rooms/:roomId/live', {
    websocket: true,
    // `info` admits any caller of an existing room; read access is checked on the socket,
    // so that a browser can also send its credential as the first message.
    config: { access: { room: 'info', credentialInQuery: true } },
    schema: {
      tags: ['live'],
      summary: 'WebSocket: the room\'s changes as they happen',
      description:
        'Credential as `?access_token=` or a first message `{"type":"auth","token":"..."}`. The server sends ' +
        '`{type:"hello", roomId, version}`, then (with `?since=<version>`) the changes missed since that version, then ' +
        'each change as `{type, objectType, objectId, data, version, at}` with the history type names. ' +
        '`{type:"resync"}` asks the client to reload the room. Close codes: 4401, 4403, 4404.',
      params: RoomParams,
      querystring: Type.Object({
        since: Type.Optional(Type.Integer({ minimum: 0 })),
        access_token: Type.Optional(Type.String()),
      }),
    },
  }, (socket: WebSocket, request: FastifyRequest) => {
    const { since, access_token: queryToken } = request.query as { since?: number; access_token?: string };
    const credential = request.headers.authorization ?? (queryToken ? `Bearer ${queryToken}` : undefined);
    void live.open(socket, request.room.id, request.caller, request.grant, since, credential).catch((error) => {
      request.log.error({ err: error }, 'live channel failed');
      socket.close(1011, 'Internal error');
    });
  });
};
