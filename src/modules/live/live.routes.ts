import type { WebSocket } from '@fastify/websocket';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { upgradeRequired } from '../../errors.js';
import { errors, RoomParams } from '../../http/schemas.js';
import { LiveEvent, Present } from './live-events.js';
import type { LiveService } from './live.service.js';

const DESCRIPTION = `A WebSocket (\`ws://\` or \`wss://\`): the upgrade answers 101 Switching Protocols.

**Before the upgrade**, a refusal is an ordinary HTTP answer with the JSON error body \`{error, message}\`: 400
\`validation_error\` (a bad room id or \`since\`), 401 (an invalid or expired credential), 403 (a room token of
another room), 404 (no such room), 426 \`upgrade_required\` (a request that is not a WebSocket upgrade).

**Credential**: as \`?access_token=<session JWT or room token>\`, in the \`Authorization\` header, or, from a browser
that cannot set headers, as the first message \`{"type":"auth","token":"..."}\` within 10 seconds. Listening needs read
on the room (anyone for a public room; a room token needs \`read\`).

**Messages** from the server, as JSON, are the \`LiveEvent\` schema (components.schemas.LiveEvent), told apart by \`type\`:
- \`{type: "hello", roomId, version}\` first: the room's state version.
- with \`?since=<version>\`, the changes missed since that version, in order; then every change as it happens:
  \`{type, objectType, objectId, data, version, at}\`, with the history's type names (\`marker.created\`, \`layer.updated\`,
  \`room.updated\`, \`room.cleared\`, \`room.imported\`, ...). \`data\` is the object after the change (null when deleted).
- \`{type: "resync", version}\` when the client is too far behind (more than 1,000 changes, or history was cleared):
  reload the room, then listen from \`version\`.
- \`{type: "error", error, message}\` just before the server closes the socket.

**Close codes**: 4401 no valid credential (or none in time), 4403 the credential may not read the room (also when
access ends while listening: the room made private, the member removed, the token revoked), 4404 the room is gone,
1011 an internal error or the live channel unavailable for a moment (reconnect with \`?since=\`), 1012 the instance is
stopping or restarting (reconnect with \`?since=\`; behind a proxy another instance answers at once). The server pings every 15 seconds; a client that does not answer is dropped at the next ping.

**Presence**: with \`?presence=true\` the socket also gets \`presence.joined\` / \`presence.left\` (members and the room's tokens
coming and going) and the others' \`pointer\` / \`view\`. A member's or token's socket may send
\`{"type":"pointer","lng","lat"}\` and \`{"type":"view","lng","lat","zoom","bearing"?,"pitch"?}\`: relayed to the room's other
sockets, never stored, at most one of each per 50 ms per member or token (however many sockets they have): one sent sooner waits for the end of those 50 ms, replaced by any newer one, so the last position always arrives; anything else is ignored. See \`GET /api/rooms/{roomId}/presence\`.`;

export const liveRoutes: FastifyPluginAsyncTypebox<{ live: LiveService }> = async (app, { live }) => {
  // Documentation only: the OpenAPI document lists it under components.schemas, and the web
  // application's types (web/src/api/schema.d.ts) are generated from it.
  app.addSchema(LiveEvent);
  app.route({
    method: 'GET',
    url: '/api/rooms/:roomId/live',
    // `listen` admits any caller of an existing room; read access is checked on the socket,
    // so that a browser can also send its credential as the first message.
    config: { access: { room: 'listen', credentialInQuery: true, embed: true } },
    schema: {
      tags: ['live'],
      security: [{ bearer: [] }],
      summary: "WebSocket: the room's changes as they happen",
      description: DESCRIPTION,
      params: RoomParams,
      querystring: Type.Object({
        since: Type.Optional(Type.Integer({ minimum: 0, description: 'The last version the client saw' })),
        access_token: Type.Optional(Type.String({ description: 'A session JWT or room token' })),
        presence: Type.Optional(
          Type.Boolean({
            default: false,
            description: "true: also send `presence.joined`, `presence.left` and the others' `pointer` and `view`",
          }),
        ),
      }),
      response: errors(400, 401, 403, 404, 426),
    },
    handler: async () => {
      throw upgradeRequired();
    },
    wsHandler: (socket: WebSocket, request: FastifyRequest) => {
      const {
        since,
        access_token: queryToken,
        presence,
      } = request.query as { since?: number; access_token?: string; presence?: boolean };
      const credential = request.headers.authorization ?? (queryToken ? `Bearer ${queryToken}` : undefined);
      void live
        .open({
          socket,
          roomId: request.room.id,
          caller: request.caller,
          grant: request.grant,
          since,
          credential,
          presenceNews: presence,
        })
        .catch((error) => {
          request.log.error({ err: error }, 'live channel failed');
          socket.close(1011, 'Internal error');
        });
    },
  });

  app.get('/api/rooms/:roomId/presence', {
    config: { access: { room: 'read' } },
    schema: {
      tags: ['live'],
      security: [{ bearer: [] }],
      summary: "Who has the room's live channel open now",
      description:
        "One entry per signed-in user (named by their name, else, to the room's members, their e-mail, and to room tokens " +
        '"Member") or room token (its name) with a socket ' +
        "open on any instance, `since` their first. Members and the room's tokens only: anonymous and non-member " +
        'readers of a public room are neither listed nor allowed to list (401/403). A socket lost without closing is ' +
        'gone within 30 seconds.',
      params: RoomParams,
      response: { 200: Type.Object({ present: Type.Array(Present) }), ...errors(400, 401, 403, 404) },
    },
    handler: async (request) => ({ present: await live.present(request.room.id, request.caller, request.grant) }),
  });
};
