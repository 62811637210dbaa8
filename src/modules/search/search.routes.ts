import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors, RoomParams } from '../../http/schemas.js';
import type { Geocoder } from './geocoder.js';
import * as S from './search.schemas.js';
import { MAX_LAYERS_SEARCHED, type SearchService } from './search.service.js';

/** A person typing asks at most 4 times a second (the page waits 250 ms); a team behind one address, a few of them. */
const SEARCHES_PER_MINUTE = 600;

const security = [{ bearer: [] }];
const tags = ['search'];

export const searchRoutes: FastifyPluginAsyncTypebox<{
  search: SearchService;
  geocoder: Geocoder;
  geocodesPerMinute: number;
}> = async (app, { search, geocoder, geocodesPerMinute }) => {
  app.get('/api/rooms/:roomId/search', {
    config: { access: { room: 'read' }, rateLimit: { max: SEARCHES_PER_MINUTE, timeWindow: 60_000 } },
    schema: {
      tags,
      security,
      summary: 'Find a text in the room: markers, drawings and the features of its vector layers',
      description:
        'Read access on the room (anonymous for public rooms). Markers by title or description, drawings by label, ' +
        'features by any text field of their layer, case-insensitively and as plain text (`%` and `_` are no ' +
        "wildcards). Each layer's features are searched within its first ATTRIBUTES_SCAN_ROWS features (by id), " +
        'so a search costs the same on a million features as on a few thousand; the first ' +
        `${MAX_LAYERS_SEARCHED} vector layers (in the room's order) are searched. ` +
        `${SEARCHES_PER_MINUTE} searches per client and minute (429 past it).`,
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
