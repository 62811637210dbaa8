import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { ObjectRoom } from '../../http/access-hook.js';
import { errors, RoomId } from '../../http/schemas.js';
import { LayerIdParams, RemoteLayerBody } from './layers.schemas.js';
import type { RemoteLayers } from './remote-layers.js';

const security = [{ bearer: [] }];
const tags = ['layers'];
const JobAccepted = Type.Object({ jobId: Type.String({ description: 'Poll it at GET /api/jobs/:jobId' }) });

/** Layers read from an address: added as a layer file is uploaded, refreshed with write. */
export const remoteLayersRoutes: FastifyPluginAsyncTypebox<{ remote: RemoteLayers; layerRoom: ObjectRoom }> = async (
  app,
  { remote, layerRoom },
) => {
  app.post('/api/rooms/:roomId/layers/remote', {
    config: { access: { room: 'upload' } },
    schema: {
      tags,
      security,
      summary: 'Add a layer read from an address, and read again on a schedule',
      description:
        'Needs upload (owner or editor; tokens need upload). A job reads the address and makes the layer; ' +
        'GET /api/jobs/:jobId names its `layerId` when done, or says why the source was refused.',
      params: Type.Object({ roomId: RoomId }),
      body: RemoteLayerBody,
      response: { 202: JobAccepted, ...errors(400, 401, 403, 404) },
    },
    handler: async (request, reply) =>
      reply.code(202).send(await remote.create(request.room, request.caller, request.body, request.id)),
  });

  app.post('/api/layers/:layerId/refresh', {
    config: { access: { room: 'write', roomOf: layerRoom } },
    schema: {
      tags,
      security,
      summary: 'Read a remote layer from its address again now',
      description:
        "Needs write on the layer's room. A job reads the source; when something changed, the layer's data is replaced " +
        'in one history entry with the counts (`changes.refreshed: {added, changed, removed}`). A failing read keeps ' +
        "the data and sets the layer's `source.lastError`. 409 `not_remote` for a layer not read from an address.",
      params: LayerIdParams,
      response: { 202: JobAccepted, ...errors(400, 401, 403, 404, 409) },
    },
    handler: async (request, reply) =>
      reply.code(202).send(await remote.refresh(request.room, request.caller, request.params.layerId, request.id)),
  });
};
