import type { FastifyBaseLogger } from 'fastify';
import { type DomainCore, defineDomain, HOUR_MS, routes } from '../domain/domain.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';
import { recordDeliveries } from './webhook-outbox.js';
import { WebhooksRepository } from './webhooks.repository.js';
import { webhooksRoutes } from './webhooks.routes.js';
import { WebhooksService } from './webhooks.service.js';

/** How long a delivery stays in the log once it has ended. */
const KEPT_DELIVERIES_MS = 7 * 24 * HOUR_MS;

/**
 * A room's webhooks: every change the write path commits is recorded for the room's hooks in
 * its own transaction, then sent by the dispatcher (docs/decisions.md, "Webhooks").
 */
export function webhooksDomain({ config, db, writePath }: DomainCore, { log }: { log: FastifyBaseLogger }) {
  const hooks = new WebhooksRepository(db);
  const dispatcher = new WebhookDispatcher(
    hooks,
    {
      timeoutMs: config.webhookTimeoutMs,
      retryDelaysMs: config.webhookRetryDelaysMs.split(',').map(Number),
      allowPrivate: config.outboundAllowPrivate,
    },
    log,
  );
  writePath.alsoRecord(async (trx, roomId, events) => {
    const hookIds = await recordDeliveries(hooks, trx, roomId, events);
    return hookIds.length > 0 ? () => hookIds.forEach((id) => void dispatcher.send(id)) : undefined;
  });
  const service = new WebhooksService(hooks, dispatcher, config.outboundAllowPrivate);
  return defineDomain({
    name: 'webhooks',
    routes: [routes(webhooksRoutes, { webhooks: service })],
    sweeps: [
      { name: 'webhook deliveries due', everyMs: 60_000, run: () => dispatcher.sendDue() },
      {
        name: 'ended webhook deliveries',
        everyMs: HOUR_MS,
        run: () => hooks.pruneEnded(Date.now() - KEPT_DELIVERIES_MS),
      },
    ],
    close: () => dispatcher.close(),
  });
}
