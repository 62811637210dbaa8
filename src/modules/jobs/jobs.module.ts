import { type DomainCore, defineDomain, routes } from '../domain/domain.js';
import { jobsRoutes } from './jobs.routes.js';

/** A job's state, for whoever may read its room. */
export function jobsDomain({ jobs }: DomainCore) {
  return defineDomain({ name: 'jobs', routes: [routes(jobsRoutes, { jobs })] });
}
