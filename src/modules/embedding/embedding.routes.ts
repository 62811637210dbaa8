import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requireSession } from '../../auth/access.js';
import { errors, RoomParams } from '../../http/schemas.js';
import { baseUrlOf } from '../../http/web-app.js';
import type { Config } from '../../config.js';
import * as S from './embedding.schemas.js';
import { type EmbeddingService, OEMBED_HEIGHT, OEMBED_WIDTH } from './embedding.service.js';

const security = [{ bearer: [] }];
const tags = ['embedding'];

export const embeddingRoutes: FastifyPluginAsyncTypebox<{ embedding: EmbeddingService; config: Config }> = async (
  app,
  { embedding, config },
) => {
  app.get('/api/rooms/:roomId/embedding', {
    config: { access: { room: 'owner' } },
    schema: {
      tags,
      security,
      summary: "Which sites may frame the room's `/e/` pages (owner session)",
      description:
        'As set, or the default: `["*"]` (any site) for a public room or a room with a published deck, `[]` (none) for a private room. ' +
        'The default follows the room going public or private.',
      params: RoomParams,
      response: { 200: S.Embedding, ...errors(400, 401, 403, 404) },
    },
    handler: async (request) => embedding.origins(request.room),
  });

  app.patch('/api/rooms/:roomId/embedding', {
    config: { access: { room: 'owner' } },
    schema: {
      tags,
      security,
      summary: "Set which sites may frame the room's `/e/` pages (owner session)",
      description:
        'Each origin is `https://host[:port]` or `http://host[:port]`, kept as `new URL(x).origin` writes it; anything else is 400 ' +
        '`validation_error` naming the entry. `["*"]` lets any site frame the pages, only for a public room or a room with a ' +
        'published deck (otherwise 400 `embedding_not_public`); while the room is not public, `*` frames nothing. ' +
        'The `/e/` pages answer `Content-Security-Policy: frame-ancestors` with these origins.',
      params: RoomParams,
      body: S.EmbeddingBody,
      response: { 200: S.Embedding, ...errors(400, 401, 403, 404) },
    },
    handler: async (request) => embedding.setOrigins(request.room, request.body.origins),
  });

  app.post('/api/rooms/:roomId/embed-keys', {
    config: { access: { room: 'owner' } },
    schema: {
      tags,
      security,
      summary: 'Issue an embed key (owner session); the key is shown only in this answer',
      description:
        'An embed key (`Authorization: Bearer mre_...`, or `?access_token=` on the live channel) reads the room like a viewer ' +
        'on the routes an embedded map needs (markers, drawings, layers, rasters and their tiles, icons, photos, slides, the ' +
        "room's settings, the live channel), limited to `layers` when given. Any change is 403 `embed_key_read_only`; " +
        'other reads (history, search, comments, members, tokens, exports, OGC API) 403 `embed_key_not_allowed`.',
      params: RoomParams,
      body: S.CreateEmbedKeyBody,
      response: { 201: S.CreatedEmbedKey, ...errors(400, 401, 403, 404) },
    },
    handler: async (request, reply) =>
      reply
        .status(201)
        .send(await embedding.createKey(request.room, requireSession(request.caller).userId, request.body)),
  });

  app.get('/api/rooms/:roomId/embed-keys', {
    config: { access: { room: 'owner' } },
    schema: {
      tags,
      security,
      summary: "The room's embed keys with their last use, without secrets (owner session)",
      params: RoomParams,
      response: { 200: S.EmbedKeyList, ...errors(400, 401, 403, 404) },
    },
    handler: async (request) => embedding.listKeys(request.room),
  });

  app.delete('/api/rooms/:roomId/embed-keys/:keyId', {
    config: { access: { room: 'owner' } },
    schema: {
      tags,
      security,
      summary: 'Revoke an embed key at once (owner session)',
      params: Type.Object({ roomId: RoomParams.properties.roomId, keyId: S.EmbedKeyParams.properties.keyId }),
      response: { 204: Type.Null({ description: 'Revoked' }), ...errors(400, 401, 403, 404) },
    },
    handler: async (request, reply) => {
      await embedding.revokeKey(request.room, request.params.keyId);
      return reply.status(204).send(null);
    },
  });

  app.get('/api/oembed', {
    schema: {
      tags,
      summary: 'oEmbed (https://oembed.com): a `rich` answer with an `<iframe>` of a public room or published deck',
      description:
        'For `<origin>/r/<roomId>` of a public room and `<origin>/p/<roomId>` of a published deck on this service; 404 for ' +
        'anything else (private rooms, unknown ones, other hosts). `format=xml` (any format but `json`) is 501. The frame is ' +
        `${OEMBED_WIDTH}×${OEMBED_HEIGHT} unless \`maxwidth\`/\`maxheight\` ask for less.`,
      querystring: S.OEmbedQuery,
      response: { 200: S.OEmbed, ...errors(400, 404, 501) },
    },
    handler: async (request) => embedding.oembed(request.query, baseUrlOf(config, request)),
  });
};
