import type { Presence } from '../../infra/presence.js';
import type { Broadcast } from '../../infra/redis-broadcast.js';
import { type DomainCore, defineDomain, routes } from '../domain/domain.js';
import type { ActorNames } from '../users/actor-names.js';
import { liveRoutes } from './live.routes.js';
import { LiveService, type LiveServiceParts } from './live.service.js';
import { type PresenceNotice, RoomPresence } from './room-presence.js';

export type { PresenceNotice };

/**
 * The live channel of a room and who is present on it (`presence`, shared by the instances
 * through `notices` with Redis), under the actors' names.
 */
export function liveDomain(
  { access, config }: DomainCore,
  parts: Omit<LiveServiceParts, 'access' | 'presence' | 'heartbeatMs'> & {
    presence: Presence;
    notices?: Broadcast<PresenceNotice>;
    names: ActorNames;
  },
) {
  const { presence: store, notices, names, ...live } = parts;
  const presence = new RoomPresence(store, names, notices);
  const service = new LiveService({ ...live, access, presence, heartbeatMs: config.liveHeartbeatMs });
  return defineDomain(
    {
      name: 'live',
      routes: [routes(liveRoutes, { live: service })],
      close: () => presence.close(),
    },
    { counts: service.counts },
  );
}
