import { type DomainCore, defineDomain, routes } from '../domain/domain.js';
import { Geocoder } from './geocoder.js';
import { searchRoutes } from './search.routes.js';
import { SearchService, type SearchParts } from './search.service.js';

/** Search in a room's markers, drawings and layers, and the geocoder. */
export function searchDomain({ config }: DomainCore, parts: Omit<SearchParts, 'scanRows'>) {
  return defineDomain({
    name: 'search',
    routes: [
      routes(searchRoutes, {
        search: new SearchService({ ...parts, scanRows: config.attributesScanRows }),
        geocoder: new Geocoder(config.geocoderUrl, config.geocoderTimeoutMs),
        geocodesPerMinute: config.geocoderRateLimitPerMinute,
        searchesPerMinute: config.searchRateLimitPerMinute,
      }),
    ],
  });
}
