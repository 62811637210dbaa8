import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { invalidField, notFound } from '../../errors.js';
import { errors, RoomParams } from '../../http/schemas.js';
import { multipart, type UploadReceiver, type UploadSpec } from '../../http/uploads.js';
import { MAX_IMAGE_BYTES, type MarkerImages } from './marker-images.js';
import { ImageMetaSchema } from './markers.schemas.js';

const security = [{ bearer: [] }];
const tags = ['markers'];

const UploadReply = Type.Object({
  imageKey: Type.String({ description: '`markers/<roomId>/<uuid>.jpg`' }),
  thumbnailKey: Type.String({ description: '`markers/<roomId>/<uuid>_thumb.jpg`' }),
  exif: ImageMetaSchema,
});

const PHOTO_FORM: UploadSpec = {
  files: { image: { maxBytes: MAX_IMAGE_BYTES }, thumbnail: { maxBytes: MAX_IMAGE_BYTES } },
};

/** Headers of a served image: keys are never reused, so the bytes never change. */
const IMAGE_HEADERS = {
  'content-type': 'image/jpeg',
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'",
  // private even for public rooms: a room made private later must not stay in shared caches.
  'cache-control': 'private, max-age=31536000, immutable',
};

export const markerImagesRoutes: FastifyPluginAsyncTypebox<{ images: MarkerImages; uploads: UploadReceiver }> = async (
  app,
  { images, uploads },
) => {
  app.post('/api/rooms/:roomId/markers/upload-image', {
    config: { access: { room: 'write' } },
    schema: {
      tags,
      security,
      summary:
        'Upload a marker photo and, optionally, its thumbnail (multipart `image`, `thumbnail`; each at most 20 MB)',
      description:
        'JPEG, PNG, WebP, or HEIC/AVIF where the image library reads it. Both are stored as JPEG without ' +
        'EXIF, XMP or ICC data; the provenance is answered as `exif`. Without `thumbnail`, one is made ' +
        'from the image (longest side 256 px).',
      ...multipart(PHOTO_FORM),
      params: RoomParams,
      response: { 200: UploadReply, ...errors(400, 401, 403, 404, 413, 415) },
    },
    handler: async (request) => {
      const upload = await uploads.receive(request, PHOTO_FORM);
      try {
        const image = upload.files.get('image');
        if (!image) throw invalidField('image', 'is required');
        return await images.upload(request.room.id, image.path, upload.files.get('thumbnail')?.path);
      } finally {
        await upload.discard();
      }
    },
  });

  app.get('/api/rooms/:roomId/markers/image', {
    config: {
      access: {
        room: 'shownByDeck',
        deckObject: { what: 'Image', type: 'photo', id: { query: 'key' } },
        embed: true,
      },
    },
    schema: {
      tags,
      security,
      summary: 'A stored marker image or thumbnail (JPEG)',
      description:
        'Needs read on the room; when the deck is public, anyone may read the photos of the markers its slides show (others are 404 to them). ' +
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
