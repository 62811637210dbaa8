import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors, RoomParams } from '../../http/schemas.js';
import type { Geocoder } from './geocoder.js';
import * as S from './search.schemas.js';
import { MAX_LAYERS_SEARCHED, type SearchService } from './search.service.js';

const security = [{ bearer: [] }];
const tags = ['search'];

export const searchRoutes: FastifyPluginAsyncTypebox<{
  search: SearchService;
  geocoder: Geocoder;
  geocodesPerMinute: number;
  /** SEARCH_RATE_LIMIT_PER_MINUTE (default 600): a person typing asks at most 4 times a second; a team behind one address, a few of them. */
  searchesPerMinute: number;
}> = async (app, { search, geocoder, geocodesPerMinute, searchesPerMinute }) => {
  app.get('/api/rooms/:roomId/search', {
    config: { access: { room: 'read' }, rateLimit: { max: searchesPerMinute, timeWindow: 60_000 } },
    schema: {
      tags,
      security,
      summary: 'Find a text in the room: markers, drawings and the features of its vector layers',
      description:
        'Read access on the room (anonymous for public rooms). Markers by title or description, drawings by label, ' +
        'features by any text field of their layer, case-insensitively and as plain text (`%` and `_` are no ' +
        "wildcards). Each layer's features are searched within its first ATTRIBUTES_SCAN_ROWS features (by id), " +
        'so a search costs the same on a million features as on a few thousand. A layer whose window ended before ' +
        'the results were full is named in `partialLayers` (`{layerId, name, featureCount, searched}`): its later ' +
        "features were not read; its attribute table's `q` (`GET /api/layers/{layerId}/attributes?q=`, following " +
        '`next`) finds the text anywhere in it. The first ' +
        `${MAX_LAYERS_SEARCHED} vector layers (in the room's order) are searched. ` +
        `SEARCH_RATE_LIMIT_PER_MINUTE (${searchesPerMinute} on this service) searches per client and minute ` +
        '(429 `too_many_requests` past it).',
      params: RoomParams,
      querystring: S.SearchQuery,
      response: { 200: S.SearchResults, ...errors(400, 401, 403, 404, 429) },
    },
    handler: async (request) => search.search(request.room.id, request.query),
  });

  app.get('/api/geocode', {
    config: { access: { session: true }, rateLimit: { max: geocodesPerMinute, timeWindow: 60_000 } },
    schema: {
      tags,
      security,
      summary: 'Find a place by name through the geocoder this service is configured with (GEOCODER_URL)',
      description:
        'Signed-in users. 404 `not_configured` when the service has no geocoder; 502 `geocoder_failed` when it fails, ' +
        'times out (GEOCODER_TIMEOUT_MS) or answers neither Nominatim JSON nor Photon GeoJSON. ' +
        'GEOCODER_RATE_LIMIT_PER_MINUTE searches per client and minute (429 past it).',
      querystring: S.GeocodeQuery,
      response: { 200: S.GeocodeResults, ...errors(400, 401, 403, 404, 429, 502) },
    },
    handler: async (request) => geocoder.search(request.query.q),
  });
};
