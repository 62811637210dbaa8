import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { seesLayer } from '../../auth/access.js';
import { notFound } from '../../errors.js';
import type { ObjectRoom } from '../../http/access-hook.js';
import { errors } from '../../http/schemas.js';
import type { LayerFields } from './layer-fields.service.js';
import * as S from './layer-fields.schemas.js';
import { LayerIdParams } from './layers.schemas.js';

const security = [{ bearer: [] }];
const tags = ['layers'];
const FIELD_RULES =
  "`choices` only for a `choice` field, which needs them; `default` of the field's type (one of its choices). " +
  '`required`: a feature created or changed from then on must give the field a value.';

/** The fields of a vector layer: listed with read, changed with write (each a `layer.updated` change). */
export const layerFieldsRoutes: FastifyPluginAsyncTypebox<{ fields: LayerFields; layerRoom: ObjectRoom }> = async (
  app,
  { fields, layerRoom },
) => {
  const read = { access: { room: 'read', roomOf: layerRoom, embed: true } } as const;
  const write = { access: { room: 'write', roomOf: layerRoom } } as const;

  app.get('/api/layers/:layerId/fields', {
    config: read,
    schema: {
      tags,
      security,
      summary: "A vector layer's fields, in order",
      description: "Needs read on the layer's room. An uploaded file's fields are as it declared them.",
      params: LayerIdParams,
      response: { 200: S.FieldsReply, ...errors(400, 401, 404) },
    },
    handler: async (request) => {
      // An embed key limited to some layers reads only theirs.
      if (!seesLayer(request.caller, request.params.layerId)) throw notFound('Layer');
      return fields.list(request.room.id, request.params.layerId);
    },
  });

  app.post('/api/layers/:layerId/fields', {
    config: write,
    schema: {
      tags,
      security,
      summary: 'Add a field to a vector layer',
      description: `Needs write. ${FIELD_RULES} A name the layer has already is 409 \`field_exists\`.`,
      params: LayerIdParams,
      body: S.NewField,
      response: { 201: S.Field, ...errors(400, 401, 403, 404, 409, 502) },
    },
    handler: async (request, reply) =>
      reply.status(201).send(await fields.add(request.room, request.caller, request.params.layerId, request.body)),
  });

  app.patch('/api/layers/:layerId/fields/:name', {
    config: write,
    schema: {
      tags,
      security,
      summary: 'Rename a field or change whether it is required, its choices or its default',
      description:
        `Needs write. ${FIELD_RULES} A new \`name\` renames the property in every feature and in the layer's ` +
        'style; a name the layer has already is 409 `field_exists`. `default: null` removes the default.',
      params: S.FieldParams,
      body: S.FieldChange,
      response: { 200: S.Field, ...errors(400, 401, 403, 404, 409, 502) },
    },
    handler: async (request) => {
      const { layerId, name } = request.params;
      return fields.update(request.room, request.caller, layerId, name, request.body);
    },
  });

  app.delete('/api/layers/:layerId/fields/:name', {
    config: write,
    schema: {
      tags,
      security,
      summary: 'Remove a field and its values from every feature',
      description: "Needs write. The layer's style stops labelling or classing by it.",
      params: S.FieldParams,
      response: { 204: Type.Null({ description: 'Removed' }), ...errors(400, 401, 403, 404, 502) },
    },
    handler: async (request, reply) => {
      const { layerId, name } = request.params;
      await fields.remove(request.room, request.caller, layerId, name);
      return reply.status(204).send(null);
    },
  });
};
