import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { ObjectRoom } from '../../http/access-hook.js';
import { errors } from '../../http/schemas.js';
import type { FeatureEdits } from './feature-edits.service.js';
import * as S from './feature-edits.schemas.js';
import { LayerIdParams } from './layers.schemas.js';

const security = [{ bearer: [] }];
const tags = ['layers'];
const RULES =
  "Needs write on the layer's room. Properties must be fields of the layer, each of its field's type or null " +
  '(400 `validation_error` naming `body.properties.<name>`); geometry is GeoJSON in longitude/latitude. Every edit ' +
  "is one history entry and a live `feature.*` change, and advances the layer's `updatedAt` (its tiles' ETags).";

/** Creating, changing and deleting a vector layer's features, one at a time. */
export const featureEditsRoutes: FastifyPluginAsyncTypebox<{ edits: FeatureEdits; layerRoom: ObjectRoom }> = async (
  app,
  { edits, layerRoom },
) => {
  const write = { access: { room: 'write', roomOf: layerRoom } } as const;

  app.post('/api/layers/:layerId/features', {
    config: write,
    schema: {
      tags,
      security,
      summary: 'Add a feature to a vector layer',
      description: `${RULES} The new feature gets the id after the layer's highest, at version 1.`,
      params: LayerIdParams,
      body: S.CreateFeatureBody,
      response: { 201: S.EditedFeature, ...errors(400, 401, 403, 404, 502) },
    },
    handler: async (request, reply) =>
      reply.status(201).send(await edits.create(request.room, request.caller, request.params.layerId, request.body)),
  });

  app.patch('/api/layers/:layerId/features/:featureId', {
    config: write,
    schema: {
      tags,
      security,
      summary: "Change a feature's geometry and/or properties",
      description:
        `${RULES} The properties given replace those of the feature (null removes one); the others stay. ` +
        'With `ifVersion`, a feature at another version is 409 `version_conflict` with `details.by` (who changed ' +
        'it last) and `details.version` (its version).',
      params: S.FeatureParams,
      body: S.PatchFeatureBody,
      response: { 200: S.EditedFeature, ...errors(400, 401, 403, 404, 409, 502) },
    },
    handler: async (request) => {
      const { layerId, featureId } = request.params;
      return edits.update(request.room, request.caller, layerId, featureId, request.body);
    },
  });

  app.delete('/api/layers/:layerId/features/:featureId', {
    config: write,
    schema: {
      tags,
      security,
      summary: 'Delete a feature of a vector layer',
      description:
        "Needs write on the layer's room. History keeps the feature: restoring an entry brings it back with its id.",
      params: S.FeatureParams,
      response: { 204: Type.Null({ description: 'Deleted' }), ...errors(400, 401, 403, 404, 502) },
    },
    handler: async (request, reply) => {
      const { layerId, featureId } = request.params;
      await edits.delete(request.room, request.caller, layerId, featureId);
      return reply.status(204).send(null);
    },
  });
};
