import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errors, GIS_AUTH_RULE, GIS_SECURITY } from '../../http/schemas.js';
import { GEOJSON_TYPE, OPENAPI_TYPE, SCHEMA_TYPE } from './ogc.presenter.js';
import { Type } from 'typebox';
import type { EditedFeature } from '../layers/feature-edits.schemas.js';
import { featureEtag, type OgcWrites } from './ogc-writes.js';
import * as S from './ogc.schemas.js';
import type { OgcRequest, OgcService } from './ogc.service.js';

const security = GIS_SECURITY;
const tags = ['ogc'];
const access = { access: { room: 'read', basicAuth: true } } as const;
/** Room content is private even in public rooms (a room made private must not stay in shared caches). */
const HEADERS = { 'cache-control': 'private, max-age=0, must-revalidate', 'x-content-type-options': 'nosniff' };
const write = { access: { room: 'write', basicAuth: true } } as const;
const WRITE_RULE =
  "Needs write on the room; the collection is a vector layer's (markers and drawings: 405). As `POST /api/layers/:layerId/features`: " +
  "the feature's properties are checked against the layer's fields, and the change is one history entry and a live change.";
const IF_MATCH =
  'With `If-Match` (the ETag a read or write answered, `"<version>"`), a feature at another version is 412 ' +
  '`precondition_failed` with `details.by` and `details.version`.';
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
export const ogcRoutes: FastifyPluginAsyncTypebox<{ ogc: OgcService; writes: OgcWrites }> = async (
  app,
  { ogc, writes },
) => {
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
      summary:
        'OGC API – Features: the collections (`markers`, `drawings`, `drawings-<kind>`, each vector layer by its id)',
      description:
        `${READ_RULE} Each with its extent (spatial; temporal from the markers' eventDate) and links. ` +
        '`drawings` holds every drawing; `drawings-points`, `drawings-lines` and `drawings-polygons` one kind each ' +
        '(listed when the room has such drawings), for clients that give a layer one geometry type (QGIS).',
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
    handler: async (request, reply) => {
      const { collectionId, featureId } = request.params;
      const text = await ogc.item(where(request), collectionId, featureId);
      const etag = await writes.etagOf(collectionId, featureId);
      if (etag) reply.header('etag', etag);
      return sendAs(reply, GEOJSON_TYPE, text);
    },
  });

  app.post('/api/rooms/:roomId/ogc/collections/:collectionId/items', {
    config: write,
    schema: {
      tags,
      security,
      summary: 'OGC API – Features Part 4: add a feature to a layer collection',
      description: `${WRITE_RULE} Answers 201 with the feature, its \`Location\` and its \`ETag\`.`,
      params: S.CollectionParams,
      body: S.ItemBody,
      produces: [GEOJSON_TYPE],
      response: errors(400, 401, 403, 404, 405, 502),
    },
    handler: async (request, reply) => {
      const { feature, location } = await writes.create(
        where(request),
        request.caller,
        request.params.collectionId,
        request.body,
      );
      return written(reply.status(201).header('location', location), feature);
    },
  });

  app.put('/api/rooms/:roomId/ogc/collections/:collectionId/items/:featureId', {
    config: write,
    schema: {
      tags,
      security,
      summary: 'OGC API – Features Part 4: replace a feature (its geometry and all its properties)',
      description: `${WRITE_RULE} ${IF_MATCH}`,
      params: S.FeatureParams,
      body: S.ItemBody,
      produces: [GEOJSON_TYPE],
      response: errors(400, 401, 403, 404, 405, 412, 502),
    },
    handler: async (request, reply) => {
      const { collectionId, featureId } = request.params;
      const ifMatch = request.headers['if-match'];
      return written(
        reply,
        await writes.replace(where(request), request.caller, collectionId, featureId, request.body, ifMatch),
      );
    },
  });

  app.patch('/api/rooms/:roomId/ogc/collections/:collectionId/items/:featureId', {
    config: write,
    schema: {
      tags,
      security,
      summary: "OGC API – Features Part 4: update a feature's geometry and/or some of its properties",
      description: `${WRITE_RULE} The properties sent replace theirs (null removes one). ${IF_MATCH}`,
      params: S.FeatureParams,
      body: S.ItemPatchBody,
      produces: [GEOJSON_TYPE],
      response: errors(400, 401, 403, 404, 405, 412, 502),
    },
    handler: async (request, reply) => {
      const { collectionId, featureId } = request.params;
      const ifMatch = request.headers['if-match'];
      return written(
        reply,
        await writes.update(where(request), request.caller, collectionId, featureId, request.body, ifMatch),
      );
    },
  });

  app.delete('/api/rooms/:roomId/ogc/collections/:collectionId/items/:featureId', {
    config: write,
    schema: {
      tags,
      security,
      summary: 'OGC API – Features Part 4: delete a feature',
      description: `${WRITE_RULE} ${IF_MATCH}`,
      params: S.FeatureParams,
      response: { 204: Type.Null({ description: 'Deleted' }), ...errors(400, 401, 403, 404, 405, 412, 502) },
    },
    handler: async (request, reply) => {
      const { collectionId, featureId } = request.params;
      await writes.delete(where(request), request.caller, collectionId, featureId, request.headers['if-match']);
      return reply.status(204).send(null);
    },
  });
};

/** A written feature as GeoJSON, with its ETag. */
const written = (reply: FastifyReply, feature: EditedFeature) => {
  const { version, ...item } = feature;
  return reply.headers(HEADERS).header('etag', featureEtag(version)).type(GEOJSON_TYPE).send(item);
};
