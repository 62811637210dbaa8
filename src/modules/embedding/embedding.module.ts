import { type DomainCore, defineDomain, routes } from '../domain/domain.js';
import { EmbeddingRepository } from './embedding.repository.js';
import { embeddingRoutes } from './embedding.routes.js';
import { type EmbeddingParts, EmbeddingService } from './embedding.service.js';

/**
 * Embedding a room in other sites: its embed keys, which sites may frame its `/e/` pages, oEmbed.
 * Provides what the authenticator records of a key's use and what the web application's pages
 * ask (`pages`: the frame ancestors of `/e/`, the link-preview tags of `/r/` and `/p/`).
 */
export function embeddingDomain({ db, access, config }: DomainCore, parts: EmbeddingParts) {
  const service = new EmbeddingService(new EmbeddingRepository(db), parts, access);
  return defineDomain(
    { name: 'embedding', routes: [routes(embeddingRoutes, { embedding: service, config })] },
    {
      keyUsed: (keyId: string, at: number) => service.recordUse(keyId, at),
      pages: {
        frameAncestors: (roomId: string) => service.frameAncestors(roomId),
        preview: (page: 'room' | 'deck', roomId: string, base: string) => service.preview(page, roomId, base),
      },
    },
  );
}
