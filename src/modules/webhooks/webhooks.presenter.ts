import type { DeliveryRow, WebhookRow } from './webhooks.repository.js';

/** A webhook as listed: never its secret, which only its creation answer shows. */
export const presentWebhook = (hook: WebhookRow) => ({
  id: hook.id,
  url: hook.url,
  events: hook.events === null ? null : hook.events.split(','),
  enabled: Boolean(hook.enabled),
  disabledReason: hook.disabled_reason,
  createdAt: Number(hook.created_at),
});

export const presentDelivery = (delivery: DeliveryRow) => ({
  id: delivery.id,
  eventType: delivery.event_type,
  attempt: delivery.attempt,
  status: delivery.status,
  at: delivery.at === null ? null : Number(delivery.at),
  responseStatus: delivery.response_status,
  responseExcerpt: delivery.response_excerpt,
});
