import type { Database } from '../../db/database.js';
import type { Metrics } from '../../infra/metrics.js';
import { defineDomain, routes } from '../domain/domain.js';
import { healthRoutes, type ReadinessChecks } from './health.routes.js';
import { metricsRoutes } from './metrics.routes.js';

export type { ReadinessChecks };

/** Whether the service is alive and ready (the database, Redis, the object store), and its metrics. */
export function healthDomain(
  database: Database,
  readiness: ReadinessChecks,
  metrics: { metrics: Metrics | null; token: string | undefined },
) {
  return defineDomain({
    name: 'health',
    routes: [routes(healthRoutes, { database, readiness }), routes(metricsRoutes, metrics)],
  });
}
