import type { Static } from 'typebox';
import type { RoomRow } from '../../db/tables.js';
import { notFound, tooManyRequests, tooManyWebhooks, webhookDisabled, webhookUrlRefused } from '../../errors.js';
import { newId } from '../../ids.js';
import { refusalOf } from '../../infra/outbound.js';
import type { WebhookDispatcher } from './webhook-dispatcher.js';
import { newDelivery } from './webhook-outbox.js';
import { newSecret } from './webhook-signing.js';
import { presentDelivery, presentWebhook } from './webhooks.presenter.js';
import type { WebhooksRepository } from './webhooks.repository.js';
import { type NewWebhook, TEST_EVENT, type WebhookChanges } from './webhooks.schemas.js';

/** Most webhooks of one room: each change is written once per hook, in the change's transaction. */
export const MAX_WEBHOOKS_PER_ROOM = 20;
/** Test deliveries one hook sends a minute at most (429 past it). */
export const TESTS_PER_MINUTE = 10;
/** A unit: the window of TESTS_PER_MINUTE. */
const MINUTE_MS = 60_000;

export class WebhooksService {
  constructor(
    private readonly hooks: WebhooksRepository,
    private readonly dispatcher: WebhookDispatcher,
    private readonly allowPrivate: boolean,
  ) {}

  async create(room: RoomRow, ownerId: string, input: Static<typeof NewWebhook>) {
    this.checkUrl(input.url);
    if ((await this.hooks.listForRoom(room.id)).length >= MAX_WEBHOOKS_PER_ROOM)
      throw tooManyWebhooks(MAX_WEBHOOKS_PER_ROOM);
    const hook = {
      id: newId('hook'),
      room_id: room.id,
      url: input.url,
      events: input.events ? input.events.join(',') : null,
      secret: input.secret ?? newSecret(),
      enabled: 1,
      disabled_reason: null,
      created_by: ownerId,
      created_at: Date.now(),
      lease_owner: null,
      lease_until: null,
    };
    await this.hooks.insert(hook);
    return { ...presentWebhook(hook), secret: hook.secret };
  }

  async list(room: RoomRow) {
    return { webhooks: (await this.hooks.listForRoom(room.id)).map(presentWebhook) };
  }

  /** Enabling a disabled hook sends what waited (in order); its given-up deliveries stay failed. */
  async update(room: RoomRow, hookId: string, changes: Static<typeof WebhookChanges>) {
    const hook = await this.find(room, hookId);
    if (changes.url !== undefined) this.checkUrl(changes.url);
    await this.hooks.update(hook.id, {
      ...(changes.url !== undefined && { url: changes.url }),
      ...(changes.events !== undefined && { events: changes.events === null ? null : changes.events.join(',') }),
      ...(changes.enabled !== undefined && { enabled: changes.enabled ? 1 : 0, disabled_reason: null }),
    });
    if (changes.enabled) void this.dispatcher.send(hook.id);
    return presentWebhook((await this.hooks.findById(hook.id))!);
  }

  async remove(room: RoomRow, hookId: string): Promise<void> {
    if (!(await this.hooks.delete(room.id, hookId))) throw notFound('Webhook');
  }

  /** Queues a `webhook.test` delivery after the room's changes so far, and sends it. */
  async test(room: RoomRow, hookId: string) {
    const hook = await this.find(room, hookId);
    if (!hook.enabled) throw webhookDisabled();
    const now = Date.now();
    // Each test is a request to another site: a few a minute is what a person needs.
    if ((await this.hooks.countTestsSince(hook.id, now - MINUTE_MS)) >= TESTS_PER_MINUTE) throw tooManyRequests(60);
    const body = JSON.stringify({
      type: TEST_EVENT,
      objectType: 'webhook',
      objectId: hook.id,
      data: null,
      version: room.version,
      at: now,
      roomId: room.id,
    });
    const delivery = newDelivery(hook.id, room.version, TEST_EVENT, body, now);
    await this.hooks.insertDeliveries([delivery]);
    void this.dispatcher.send(hook.id);
    return { deliveryId: delivery.id };
  }

  async deliveries(room: RoomRow, hookId: string) {
    const hook = await this.find(room, hookId);
    return { deliveries: (await this.hooks.listDeliveries(hook.id)).map(presentDelivery) };
  }

  private async find(room: RoomRow, hookId: string) {
    const hook = await this.hooks.find(room.id, hookId);
    if (!hook) throw notFound('Webhook');
    return hook;
  }

  private checkUrl(url: string): void {
    const parsed = URL.canParse(url) ? new URL(url) : undefined;
    const refusal = parsed ? refusalOf(parsed, this.allowPrivate) : 'it is not an address';
    if (refusal) throw webhookUrlRefused(refusal);
  }
}
