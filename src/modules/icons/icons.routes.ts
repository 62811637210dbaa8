import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { badRequest } from '../../errors.js';
import { errors, RoomParams } from '../../http/schemas.js';
import { multipart, type UploadReceiver, type UploadSpec } from '../../http/uploads.js';
import { Icon } from './icons.schemas.js';
import { ICON_NAME_MAX, ICON_SIZE, MAX_ICON_BYTES, type IconsService } from './icons.service.js';

const security = [{ bearer: [] }];
const tags = ['marker icons'];

/**
 * Icons never change once registered (a new file gets a new id). The CSP keeps a served SVG
 * inert even when opened directly: no scripts, no fetches, a sandboxed origin.
 */
const ICON_HEADERS = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
  'cache-control': 'private, max-age=31536000, immutable',
};

const ICON_FORM: UploadSpec = {
  files: { icon: { maxBytes: MAX_ICON_BYTES } },
  fields: { name: { maxLength: ICON_NAME_MAX }, size: { maxLength: 10 } },
};

const invalid = (field: string, message: string) => badRequest(`${field} ${message}`, [{ field, message }]);

export const iconsRoutes: FastifyPluginAsyncTypebox<{ icons: IconsService; uploads: UploadReceiver }> = async (
  app,
  { icons, uploads },
) => {
  app.post('/api/rooms/:roomId/marker-icons', {
    config: { access: { room: 'write' } },
    schema: {
      tags,
      security,
      summary: 'Register a marker icon (multipart: `icon` SVG or PNG file at most 1 MB, `name`, `size` 8 to 256)',
      description:
        'SVG is sanitised before it is stored (no script, event handler, foreign object or external reference).',
      ...multipart(ICON_FORM),
      params: RoomParams,
      response: { 201: Type.Object({ iconId: Type.String() }), ...errors(400, 401, 403, 404, 413, 415) },
    },
    handler: async (request, reply) => {
      const form = await uploads.receive(request, ICON_FORM);
      try {
        const file = form.files.get('icon');
        if (!file) throw invalid('icon', 'is required');
        const name = (form.fields.get('name') ?? '').trim();
        if (name.length < 1 || name.length > ICON_NAME_MAX)
          throw invalid('name', `must be 1 to ${ICON_NAME_MAX} characters`);
        const sizeText = (form.fields.get('size') ?? '').trim();
        const size = /^\d+$/.test(sizeText) ? Number(sizeText) : NaN;
        if (!(size >= ICON_SIZE.min && size <= ICON_SIZE.max)) {
          throw invalid('size', `must be an integer from ${ICON_SIZE.min} to ${ICON_SIZE.max}`);
        }
        const created = await icons.create(request.room.id, request.caller, { file: file.path, name, size });
        return reply.status(201).send(created);
      } finally {
        await form.discard();
      }
    },
  });

  app.get('/api/rooms/:roomId/marker-icons', {
    config: { access: { room: 'read', embed: true } },
    schema: {
      tags,
      security,
      summary: "The room's marker icons, without the files",
      params: RoomParams,
      response: { 200: Type.Object({ icons: Type.Array(Icon) }), ...errors(400, 401, 403, 404) },
    },
    handler: async (request) => icons.list(request.room.id),
  });

  app.get('/api/rooms/:roomId/marker-icons/:iconId', {
    config: {
      access: {
        room: 'shownByDeck',
        deckObject: { what: 'Icon', type: 'icon', id: { param: 'iconId' } },
        embed: true,
      },
    },
    schema: {
      tags,
      security,
      summary: 'The icon file (image/svg+xml or image/png)',
      description:
        'Needs read on the room; when the deck is public, anyone may read the icons of the markers its slides show (others are 404 to them).',
      params: Type.Object({ roomId: RoomParams.properties.roomId, iconId: Type.String() }),
      produces: ['image/svg+xml', 'image/png'],
      response: errors(400, 401, 403, 404),
    },
    handler: async (request, reply) => {
      const file = await icons.open(request.room.id, request.params.iconId);
      return reply
        .headers({ ...ICON_HEADERS, 'content-type': file.contentType, 'content-length': String(file.bytes) })
        .send(file.stream);
    },
  });
};
