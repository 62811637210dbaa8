import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { badRequest, notFound } from '../../errors.js';
import { errors, RoomParams } from '../../http/schemas.js';
import { readForm } from '../files/multipart-form.js';
import { MAX_IMAGE_BYTES, type MarkerImages } from './marker-images.js';
import { ImageMetaSchema } from './markers.schemas.js';

const security = [{ bearer: [] }];
const tags = ['markers'];

const UploadReply = Type.Object({
  imageKey: Type.String({ description: '`markers/<roomId>/<uuid>.jpg`' }),
  thumbnailKey: Type.String({ description: '`markers/<roomId>/<uuid>_thumb.jpg`' }),
  exif: ImageMetaSchema,
});

/** Headers of a served image: keys are never reused, so the bytes never change. */
const IMAGE_HEADERS = {
  'content-type': 'image/jpeg',
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'",
  // private even for public rooms: a room made private later must not stay in shared caches.
  'cache-control': 'private, max-age=31536000, immutable',
};

export const markerImagesRoutes: FastifyPluginAsyncTypebox<{ images: MarkerImages }> = async (app, { images }) => {
  app.post('/api/rooms/:roomId/markers/upload-image', {
    config: { access: { room: 'write' } },
    schema: {
      tags,
      security,
      summary: 'Upload a marker photo and its thumbnail (multipart `image`, `thumbnail`; each at most 20 MB)',
      description:
        'JPEG, PNG, WebP, or HEIC/AVIF where the image library reads it. Both are stored as JPEG without ' +
        'EXIF, XMP or ICC data; the provenance is answered as `exif`.',
      consumes: ['multipart/form-data'],
      params: RoomParams,
      response: { 200: UploadReply, ...errors(400, 401, 403, 404, 413, 415) },
    },
    handler: async (request) => {
      const form = await readForm(request, {
        files: { image: { maxBytes: MAX_IMAGE_BYTES }, thumbnail: { maxBytes: MAX_IMAGE_BYTES } },
      });
      const required = (field: string) => {
        const file = form.files.get(field);
        if (!file) throw badRequest(`${field} is required`, [{ field, message: `${field} is required` }]);
        return file.data;
      };
      return images.upload(request.room.id, required('image'), required('thumbnail'));
    },
  });

  app.get('/api/rooms/:roomId/markers/image', {
    config: { access: { room: 'read' } },
    schema: {
      tags,
      security,
      summary: 'A stored marker image or thumbnail (JPEG)',
      description:
        'Any key that is not exactly `markers/<roomId>/<uuid>.jpg` or `..._thumb.jpg` of this room, or is not stored, is 404.',
      params: RoomParams,
      querystring: Type.Object({ key: Type.String({ description: 'An imageKey or thumbnailKey from upload-image' }) }),
      produces: ['image/jpeg'],
      response: errors(400, 401, 403, 404),
    },
    handler: async (request, reply) => {
      const file = await images.open(request.room.id, request.query.key);
      if (!file) throw notFound('Image');
      return reply.headers({ ...IMAGE_HEADERS, 'content-length': String(file.bytes) }).send(file.stream);
    },
  });
};
