import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { notFound } from '../errors.js';
import { OFFLINE_BASEMAP_FILE } from './web-app.js';

/** A day: the file changes only with the world-atlas package, and the ETag answers re-checks cheaply. */
const MAX_AGE_SECONDS = 86_400;

/**
 * The offline base map: Natural Earth's countries and land at 1:50m as TopoJSON from the
 * world-atlas package, read once and answered from memory with an ETag; the browser draws it.
 */
export async function registerOfflineBasemap(app: FastifyInstance) {
  let file: { body: Buffer; etag: string } | null = null;
  const load = () => {
    if (!file) {
      const body = readFileSync(createRequire(import.meta.url).resolve(`world-atlas/${OFFLINE_BASEMAP_FILE}`));
      file = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
    }
    return file;
  };
  app.get(
    '/basemap/:file',
    { schema: { hide: true, params: Type.Object({ file: Type.String({ maxLength: 100 }) }) } },
    async (request, reply) => {
      const { file: name } = request.params as { file: string };
      if (name !== OFFLINE_BASEMAP_FILE) throw notFound('Base map file');
      const { body, etag } = load();
      reply
        .header('Cache-Control', `public, max-age=${MAX_AGE_SECONDS}`)
        .header('ETag', etag)
        .header('X-Content-Type-Options', 'nosniff');
      if (request.headers['if-none-match'] === etag) return reply.code(304).send();
      return reply.header('Content-Type', 'application/json').send(body);
    },
  );
}
