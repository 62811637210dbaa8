import { type DomainCore, defineDomain, routes } from '../domain/domain.js';
import { ogcRoutes } from './ogc.routes.js';
import { OgcService, type OgcServiceParts } from './ogc.service.js';

/** OGC API Features over a room's layers, markers and drawings. */
export function ogcDomain({ config }: DomainCore, parts: Omit<OgcServiceParts, 'scanRows'>) {
  return defineDomain({
    name: 'ogc',
    routes: [routes(ogcRoutes, { ogc: new OgcService({ ...parts, scanRows: config.ogcScanRows }) })],
  });
}
