import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { seesLayer } from '../../auth/access.js';
import { errors, GIS_AUTH_RULE, GIS_SECURITY, RoomParams } from '../../http/schemas.js';
import * as S from './rasters.schemas.js';
import type { RastersService } from './rasters.service.js';

const security = [{ bearer: [] }];
const tags = ['rasters'];
const DECK_RULE =
  'Needs read on the room (anonymous for public rooms); when the deck is public, anyone may also read the rasters its slides show. Others get 404 for a raster they may not see.';

export const rastersRoutes: FastifyPluginAsyncTypebox<{ rasters: RastersService }> = async (app, { rasters }) => {
  /** Tiles and values: read, or anyone when a slide of the public deck shows the raster. */
  const shownByDeck = {
    room: 'shownByDeck',
    deckObject: { what: 'Raster layer', type: 'raster', id: { param: 'layerId' } },
    embed: true,
  } as const;
  /** Tiles: as the raster's values, and GIS clients may send a room token as HTTP Basic. */
  const tiles = { ...shownByDeck, basicAuth: true } as const;

  app.get('/api/colormaps', {
    schema: {
      tags,
      summary: 'The colormaps a raster display may name (no credential needed)',
      description:
        'Every name also works reversed, as `<name>_r` or with the display key `reverse: true`. `stops` are 9 colours from low to high, for legends.',
      response: { 200: S.ColormapList },
    },
    handler: async (_request, reply) => {
      reply.header('cache-control', 'public, max-age=86400');
      return rasters.colormaps();
    },
  });

  app.get('/api/rooms/:roomId/raster-layers', {
    config: { access: { room: 'read', embed: true } },
    schema: {
      tags,
      security,
      summary: "The room's raster layers, oldest first",
      params: RoomParams,
      response: { 200: S.RasterLayerList, ...errors(400, 401, 403, 404) },
    },
    handler: async (request) => {
      const answer = await rasters.list(request.room.id);
      return { rasterLayers: answer.rasterLayers.filter((layer) => seesLayer(request.caller, layer.id)) };
    },
  });

  app.patch('/api/rooms/:roomId/raster-layers/:layerId/display', {
    config: { access: { room: 'write' } },
    schema: {
      tags,
      security,
      summary: "Change a raster's display: the keys sent replace the stored ones",
      description:
        'Every key is checked against the raster: a band it lacks, an unknown colormap, vmin not below vmax, rgbBands not three of its bands, ' +
        'renderMode rgb on fewer than three bands, opacity outside 0..1 are 400 naming the key. `null` for vmin, vmax, rgbMin, rgbMax or nodata means ' +
        "automatic (the 2nd to 98th percentile) or none. A new `band` without vmin/vmax stretches to that band's statistics. " +
        'Answers `{success, rasterLayer}`; history and live clients get `rasterLayer.updated` with the new display; tiles get a new ETag.',
      params: S.RasterLayerParams,
      body: S.RasterDisplay,
      response: { 200: S.RasterLayerReply, ...errors(400, 401, 403, 404, 502) },
    },
    handler: async (request) =>
      rasters.updateDisplay(request.room, request.caller, request.params.layerId, request.body),
  });

  app.get('/api/rooms/:roomId/raster-layers/:layerId/tiles/:z/:x/:y.png', {
    config: { access: tiles },
    schema: {
      tags,
      security: GIS_SECURITY,
      summary: 'A 256 px PNG map tile (Web Mercator z/x/y) of the raster, drawn with its display',
      description:
        `${DECK_RULE} Transparent outside the data and at nodata; a tile with nothing to show is a fully transparent PNG (200, ` +
        '`X-Tile-Empty: 1`), which every map client draws. `ETag` changes with the display; `If-None-Match` answers 304. `Cache-Control: private, no-cache`: ' +
        `clients revalidate, so a restyle shows at once. ${GIS_AUTH_RULE}`,
      params: S.RasterTileParams,
      produces: ['image/png'],
      response: errors(400, 401, 403, 404),
    },
    handler: async (request, reply) => {
      const { roomId, layerId, z, x, y } = request.params;
      const answer = await rasters.tile(roomId, layerId, { z, x, y }, request.headers['if-none-match']);
      // Private even for public rooms: a room made private must not stay in shared caches.
      reply.headers({ etag: answer.etag, 'cache-control': 'private, no-cache', 'x-content-type-options': 'nosniff' });
      if (answer.notModified) return reply.status(304).send();
      if (answer.empty) reply.header('x-tile-empty', '1');
      return reply.type('image/png').send(answer.png);
    },
  });

  app.get('/api/rooms/:roomId/raster-layers/:layerId/point', {
    config: { access: shownByDeck },
    schema: {
      tags,
      security,
      summary: "Every band's value at a point (WGS84), for an identify tool",
      description: `${DECK_RULE} \`values\` has one entry per band: null at nodata (the file's or the display's) and everywhere outside the raster.`,
      params: S.RasterLayerParams,
      querystring: S.PointQuery,
      response: { 200: S.PointValues, ...errors(400, 401, 403, 404) },
    },
    handler: async (request, reply) => {
      reply.header('cache-control', 'private, no-cache');
      return rasters.point(request.params.roomId, request.params.layerId, request.query.lon, request.query.lat);
    },
  });
};
