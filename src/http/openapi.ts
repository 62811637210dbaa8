import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

/** The OpenAPI document at /api/openapi.json, generated from route schemas; a browser at /api/docs. */
export async function registerOpenApi(app: FastifyInstance) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Maproom HTTP API',
        version: '0.1.0',
        description:
          'Collaborative map rooms. Errors are always `{error, message, details?}`. Send a user session JWT ' +
          "or a room API token (`mrt_…`) as `Authorization: Bearer <token>`. The OGC API and the vector and raster tiles also take a room token as the password of HTTP Basic (any user name), for GIS clients. Decisions that fill the interface's open parts: docs/decisions.md; the live channel is `GET /api/rooms/{roomId}/live`.",
      },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer' },
          basic: {
            type: 'http',
            scheme: 'basic',
            description: 'A room API token as the password, any user name; only on the routes that list this scheme',
          },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  await app.register(swaggerUi, { routePrefix: '/api/docs' });
  app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
