import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import type { Readable } from 'node:stream';
import { Type } from 'typebox';
import { invalidField } from '../../errors.js';
import { errors, RoomParams } from '../../http/schemas.js';
import { noBodyMeansEmpty } from '../../http/request-bodies.js';
import { multipart, type UploadReceiver, type UploadSpec } from '../../http/uploads.js';
import type { RoomClones } from './room-clones.js';
import type { RoomImport } from './room-import.js';
import * as S from './exports.schemas.js';
import { EXPORTS_PER_CALLER, optionsOf, type ExportsService } from './exports.service.js';

const security = [{ bearer: [] }];
const tags = ['export, import, clone'];
const GPKG = 'application/geopackage+sqlite3';
const JobParams = Type.Object({ roomId: RoomParams.properties.roomId, jobId: S.ExportJobParams.properties.jobId });

/** A GeoPackage download: private, never sniffed, saved under the room's name. */
function sendGeoPackage(reply: FastifyReply, roomId: string, file: { stream: Readable; bytes: number }) {
  return reply
    .headers({
      'content-type': GPKG,
      'content-length': String(file.bytes),
      'content-disposition': `attachment; filename="${roomId}.gpkg"`,
      'cache-control': 'private, no-store',
      'x-content-type-options': 'nosniff',
    })
    .send(file.stream);
}

/** The largest GeoPackage an import takes. */
export const IMPORT_MAX_BYTES = 2 * 1024 ** 3;
const IMPORT_FORM: UploadSpec = { files: { file: { maxBytes: IMPORT_MAX_BYTES } } };
/** A manifest of a big room (100,000 markers) is tens of megabytes of JSON: fixed, the manifest's format bounds it. */
export const MANIFEST_MAX_BYTES = 64 * 1024 ** 2;

