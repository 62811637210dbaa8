import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { invalidField } from '../../errors.js';
import { errors, RoomParams } from '../../http/schemas.js';
import { multipart, type UploadReceiver, type UploadSpec } from '../../http/uploads.js';
import { BULK_IMPORT_MAX_BYTES, type BulkImport } from './bulk-import.js';

const BULK_IMPORT_FORM: UploadSpec = { files: { file: { maxBytes: BULK_IMPORT_MAX_BYTES } } };

export const bulkImportRoutes: FastifyPluginAsyncTypebox<{ bulkImport: BulkImport; uploads: UploadReceiver }> = async (
  app,
  { bulkImport, uploads },
) => {
  app.post('/api/rooms/:roomId/bulk-import', {
    config: { access: { room: 'write' } },
    schema: {
      tags: ['markers'],
      security: [{ bearer: [] }],
      summary: 'Import a GeoJSON FeatureCollection of points as markers (a job)',
      description:
        'multipart/form-data with the file in the field `file` (at most 1 GiB). Each Point feature may carry title, description, ' +
        'tags, eventDate, imageKey, thumbnailKey, markerIconId and markerIconSize. Poll GET /api/jobs/{jobId}; a file with an ' +
        'invalid feature ends the job in `error` naming the feature, and imports nothing. The markers appear all at once when ' +
        'the job completes.',
      ...multipart(BULK_IMPORT_FORM),
      params: RoomParams,
      response: {
        200: Type.Object({ jobId: Type.String({ description: '`bulk-import-<suffix>`' }) }),
        ...errors(400, 401, 403, 404, 413, 415),
      },
    },
    handler: async (request) => {
      const upload = await uploads.receive(request, BULK_IMPORT_FORM);
      try {
        const file = upload.files.get('file');
        if (!file) throw invalidField('file', 'is required');
        return await bulkImport.start(request.room, request.caller, file, request.id);
      } finally {
        await upload.discard();
      }
    },
  });
};
