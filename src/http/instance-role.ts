import type { FastifyInstance, FastifyRequest } from 'fastify';
import { notFound } from '../errors.js';

/** What an instance of INSTANCE_ROLE=jobs serves: the probes and its metrics, nothing else. */
const PROBES = new Set(['/api/health', '/api/ready', '/metrics']);

/** Whether the request asks for a probe (liveness, readiness) or the metrics. */
export const isProbe = (request: FastifyRequest) => PROBES.has(request.url.split('?')[0]!.replace(/\/+$/, ''));

/**
 * INSTANCE_ROLE=jobs: every request but the probes (and /metrics) is 404 (not_found), before any other hook.
 * The routes stay registered (the jobs run on the services behind them), they are not served.
 */
export function serveOnlyProbes(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    if (!isProbe(request)) throw notFound('Route');
  });
}
