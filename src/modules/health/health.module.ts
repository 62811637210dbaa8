import type { Database } from '../../db/database.js';
import { defineDomain, routes } from '../domain/domain.js';
import { healthRoutes, type ReadinessChecks } from './health.routes.js';

export type { ReadinessChecks };

/** Whether the service is alive and ready (the database, Redis, the object store). */
export function healthDomain(database: Database, readiness: ReadinessChecks) {
  return defineDomain({ name: 'health', routes: [routes(healthRoutes, { database, readiness })] });
}
