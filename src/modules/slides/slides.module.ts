import { contentOf } from '../domain/room-content.js';
import { type DomainCore, defineDomain, routes } from '../domain/domain.js';
import { slidesExchange } from './slides.exchange.js';
import { SlidesRepository } from './slides.repository.js';
import { slideRestorable } from './slides.restore.js';
import { slidesRoutes } from './slides.routes.js';
import { SlidesService, type SlidesServiceParts } from './slides.service.js';

/** The presentation's slides, which show the room's markers, drawings and layers. */
export function slidesDomain(
  { db, writePath }: DomainCore,
  shown: Pick<SlidesServiceParts, 'markers' | 'drawings' | 'layers'>,
) {
  const slides = new SlidesRepository(db);
  return defineDomain({
    name: 'slides',
    routes: [routes(slidesRoutes, { slides: new SlidesService({ slides, writePath, ...shown }) })],
    exchanges: [slidesExchange(slides)],
    restorables: [slideRestorable({ slides, ...shown })],
    content: [contentOf('slides', slides)],
  });
}
