import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requireSession } from '../../auth/access.js';
import { TOKEN_PERMISSIONS } from '../../auth/room-tokens.js';
import { errors, RoomParams } from '../../http/schemas.js';
import type { TokensService } from './tokens.service.js';

const security = [{ bearer: [] }];
const tags = ['api tokens'];
const Permission = Type.Enum([...TOKEN_PERMISSIONS]);

export const tokensRoutes: FastifyPluginAsyncTypebox<{ tokens: TokensService }> = async (app, { tokens }) => {
  app.post('/api/rooms/:roomId/api-tokens', {
    config: { access: { room: 'owner' } },
    schema: {
      tags,
      security,
      summary: 'Issue a room API token (owner session); the secret is shown only in this answer',
      params: RoomParams,
      body: Type.Object(
        {
          name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' }),
          permissions: Type.Array(Permission, { minItems: 1, maxItems: 3 }),
          expiresInDays: Type.Optional(Type.Integer({ minimum: 1, maximum: 365, default: 30 })),
        },
        { additionalProperties: false },
      ),
      response: {
        200: Type.Object({
          token: Type.String({ description: '`mrt_` followed by 43 URL-safe characters' }),
          id: Type.String(),
        }),
        ...errors(400, 401, 403, 404),
      },
    },
    handler: async (request) => tokens.create(request.room, requireSession(request.caller).userId, request.body),
  });

  app.get('/api/rooms/:roomId/api-tokens', {
    config: { access: { room: 'owner' } },
    schema: {
      tags,
      security,
      summary: "The room's API tokens, without secrets (owner session)",
      params: RoomParams,
      response: {
        200: Type.Object({
          tokens: Type.Array(
            Type.Object({
              id: Type.String(),
              name: Type.String(),
              permissions: Type.Array(Type.String()),
              createdAt: Type.Integer(),
              expiresAt: Type.Integer(),
              lastUsedAt: Type.Union([Type.Integer(), Type.Null()], { description: 'Precise to a minute' }),
            }),
          ),
        }),
        ...errors(400, 401, 403, 404),
      },
    },
    handler: async (request) => tokens.list(request.room),
  });

  app.delete('/api/rooms/:roomId/api-tokens/:tokenId', {
    config: { access: { room: 'owner' } },
    schema: {
      tags,
      security,
      summary: 'Revoke a room API token at once (owner session)',
      params: Type.Object({
        roomId: RoomParams.properties.roomId,
        tokenId: Type.String({ minLength: 1, maxLength: 100 }),
      }),
      response: { 200: Type.Object({ success: Type.Boolean(), id: Type.String() }), ...errors(400, 401, 403, 404) },
    },
    handler: async (request) => tokens.revoke(request.room, request.params.tokenId),
  });
};
