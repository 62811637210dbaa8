import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { bearerOf } from '../../auth/authenticator.js';
import { notFound, unauthorized } from '../../errors.js';
import { errors } from '../../http/schemas.js';
import type { Metrics } from '../../infra/metrics.js';

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Whether the Authorization header is `Bearer <token>`, compared in constant time. */
function bearsToken(header: string | undefined, token: string): boolean {
  const given = bearerOf(header ?? '');
  return given !== undefined && timingSafeEqual(digest(given), digest(token));
}

/**
 * `GET /metrics`: the instance's metrics for Prometheus, to whoever sends METRICS_TOKEN as a
 * bearer token; 404 when the setting is unset (no metrics are kept then).
 */
export const metricsRoutes: FastifyPluginAsyncTypebox<{ metrics: Metrics | null; token: string | undefined }> = async (
  app,
  { metrics, token },
) => {
  app.get('/metrics', {
    schema: {
      tags: ['service'],
      summary: "The instance's metrics in the Prometheus text format (with METRICS_TOKEN)",
      description:
        'Answers 200 with the Prometheus text format (`text/plain; version=0.0.4`) to ' +
        '`Authorization: Bearer <METRICS_TOKEN>`; 401 without it or with another token; 404 when the ' +
        'METRICS_TOKEN setting is unset. Series: `http_request_duration_seconds` (method, route as ' +
        'registered, status_code), `maproom_live_sockets`, `maproom_live_events_sent_total`, ' +
        '`maproom_presence_people`, `maproom_presence_rooms`, `maproom_jobs` (kind, state), ' +
        '`maproom_job_oldest_seconds`, `maproom_job_duration_seconds` (kind, outcome), ' +
        '`maproom_db_query_duration_seconds` (operation), `maproom_object_store_duration_seconds` ' +
        "(operation), `maproom_gdal_processes`, `maproom_rate_limited_total` and Node's process metrics.",
      security: [{ bearer: [] }],
      response: errors(401, 404),
    },
    handler: async (request, reply) => {
      if (!metrics || !token) throw notFound('Route');
      if (!bearsToken(request.headers.authorization, token))
        throw unauthorized('GET /metrics needs "Authorization: Bearer <METRICS_TOKEN>"');
      const { text, contentType } = await metrics.scrape();
      return reply.type(contentType).header('Cache-Control', 'no-store').send(text);
    },
  });
};
