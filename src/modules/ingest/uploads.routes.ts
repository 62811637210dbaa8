import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { invalidField } from '../../errors.js';
import { errors } from '../../http/schemas.js';
import { multipart, type UploadReceiver, type UploadSpec } from '../../http/uploads.js';
import type { Uploads } from './uploads.js';
import { UPLOAD_FIELDS, UPLOAD_MAX_BYTES } from './uploads.schemas.js';

const security = [{ bearer: [] }];
const tags = ['layers'];

const LAYER_FORM: UploadSpec = { files: { file: { maxBytes: UPLOAD_MAX_BYTES } }, fields: UPLOAD_FIELDS };

export const uploadsRoutes: FastifyPluginAsyncTypebox<{ uploads: Uploads; receiver: UploadReceiver }> = async (
  app,
  { uploads, receiver },
) => {
  app.post('/api/layers/upload', {
    config: { access: { roomInBody: 'upload' } },
    schema: {
      tags,
      security,
      summary:
        'Upload a file: GeoJSON, zipped shapefile, GeoPackage, point CSV, KML/KMZ, GPX or FlatGeobuf (any CRS), or a GeoTIFF',
      description:
        'multipart/form-data: `roomName` (the room id), `file` (at most 50 MB; larger files go through upload-chunk), and optional ' +
        '`layerName` (default: the file name), `description`, `style` (JSON: color, opacity, strokeWeight, fillOpacity, visible) and ' +
        "`display` (JSON, for rasters) and `sourceCrs` (the EPSG code of a vector file's coordinates, `2056` or `EPSG:2056`, taken " +
        'over what the file declares: for files that name no CRS) and `as` (what a vector file becomes). ' +
        'With `as=auto` (the default) a file whose every feature is a point becomes markers: `{markersCreated, markers, layer: null}`; ' +
        'otherwise each feature table becomes a layer: `{layer, layers}`. `as=layer` makes layers whatever the features ' +
        '(a file of points a Point layer keeping every attribute as a field); `as=markers` makes markers, and a file with any ' +
        'other feature, or a GeoTIFF, is 400 not_points. Files over 5 MB, and GeoTIFFs declaring more than ' +
        'RASTER_SYNC_MAX_PIXELS pixels times bands, answer 202 `{jobId}`, polled at /api/layers/jobs/{jobId}. ' +
        'Refusals: 415 unsupported_format, 400 invalid_file / invalid_zip / unknown_crs (send `sourceCrs`) / invalid_source_crs / ' +
        'no_feature_tables / not_points / unsupported_raster ' +
        '(a GeoTIFF over RASTER_MAX_PIXELS pixels, among others).',
      ...multipart(LAYER_FORM),
      response: {
        200: Type.Unknown(),
        202: Type.Object({ jobId: Type.String() }),
        ...errors(400, 401, 403, 404, 413, 415),
      },
    },
    handler: async (request, reply) => {
      const form = await receiver.receive(request, LAYER_FORM);
      try {
        await request.authorizeRoom(form.fields.get('roomName') ?? '');
        const file = form.files.get('file');
        if (!file) throw invalidField('file', 'is required');
        const { status, body } = await uploads.upload(
          request.room,
          request.caller,
          { path: file.path, fileName: file.filename, bytes: file.bytes },
          Object.fromEntries(form.fields),
          request.id,
        );
        return reply.status(status).send(body);
      } finally {
        await form.discard();
      }
    },
  });
};
