import { GEOJSON_TYPE } from './ogc.presenter.js';
import { CRS84, DEFAULT_ITEMS_LIMIT, MAX_ITEMS_LIMIT } from './ogc.schemas.js';

/**
 * The OpenAPI 3.0 document of a room's OGC API – Features endpoint (`…/ogc/api`, the landing
 * page's `service-desc`): its paths, the collection ids as an enum, the parameters of
 * `/items` with the page size's default and maximum (GDAL reads them), the writes of Part 4,
 * and the bearer credential.
 */

const json = (description: string, schema: object = { type: 'object' }) => ({
  description,
  content: { 'application/json': { schema } },
});
const geojson = (description: string) => ({
  description,
  content: { [GEOJSON_TYPE]: { schema: { type: 'object' } } },
});
const ErrorBody = {
  type: 'object',
  required: ['error', 'message'],
  properties: { error: { type: 'string' }, message: { type: 'string' }, details: {} },
};
const refusals = {
  '400': json('A parameter is wrong (`validation_error`)', ErrorBody),
  '401': json('No credential, or a dead one', ErrorBody),
  '403': json('The credential may not read this room', ErrorBody),
  '404': json('No such room, collection or feature', ErrorBody),
};

export function ogcOpenApi(base: string, roomName: string, collectionIds: string[]) {
  const collectionId = {
    name: 'collectionId',
    in: 'path',
    required: true,
    schema: { type: 'string', enum: collectionIds },
  };
  const parameters = [
    {
      name: 'limit',
      in: 'query',
      style: 'form',
      explode: false,
      schema: { type: 'integer', minimum: 1, maximum: MAX_ITEMS_LIMIT, default: DEFAULT_ITEMS_LIMIT },
    },
    {
      name: 'bbox',
      in: 'query',
      style: 'form',
      explode: false,
      schema: { type: 'array', minItems: 4, maxItems: 6, items: { type: 'number' } },
    },
    { name: 'bbox-crs', in: 'query', schema: { type: 'string', enum: [CRS84] } },
    { name: 'datetime', in: 'query', style: 'form', explode: false, schema: { type: 'string' } },
    { name: 'cursor', in: 'query', schema: { type: 'string' }, description: 'Set by the next link' },
  ];
  const get = (summary: string, extra: object) => ({ get: { summary, ...extra } });
  const featureId = { name: 'featureId', in: 'path', required: true, schema: { type: 'string' } };
  const ifMatch = {
    name: 'If-Match',
    in: 'header',
    schema: { type: 'string' },
    description: 'The ETag read: 412 when the feature changed since',
  };
  const header = { schema: { type: 'string' } };
  const feature = { required: true, content: { [GEOJSON_TYPE]: { schema: { type: 'object' } } } };
  const stale = { '412': json('The feature changed since the ETag sent (`precondition_failed`)', ErrorBody) };
  const written = (requestBody: object) => ({
    parameters: [collectionId, featureId, ifMatch],
    requestBody,
    responses: { '200': { ...geojson('The feature as written'), headers: { ETag: header } }, ...refusals, ...stale },
  });
  return {
    openapi: '3.0.3',
    info: {
      title: `${roomName} (Maproom): OGC API – Features`,
      version: '1.0.0',
      description:
        'Send a room token with read (or a session) as `Authorization: Bearer <token>`, or the room token as the ' +
        'password of HTTP Basic with any user name; a public room needs none.',
    },
    servers: [{ url: base }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' }, basic: { type: 'http', scheme: 'basic' } },
    },
    security: [{ bearer: [] }, { basic: [] }, {}],
    paths: {
      '/': get('Landing page', {
        responses: { '200': json('Links to the API, conformance and collections'), ...refusals },
      }),
      '/conformance': get('Conformance classes', { responses: { '200': json('conformsTo'), ...refusals } }),
      '/api': get('This document', {
        responses: {
          '200': { description: 'OpenAPI 3.0', content: { 'application/vnd.oai.openapi+json;version=3.0': {} } },
        },
      }),
      '/collections': get('The collections', { responses: { '200': json('The collections'), ...refusals } }),
      '/collections/{collectionId}': get('One collection', {
        parameters: [collectionId],
        responses: { '200': json('The collection'), ...refusals },
      }),
      '/collections/{collectionId}/schema': get("The JSON schema of a collection's features", {
        parameters: [collectionId],
        responses: { '200': { description: 'JSON schema', content: { 'application/schema+json': {} } }, ...refusals },
      }),
      '/collections/{collectionId}/items': {
        ...get('A page of features', {
          parameters: [collectionId, ...parameters],
          responses: {
            '200': geojson('FeatureCollection with numberMatched, numberReturned and a next link'),
            ...refusals,
          },
        }),
        post: {
          summary: "Add a feature to a layer's collection (write)",
          parameters: [collectionId],
          requestBody: feature,
          responses: {
            '201': { description: 'Added: its Location and ETag', headers: { Location: header, ETag: header } },
            ...refusals,
          },
        },
      },
      '/collections/{collectionId}/items/{featureId}': {
        ...get('One feature (a layer feature with its ETag)', {
          parameters: [collectionId, featureId],
          responses: { '200': geojson('Feature'), ...refusals },
        }),
        put: { summary: 'Replace a feature (write)', ...written(feature) },
        patch: {
          summary: 'Change its geometry and/or some properties (write)',
          ...written({ required: true, content: { 'application/merge-patch+json': { schema: { type: 'object' } } } }),
        },
        delete: {
          summary: 'Delete a feature (write)',
          parameters: [collectionId, featureId, ifMatch],
          responses: { '204': { description: 'Deleted' }, ...refusals, ...stale },
        },
      },
    },
  };
}
