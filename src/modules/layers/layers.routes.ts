import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { seesLayer } from '../../auth/access.js';
import type { ObjectRoom } from '../../http/access-hook.js';
import { errors, GIS_AUTH_RULE, GIS_SECURITY, RoomId } from '../../http/schemas.js';
import { UPLOAD_MAX_BYTES } from '../ingest/uploads.schemas.js';
import type { LayerAttributes } from './layer-attributes.js';
import type { LayersService } from './layers.service.js';
import * as S from './layers.schemas.js';

const security = [{ bearer: [] }];
const tags = ['layers'];
/**
 * Layer data is private even in public rooms (a room made private must not stay in shared
 * caches); clients may reuse it for a minute and revalidate tiles with their ETag.
 */
const DATA_HEADERS = { 'cache-control': 'private, max-age=60', 'x-content-type-options': 'nosniff' };

/** A layer's features as GeoJSON, kept a minute by the caller's cache. */
const geoJson = (reply: FastifyReply, body: unknown) =>
  reply.headers(DATA_HEADERS).type('application/geo+json').send(body);
const LayerReply = Type.Object({ success: Type.Boolean(), layer: S.VectorLayer });
const FEATURES_DESCRIPTION =
  "Needs read on the layer's room (anonymous for public rooms), or a public deck whose slides show the layer; others get 404. Without a bbox, a layer of at most 10,000 features " +
  'answers whole. A bbox (WGS84 degrees; all four or none) answers its features, or, above 10,000, `_metadata.complete: false` ' +
  "with `directChunks: [{path, featureCount, bbox}]` to fetch. `zoom` (0 to 24) simplifies geometries to that zoom's pixel size.";

