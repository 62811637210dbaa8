import { type DomainCore, defineDomain, routes } from '../domain/domain.js';
import type { FeatureEdits } from '../layers/feature-edits.service.js';
import { OgcWrites } from './ogc-writes.js';
import { ogcRoutes } from './ogc.routes.js';
import { OgcService, type OgcServiceParts } from './ogc.service.js';

/** OGC API Features over a room's layers, markers and drawings; its layers' features written through `edits` (Part 4). */
export function ogcDomain(
  { config }: DomainCore,
  { edits, ...parts }: Omit<OgcServiceParts, 'scanRows'> & { edits: FeatureEdits },
) {
  return defineDomain({
    name: 'ogc',
    routes: [
      routes(ogcRoutes, {
        ogc: new OgcService({ ...parts, scanRows: config.ogcScanRows }),
        writes: new OgcWrites(edits),
      }),
    ],
  });
}