export const exportsRoutes: FastifyPluginAsyncTypebox<{
  exports: ExportsService;
  roomImport: RoomImport;
  clones: RoomClones;
  receiver: UploadReceiver;
}> = async (app, { exports, roomImport, clones, receiver }) => {
  app.post('/api/rooms/:roomId/import', {
    config: { access: { room: 'write' } },
    schema: {
      tags,
      security,
      summary: 'Import a GeoPackage into the room',
      description:
        'multipart/form-data, the file in the field `file` (at most 2 GiB). A Maproom export is restored (every object under a new id); ' +
        'any other GeoPackage gives one vector layer per feature table. All of it appears at once (history `room.imported`). ' +
        "A file that is not a GeoPackage, or a damaged one, is 400 `invalid_file` and nothing is imported; 413 `quota_exceeded` past the owner's quota.",
      ...multipart(IMPORT_FORM),
      params: RoomParams,
      response: { 200: S.ImportReply, ...errors(400, 401, 403, 404, 413, 415, 502) },
    },
    handler: async (request) => {
      const upload = await receiver.receive(request, IMPORT_FORM);
      try {
        const file = upload.files.get('file');
        if (!file) throw invalidField('file', 'is required');
        return await roomImport.run(request.room, request.caller, file);
      } finally {
        await upload.discard();
      }
    },
  });

  app.get('/api/rooms/:roomId/export-manifest', {
    config: { access: { room: 'read' } },
    schema: {
      tags,
      security,
      summary: 'The room as small JSON for cloning, with a signed 24-hour grant to copy its data',
      params: RoomParams,
      response: { 200: S.Manifest, ...errors(400, 401, 403, 404) },
    },
    handler: async (request) => clones.manifest(request.room),
  });

  app.post('/api/rooms/:roomId/clone-jobs', {
    config: { access: { room: 'write' } },
    bodyLimit: MANIFEST_MAX_BYTES,
    schema: {
      tags,
      security,
      summary: 'Copy another room into this one from its export-manifest (a job)',
      description:
        'Body `{manifest}` as export-manifest answered it. A missing, altered or expired grant is 403 `invalid_grant`. Poll ' +
        "/api/layers/jobs/{jobId} (`layersCloned`); everything appears at once when the job completes. Copied bytes count against this room owner's quota.",
      params: RoomParams,
      body: S.CloneBody,
      response: {
        202: Type.Object({ jobId: Type.String({ description: '`job-<uuid>`' }) }),
        ...errors(400, 401, 403, 404, 413),
      },
    },
    handler: async (request, reply) =>
      reply.status(202).send(await clones.start(request.room, request.caller, request.body.manifest, request.id)),
  });

  app.post('/api/rooms/:roomId/export', {
    config: { access: { room: 'read' } },
    preValidation: noBodyMeansEmpty,
    schema: {
      tags,
      security,
      summary: 'The whole room as one GeoPackage (streamed)',
      description:
        'Body `{}`. Markers and drawings and each vector layer are feature tables (EPSG:4326); comments, replies, slides, icons, marker photos, ' +
        "layers (with styles and raster display) and room settings are attribute tables. `include_tiffs=true` adds the rasters' original " +
        "GeoTIFFs (table raster_files), `include_tiles=true` each raster as a tile pyramid. Above `export-size`'s threshold, use export jobs.",
      params: RoomParams,
      querystring: S.ExportOptionFields,
      body: S.ExportBody,
      produces: [GPKG],
      response: { 200: Type.Unknown({ description: 'The GeoPackage' }), ...errors(400, 401, 403, 404) },
    },
    handler: async (request, reply) =>
      sendGeoPackage(reply, request.room.id, await exports.exportNow(request.room, optionsOf(request.query))),
  });

  app.get('/api/rooms/:roomId/export-size', {
    config: { access: { room: 'read' } },
    schema: {
      tags,
      security,
      summary: "The export's estimated size, and whether to export at once or with a job",
      params: RoomParams,
      response: { 200: S.ExportSize, ...errors(400, 401, 403, 404) },
    },
    handler: async (request) => exports.size(request.room),
  });

  app.post('/api/rooms/:roomId/export-jobs', {
    config: { access: { room: 'read' } },
    preValidation: noBodyMeansEmpty,
    schema: {
      tags,
      security,
      summary: 'Export the room in the background',
      description:
        'Body `{include_tiffs?, include_tiles?}` (booleans, default false). Poll the job; its artifact is kept for 24 hours. ' +
        `A caller (a user, or a token) holds at most ${EXPORTS_PER_CALLER} export jobs at once (waiting, running, or ` +
        "complete with an unexpired artifact): one more removes the caller's own oldest artifact (410 from then on), " +
        'or is 429 `too_many_requests` with `Retry-After` while all of theirs are still in progress.',
      params: RoomParams,
      body: S.ExportOptionFields,
      response: { 202: Type.Object({ jobId: Type.String({ format: 'uuid' }) }), ...errors(400, 401, 403, 404, 429) },
    },
    handler: async (request, reply) =>
      reply.status(202).send(await exports.start(request.room, request.caller, request.ip, request.body, request.id)),
  });

  app.get('/api/rooms/:roomId/export-jobs/:jobId', {
    config: { access: { room: 'read' } },
    schema: {
      tags,
      security,
      summary: "An export job of this room (another room's job id is 404)",
      params: JobParams,
      response: { 200: S.ExportJob, ...errors(400, 401, 403, 404) },
    },
    handler: async (request) => exports.status(request.room, request.params.jobId),
  });

  app.get('/api/rooms/:roomId/export-jobs/:jobId/artifact', {
    config: { access: { room: 'read' } },
    schema: {
      tags,
      security,
      summary: "A complete export job's GeoPackage",
      description:
        '404 until the job is complete; 410 `export_expired` once the artifact was removed (24 hours after the job finished).',
      params: JobParams,
      produces: [GPKG],
      response: { 200: Type.Unknown({ description: 'The GeoPackage' }), ...errors(400, 401, 403, 404, 410) },
    },
    handler: async (request, reply) =>
      sendGeoPackage(reply, request.room.id, await exports.artifact(request.room, request.params.jobId)),
  });
};