export const layersRoutes: FastifyPluginAsyncTypebox<{
  layers: LayersService;
  attributes: LayerAttributes;
  layerRoom: ObjectRoom;
}> = async (app, { layers, attributes, layerRoom }) => {
  /** Layer data: read on the layer's room, or anyone when a slide of its public deck shows the layer. */
  const shownByDeck = {
    access: {
      room: 'shownByDeck',
      roomOf: layerRoom,
      deckObject: { what: 'Layer', type: 'layer', id: { param: 'layerId' } },
      embed: true,
    },
  } as const;
  /** Vector tiles: as the layer's data, and GIS clients may send a room token as HTTP Basic. */
  const tiles = { access: { ...shownByDeck.access, basicAuth: true } } as const;

  app.post('/api/rooms/:roomId/layers', {
    config: { access: { room: 'write' } },
    bodyLimit: UPLOAD_MAX_BYTES,
    schema: {
      tags,
      security,
      summary: 'Create a layer from a GeoJSON FeatureCollection in the body (up to 50 MB)',
      params: Type.Object({ roomId: RoomId }),
      body: S.CreateLayerBody,
      response: { 200: LayerReply, ...errors(400, 401, 403, 404, 413, 502) },
    },
    handler: async (request) => layers.create(request.room, request.caller, request.body),
  });

  app.get('/api/layers/:roomName', {
    config: { access: { room: 'read', roomParam: 'roomName', embed: true } },
    schema: {
      tags,
      security,
      summary: "The room's vector layers (`roomName` is the room id; anonymous for public rooms)",
      params: Type.Object({ roomName: RoomId }),
      response: { 200: Type.Object({ layers: Type.Array(S.VectorLayer) }), ...errors(400, 401, 403, 404) },
    },
    handler: async (request) => {
      const { layers: all } = await layers.list(request.room.id);
      return { layers: all.filter((layer) => seesLayer(request.caller, layer.id)) };
    },
  });

  app.patch('/api/rooms/:roomId/layers/:layerId', {
    config: { access: { room: 'write' } },
    schema: {
      tags,
      security,
      summary: "Change a layer's name, description or style",
      params: S.RoomLayerParams,
      body: S.PatchLayerBody,
      response: { 200: LayerReply, ...errors(400, 401, 403, 404, 502) },
    },
    handler: async (request) => layers.update(request.room, request.caller, request.params.layerId, request.body),
  });

  app.delete('/api/layers/:layerId', {
    config: { access: { room: 'editor', roomOf: layerRoom } },
    schema: {
      tags,
      security,
      summary: 'Delete a vector or raster layer with all its data (session of an owner or editor; room tokens cannot)',
      params: S.LayerIdParams,
      response: {
        200: Type.Object({ success: Type.Boolean(), layerId: Type.String() }),
        ...errors(401, 403, 404, 502),
      },
    },
    handler: async (request) => layers.delete(request.room, request.caller, request.params.layerId),
  });

  app.get('/api/layers/:layerId/features', {
    config: shownByDeck,
    schema: {
      tags,
      security,
      summary: 'The features of a layer, or of a bbox of it',
      description: FEATURES_DESCRIPTION,
      params: S.LayerIdParams,
      querystring: S.FeaturesQuery,
      produces: ['application/geo+json'],
      response: errors(400, 401, 404),
    },
    handler: async (request, reply) =>
      geoJson(reply, await layers.features(request.room.id, request.params.layerId, request.query)),
  });

  app.get('/api/layers/:layerId/features/chunks/:chunkIndex', {
    config: shownByDeck,
    schema: {
      tags,
      security,
      summary: 'One chunk of a large layer (at most 10,000 spatially close features), as a FeatureCollection',
      params: Type.Object({ layerId: S.LayerIdParams.properties.layerId, chunkIndex: Type.Integer({ minimum: 0 }) }),
      produces: ['application/geo+json'],
      response: errors(400, 401, 404),
    },
    handler: async (request, reply) =>
      geoJson(reply, await layers.chunk(request.room.id, request.params.layerId, request.params.chunkIndex)),
  });

  app.get('/api/layers/:layerId/attributes', {
    config: shownByDeck,
    schema: {
      tags,
      security,
      summary: "A page of the layer's attribute table: its fields, and features' id, properties and bbox",
      description:
        "Read access as the layer's features. Keyset pages: pass `next` as `after` for the next page, with the same " +
        '`sort`, `order` and `q`; a page deep in a million features costs what the first does. `sort` is `id` or a ' +
        "recorded field (not one of type json); features without the field's value come last. A layer of at most " +
        'ATTRIBUTES_SCAN_ROWS features sorts by any field. On a bigger one, the first sort by a field by a caller who may ' +
        "write builds that field's index (seconds on a million features; later pages and sorts are index seeks; at most 8 " +
        "fields per layer); a reader's sort by a field without an index is 400 naming `sort`. " +
        '`q` reads at most ATTRIBUTES_SCAN_ROWS rows per run of the order (the rows after the cursor with its value, with later values, without a value): a page may be short, even empty, while `next` is not null.',
      params: S.LayerIdParams,
      querystring: S.AttributesQuery,
      response: { 200: S.AttributesPage, ...errors(400, 401, 404) },
    },
    handler: async (request, reply) =>
      reply
        .headers(DATA_HEADERS)
        .send(
          await attributes.page(
            request.room.id,
            request.params.layerId,
            request.query,
            request.grant.capabilities.has('write'),
          ),
        ),
  });

  app.get('/api/layers/:layerId/tiles/:z/:x/:y.mvt', {
    config: tiles,
    schema: {
      tags,
      security: GIS_SECURITY,
      summary: 'A Mapbox Vector Tile (2.1) of the layer: one tile layer named `features`, extent 4096; 204 when empty',
      description: `Read access as the layer's features. ${GIS_AUTH_RULE}`,
      params: S.TileParams,
      produces: ['application/vnd.mapbox-vector-tile'],
      response: errors(400, 401, 404),
    },
    handler: async (request, reply) => {
      const { layerId, z, x, y } = request.params;
      // Revalidated cheaply with the ETag, which changes when the layer does.
      reply.headers(DATA_HEADERS);
      const etag = (version: string) => `W/"${version}-${z}-${x}-${y}"`;
      const ifNoneMatch = request.headers['if-none-match'];
      const answer = await layers.tile(request.room.id, layerId, { z, x, y }, (v) => ifNoneMatch === etag(v));
      if (answer.unchanged) return reply.status(304).send();
      const { tile, version } = answer;
      reply.header('etag', etag(version));
      if (!tile) return reply.status(204).send();
      return reply
        .type('application/vnd.mapbox-vector-tile')
        .send(Buffer.from(tile.buffer, tile.byteOffset, tile.byteLength));
    },
  });
};
