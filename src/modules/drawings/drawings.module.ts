import { contentOf } from '../domain/room-content.js';
import { type DomainCore, defineDomain, routes } from '../domain/domain.js';
import { drawingsExchange } from './drawings.exchange.js';
import { DrawingsRepository } from './drawings.repository.js';
import { drawingRestorable } from './drawings.restore.js';
import { drawingsRoutes } from './drawings.routes.js';
import { DrawingsService } from './drawings.service.js';

/** Drawn shapes: their routes, their table of an export, their restore and their room content. */
export function drawingsDomain({ db, writePath }: DomainCore) {
  const drawings = new DrawingsRepository(db);
  return defineDomain(
    {
      name: 'drawings',
      routes: [routes(drawingsRoutes, { drawings: new DrawingsService(drawings, writePath) })],
      exchanges: [drawingsExchange(db, drawings)],
      restorables: [drawingRestorable(drawings)],
      content: [contentOf('drawings', drawings)],
    },
    { drawings },
  );
}
