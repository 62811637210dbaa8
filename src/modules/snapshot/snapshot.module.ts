import { defineDomain, routes } from '../domain/domain.js';
import { snapshotRoutes } from './snapshot.routes.js';
import { type SnapshotParts, SnapshotService } from './snapshot.service.js';

/** A room's content as it was at a version of its history. */
export function snapshotDomain(parts: SnapshotParts) {
  return defineDomain({ name: 'snapshot', routes: [routes(snapshotRoutes, { snapshot: new SnapshotService(parts) })] });
}
