import type { Db } from '../../db/database.js';
import { newId } from '../../ids.js';
import type { RoomEvent } from '../../infra/live-hub.js';
import type { DeliveryRow, WebhooksRepository } from './webhooks.repository.js';

/** The body of a delivery: the change as the live channel sends it, with its room. */
export const deliveryBody = (event: RoomEvent): string => {
  const { roomId, type, objectType, objectId, data, version, at, actor } = event;
  return JSON.stringify({ type, objectType, objectId, data, version, at, actor, roomId });
};

/** A delivery of `body` to a hook, due now. */
export function newDelivery(hookId: string, seq: number, eventType: string, body: string, now: number): DeliveryRow {
  return {
    id: newId('msg'),
    hook_id: hookId,
    seq,
    event_type: eventType,
    body,
    status: 'pending',
    attempt: 0,
    next_attempt_at: now,
    at: null,
    response_status: null,
    response_excerpt: null,
    created_at: now,
  };
}

/**
 * Records, inside the transaction of a room's changes, one delivery per change for each of the
 * room's enabled hooks that asks for its type: a change that is acknowledged is delivered,
 * whatever happens to the process after. Answers the hooks that got some, to send once committed.
 */
export async function recordDeliveries(
  hooks: WebhooksRepository,
  trx: Db,
  roomId: string,
  changes: Promise<RoomEvent[]>,
): Promise<string[]> {
  // Read first, while the group's version is being advanced: both go in one round trip.
  const enabled = await hooks.enabledOf(trx, roomId);
  const events = await changes;
  if (enabled.length === 0 || events.length === 0) return [];
  const now = Date.now();
  const rows: DeliveryRow[] = [];
  for (const hook of enabled) {
    const wanted = hook.events?.split(',');
    for (const event of events) {
      if (wanted && !wanted.includes(event.type)) continue;
      rows.push(newDelivery(hook.id, event.version, event.type, deliveryBody(event), now));
    }
  }
  await hooks.insertDeliveries(rows, trx);
  return [...new Set(rows.map((row) => row.hook_id))];
}
