import type { FastifyBaseLogger } from 'fastify';
import { newId } from '../../ids.js';
import { postOutbound } from '../../infra/outbound.js';
import { signedHeaders } from './webhook-signing.js';
import type { DeliveryRow, WebhookRow, WebhooksRepository } from './webhooks.repository.js';

export interface DispatchSettings {
  /** How long a receiver has to answer one delivery. */
  timeoutMs: number;
  /** The wait before each retry; a delivery that fails once more than there are waits is given up. */
  retryDelaysMs: number[];
  /** OUTBOUND_ALLOW_PRIVATE. */
  allowPrivate: boolean;
}

/** Most deliveries a hook keeps waiting while its receiver fails: past it, the hook is disabled (the rows stay). */
export const MAX_WAITING = 10_000;

/** One attempt's outcome, as the delivery log keeps it. */
interface Attempt {
  ok: boolean;
  status: number | null;
  excerpt: string;
}

/**
 * Sends webhooks' deliveries. A hook's deliveries go out one at a time, oldest change first,
 * by whoever holds the hook's lease in the database: one sender per hook across every
 * instance. A failed delivery waits its retry (`retryDelaysMs`) and holds back the hook's later
 * ones, so that a receiver sees the changes in order; one that fails every retry is given up
 * and its hook disabled. A timer here sends a retry when due; the sweep (`sendDue`) picks up
 * what a stopped instance left.
 */
export class WebhookDispatcher {
  private readonly owner = newId('sender');
  private readonly sending = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(
    private readonly hooks: WebhooksRepository,
    private readonly settings: DispatchSettings,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Sends the hook's due deliveries; while this instance already sends them, it looks again after. */
  send(hookId: string): Promise<void> {
    if (this.closed) return Promise.resolve();
    const running = this.sending.get(hookId);
    if (running) {
      this.again.add(hookId);
      return running;
    }
    const run = (async () => {
      do {
        this.again.delete(hookId);
        await this.drain(hookId);
      } while (this.again.has(hookId) && !this.closed);
    })()
      .catch((error: unknown) => this.log.error({ err: error, hookId }, 'webhook: sending failed'))
      .finally(() => this.sending.delete(hookId));
    this.sending.set(hookId, run);
    return run;
  }

  /** Every hook with a delivery due (the sweep). */
  async sendDue(): Promise<void> {
    await Promise.all((await this.hooks.dueHooks(Date.now())).map((id) => this.send(id)));
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    await Promise.allSettled(this.sending.values());
  }

  /**
   * Holds the lease while due deliveries remain, then lets it go and looks once more: another
   * instance that recorded a delivery meanwhile could not take the lease, and left it to us.
   */
  private async drain(hookId: string): Promise<void> {
    while (!this.closed) {
      while (!this.closed && (await this.claim(hookId))) {
        let sent = false;
        try {
          sent = await this.sendNext(hookId);
        } finally {
          if (!sent) await this.hooks.release(hookId, this.owner);
        }
        if (!sent) break;
      }
      if (!(await this.hasDue(hookId))) return;
      if (!(await this.claim(hookId))) return;
    }
  }

  private claim(hookId: string): Promise<boolean> {
    const now = Date.now();
    // Longer than one attempt can take, so that a live sender never loses it midway.
    return this.hooks.claim(hookId, this.owner, now, now + this.settings.timeoutMs + 30_000);
  }

  private async hasDue(hookId: string): Promise<boolean> {
    const hook = await this.hooks.findById(hookId);
    const next = hook?.enabled ? await this.hooks.nextPending(hookId) : undefined;
    return next !== undefined && next.next_attempt_at <= Date.now();
  }

  /** Sends the hook's next delivery if it is due; true when it was delivered (look for the next one). */
  private async sendNext(hookId: string): Promise<boolean> {
    const hook = await this.hooks.findById(hookId);
    if (!hook?.enabled) return false;
    const delivery = await this.hooks.nextPending(hookId);
    if (!delivery) return false;
    const wait = delivery.next_attempt_at - Date.now();
    if (wait > 0) {
      this.later(hookId, wait);
      return false;
    }
    const at = Date.now();
    const outcome = await this.attempt(hook, delivery, at);
    const attempt = delivery.attempt + 1;
    const logged = { attempt, at, response_status: outcome.status, response_excerpt: outcome.excerpt };
    if (outcome.ok) {
      await this.hooks.updateDelivery(delivery.id, { ...logged, status: 'delivered' });
      return true;
    }
    const delay = this.settings.retryDelaysMs[attempt - 1];
    if (delay === undefined) {
      await this.hooks.updateDelivery(delivery.id, { ...logged, status: 'failed' });
      await this.disable(hook, `Disabled after ${attempt} failed attempts to deliver ${delivery.id}`);
      return false;
    }
    await this.hooks.updateDelivery(delivery.id, { ...logged, next_attempt_at: at + delay });
    // A busy room's changes pile up behind a receiver that is down: a bound on what is kept.
    const waiting = await this.hooks.countPending(hook.id);
    if (waiting > MAX_WAITING) await this.disable(hook, `Disabled with ${waiting} changes waiting`);
    else this.later(hookId, delay);
    return false;
  }

  private async disable(hook: WebhookRow, reason: string): Promise<void> {
    await this.hooks.update(hook.id, { enabled: 0, disabled_reason: reason });
    this.log.warn({ hookId: hook.id, roomId: hook.room_id }, `webhook: ${reason}`);
  }

  private async attempt(hook: WebhookRow, delivery: DeliveryRow, at: number): Promise<Attempt> {
    try {
      const answer = await postOutbound({
        url: hook.url,
        body: delivery.body,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Maproom-Webhooks',
          ...signedHeaders(hook.secret, delivery.id, at, delivery.body),
        },
        timeoutMs: this.settings.timeoutMs,
        allowPrivate: this.settings.allowPrivate,
      });
      return { ok: answer.status >= 200 && answer.status < 300, status: answer.status, excerpt: answer.excerpt };
    } catch (error) {
      return { ok: false, status: null, excerpt: error instanceof Error ? error.message : String(error) };
    }
  }

  private later(hookId: string, ms: number): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void this.send(hookId);
    }, ms);
    timer.unref();
    this.timers.add(timer);
  }
}
