import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errors, GIS_AUTH_RULE, GIS_SECURITY } from '../../http/schemas.js';
import { GEOJSON_TYPE, OPENAPI_TYPE, SCHEMA_TYPE } from './ogc.presenter.js';
import * as S from './ogc.schemas.js';
import type { OgcRequest, OgcService } from './ogc.service.js';

const security = GIS_SECURITY;
const tags = ['ogc'];
const access = { access: { room: 'read', basicAuth: true } } as const;
/** Room content is private even in public rooms (a room made private must not stay in shared caches). */
const HEADERS = { 'cache-control': 'private, max-age=0, must-revalidate', 'x-content-type-options': 'nosniff' };
const READ_RULE = `Needs read on the room: a room token with read or a session of a member (sent as \`Authorization: Bearer\`), or nobody for a public room. ${GIS_AUTH_RULE}`;

/** The room and its endpoint's absolute URL, from the address the client used. */
const where = (request: FastifyRequest): OgcRequest => ({
  room: request.room,
  base: `${request.protocol}://${request.host}/api/rooms/${request.room.id}/ogc`,
});
const searchOf = (request: FastifyRequest) => request.url.split('?')[1] ?? '';
/** A document sent as text of its own media type. */
const sendAs = (reply: FastifyReply, type: string, text: string) => reply.headers(HEADERS).type(type).send(text);

/**
 * OGC API – Features for every room (Part 1: core, GeoJSON, OpenAPI 3.0): GDAL's OAPIF driver
 * and QGIS open `/api/rooms/:roomId/ogc` with a room token. Errors are the service's body.
 */
export const ogcRoutes: FastifyPluginAsyncTypebox<{ ogc: OgcService }> = async (app, { ogc }) => {
  app.get('/api/rooms/:roomId/ogc', {
    config: access,
    schema: {
      tags,
      security,
      summary: "OGC API – Features: the room's landing page",
      description: `${READ_RULE} Links to the OpenAPI 3.0 document (\`/ogc/api\`), the conformance classes and the collections.`,
      params: S.OgcParams,
      response: { 200: S.LandingPage, ...errors(400, 401, 403, 404) },
    },
    handler: async (request, reply) => reply.headers(HEADERS).send(ogc.landing(where(request))),
  });

  app.get('/api/rooms/:roomId/ogc/conformance', {
    config: access,
    schema: {
      tags,
      security,
      summary: 'OGC API – Features: conformance classes (core, GeoJSON, OpenAPI 3.0)',
      description: READ_RULE,
      params: S.OgcParams,
      response: { 200: S.Conformance, ...errors(400, 401, 403, 404) },
    },
    handler: async (_request, reply) => reply.headers(HEADERS).send({ conformsTo: S.CONFORMANCE_CLASSES }),
  });

  app.get('/api/rooms/:roomId/ogc/api', {
    config: access,
    schema: {
      tags,
      security,
      summary: "OGC API – Features: the OpenAPI 3.0 document of the room's endpoint",
      description: `${READ_RULE} Its collection ids, and the page size's default and maximum.`,
      params: S.OgcParams,
      produces: [OPENAPI_TYPE],
      response: errors(400, 401, 403, 404),
    },
    handler: async (request, reply) => sendAs(reply, OPENAPI_TYPE, JSON.stringify(await ogc.api(where(request)))),
  });

  app.get('/api/rooms/:roomId/ogc/collections', {
    config: access,
    schema: {
      tags,
      security,
      summary: 'OGC API – Features: the collections (`markers`, `drawings`, each vector layer by its id)',
      description: `${READ_RULE} Each with its extent (spatial; temporal from the markers' eventDate) and links.`,
      params: S.OgcParams,
      response: { 200: S.Collections, ...errors(400, 401, 403, 404) },
    },
    handler: async (request, reply) => reply.headers(HEADERS).send(await ogc.collections(where(request))),
  });

  app.get('/api/rooms/:roomId/ogc/collections/:collectionId', {
    config: access,
    schema: {
      tags,
      security,
      summary: 'OGC API – Features: one collection',
      description: READ_RULE,
      params: S.CollectionParams,
      response: { 200: S.Collection, ...errors(400, 401, 403, 404) },
    },
    handler: async (request, reply) =>
      reply.headers(HEADERS).send(await ogc.collection(where(request), request.params.collectionId)),
  });

  app.get('/api/rooms/:roomId/ogc/collections/:collectionId/schema', {
    config: access,
    schema: {
      tags,
      security,
      summary: "OGC API – Features: the JSON schema of a collection's features (its `describedby` link)",
      description: `${READ_RULE} A vector layer's properties are its recorded fields, typed.`,
      params: S.CollectionParams,
      produces: [SCHEMA_TYPE],
      response: errors(400, 401, 403, 404),
    },
    handler: async (request, reply) =>
      sendAs(reply, SCHEMA_TYPE, JSON.stringify(await ogc.schema(where(request), request.params.collectionId))),
  });

  app.get('/api/rooms/:roomId/ogc/collections/:collectionId/items', {
    config: access,
    schema: {
      tags,
      security,
      summary: 'OGC API – Features: a page of features (GeoJSON, longitude/latitude)',
      description:
        `${READ_RULE} \`numberMatched\`, \`numberReturned\`, and a \`next\` link while more follow (keyset paging: ` +
        'every page costs alike). `bbox` takes features whose bbox meets it; `datetime` applies to markers; any other ' +
        "parameter filters a vector layer's features by equality on that recorded field. A filtered request reads at " +
        'most OGC_SCAN_ROWS rows: its page may be short (with property filters even empty) while a next link follows; ' +
        'property-filtered answers have no numberMatched.',
      params: S.CollectionParams,
      querystring: S.ItemsQuery,
      produces: [GEOJSON_TYPE],
      response: errors(400, 401, 403, 404),
    },
    handler: async (request, reply) =>
      sendAs(
        reply,
        GEOJSON_TYPE,
        await ogc.items(where(request), request.params.collectionId, request.query, searchOf(request)),
      ),
  });

  app.get('/api/rooms/:roomId/ogc/collections/:collectionId/items/:featureId', {
    config: access,
    schema: {
      tags,
      security,
      summary: 'OGC API – Features: one feature (a layer feature by its integer id, a marker or drawing by its id)',
      description: READ_RULE,
      params: S.FeatureParams,
      produces: [GEOJSON_TYPE],
      response: errors(400, 401, 403, 404),
    },
    handler: async (request, reply) =>
      sendAs(
        reply,
        GEOJSON_TYPE,
        await ogc.item(where(request), request.params.collectionId, request.params.featureId),
      ),
  });
};
