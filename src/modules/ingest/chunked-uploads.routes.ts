import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { invalidField } from '../../errors.js';
import { errors, RoomId } from '../../http/schemas.js';
import { multipart, type UploadReceiver, type UploadSpec } from '../../http/uploads.js';
import { CHUNKED_MAX_BYTES, type ChunkedUploads } from './chunked-uploads.js';
import { UPLOAD_MAX_BYTES, UploadAsSchema } from './uploads.schemas.js';

const security = [{ bearer: [] }];
const tags = ['layers'];
const JsonOrText = Type.Union([Type.String({ maxLength: 4000 }), Type.Record(Type.String(), Type.Unknown())]);

const CHUNK_FORM: UploadSpec = {
  files: { chunk: { maxBytes: UPLOAD_MAX_BYTES } },
  fields: {
    roomName: { maxLength: 10 },
    uploadId: { maxLength: 64 },
    chunkIndex: { maxLength: 10 },
    totalChunks: { maxLength: 10 },
    fileName: { maxLength: 255 },
  },
  assembledMaxBytes: CHUNKED_MAX_BYTES,
};

export const chunkedUploadsRoutes: FastifyPluginAsyncTypebox<{
  chunked: ChunkedUploads;
  receiver: UploadReceiver;
}> = async (app, { chunked, receiver }) => {
  app.post('/api/layers/upload-chunk', {
    config: { access: { roomInBody: 'upload' } },
    schema: {
      tags,
      security,
      summary: 'Send one chunk of a file over 50 MB (up to 2 GiB in all)',
      description:
        'multipart/form-data: `roomName`, `uploadId` (yours to choose: 8 to 64 of A-Z a-z 0-9 _ -), `chunkIndex` (from 0), `totalChunks`, ' +
        '`fileName`, and the file part `chunk` (at most 50 MB). Sending a chunk again replaces it. Chunks not processed within 24 hours are removed.',
      ...multipart(CHUNK_FORM),
      response: {
        200: Type.Object({
          uploadId: Type.String(),
          chunkIndex: Type.Integer(),
          received: Type.Integer({ description: 'Chunks held so far' }),
        }),
        ...errors(400, 401, 403, 404, 413, 415),
      },
    },
    handler: async (request) => {
      const form = await receiver.receive(request, CHUNK_FORM);
      try {
        await request.authorizeRoom(form.fields.get('roomName') ?? '');
        const chunk = form.files.get('chunk');
        if (!chunk) throw invalidField('chunk', 'is required');
        return await chunked.receiveChunk(request.room, chunk, Object.fromEntries(form.fields));
      } finally {
        await form.discard();
      }
    },
  });

  app.post('/api/layers/process-chunked', {
    config: { access: { roomInBody: 'upload' } },
    schema: {
      tags,
      security,
      summary: 'Assemble a chunked upload and process it as a job (202 {jobId}); a missing chunk is 400 naming it',
      body: Type.Object(
        {
          roomName: RoomId,
          uploadId: Type.String({ pattern: '^[A-Za-z0-9_-]{8,64}$' }),
          layerName: Type.Optional(Type.String({ maxLength: 200 })),
          fileName: Type.String({ minLength: 1, maxLength: 255 }),
          description: Type.Optional(Type.String({ maxLength: 2000 })),
          style: Type.Optional(JsonOrText),
          display: Type.Optional(JsonOrText),
          sourceCrs: Type.Optional(
            Type.String({
              maxLength: 20,
              description:
                "The EPSG code of a vector file's coordinates (`2056` or `EPSG:2056`), taken over what it declares",
            }),
          ),
          as: Type.Optional(UploadAsSchema),
        },
        { additionalProperties: false },
      ),
      response: { 202: Type.Object({ jobId: Type.String() }), ...errors(400, 401, 403, 404, 413, 415) },
    },
    handler: async (request, reply) => {
      const { roomName, style, display, ...rest } = request.body;
      await request.authorizeRoom(roomName);
      const text = (value: unknown) =>
        value === undefined || typeof value === 'string' ? value : JSON.stringify(value);
      const queued = await chunked.process(
        request.room,
        request.caller,
        { ...rest, style: text(style), display: text(display) },
        request.id,
      );
      return reply.status(202).send(queued);
    },
  });
};
