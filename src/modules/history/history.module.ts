import { type DomainCore, defineDomain, routes } from '../domain/domain.js';
import type { ActorNames } from '../users/actor-names.js';
import { HistoryRepository } from './history.repository.js';
import { historyRoutes } from './history.routes.js';
import { HistoryService } from './history.service.js';
import type { Restorable } from './restorable.js';
import { RestoreService } from './restore.service.js';

/** A room's history, under its actors' names, and the restore of a kept state by each domain's `restorables`. */
export function historyDomain({ db, writePath }: DomainCore, parts: { names: ActorNames; restorables: Restorable[] }) {
  const history = new HistoryRepository(db);
  return defineDomain(
    {
      name: 'history',
      routes: [
        routes(historyRoutes, {
          history: new HistoryService(history, parts.names),
          restore: new RestoreService(history, writePath, parts.restorables, parts.names),
        }),
      ],
    },
    { history },
  );
}
