import { type DomainCore, defineDomain, routes } from '../domain/domain.js';
import { iconsExchange } from './icons.exchange.js';
import { IconsRepository } from './icons.repository.js';
import { iconsRoutes } from './icons.routes.js';
import { IconsService } from './icons.service.js';

/** Marker icons: their routes and their table of an export (the markers domain restores and counts them). */
export function iconsDomain({ db, files, writePath, receiver }: DomainCore) {
  const icons = new IconsRepository(db);
  return defineDomain(
    {
      name: 'icons',
      routes: [routes(iconsRoutes, { icons: new IconsService(icons, files, writePath), uploads: receiver })],
      exchanges: [iconsExchange(icons)],
    },
    { icons },
  );
}
