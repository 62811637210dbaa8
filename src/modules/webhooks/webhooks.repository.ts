import type { Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { WebhookDeliveriesTable, WebhooksTable } from '../../db/tables.js';
import { TEST_EVENT } from './webhooks.schemas.js';

export type WebhookRow = WebhooksTable;
export type DeliveryRow = WebhookDeliveriesTable;

/** Deliveries a hook's list shows, newest first. */
export const LISTED_DELIVERIES = 100;

export class WebhooksRepository {
  constructor(private readonly db: Db) {}

  async insert(hook: WebhookRow): Promise<void> {
    await this.db.insertInto('webhooks').values(hook).execute();
  }

  listForRoom(roomId: string) {
    return this.db.selectFrom('webhooks').selectAll().where('room_id', '=', roomId).orderBy('created_at').execute();
  }

  find(roomId: string, id: string) {
    return this.db
      .selectFrom('webhooks')
      .selectAll()
      .where('room_id', '=', roomId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  findById(id: string) {
    return this.db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async update(id: string, changes: Updateable<WebhookRow>): Promise<void> {
    await this.db.updateTable('webhooks').set(changes).where('id', '=', id).execute();
  }

  async delete(roomId: string, id: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('webhooks')
      .where('room_id', '=', roomId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** The room's enabled hooks, read inside a write's transaction (the outbox). */
  enabledOf(trx: Db, roomId: string) {
    return trx
      .selectFrom('webhooks')
      .select(['id', 'events'])
      .where('room_id', '=', roomId)
      .where('enabled', '=', 1)
      .execute();
  }

  /** In a write's transaction (`trx`, the outbox), or alone. */
  async insertDeliveries(rows: DeliveryRow[], trx: Db = this.db): Promise<void> {
    if (rows.length > 0) await trx.insertInto('webhook_deliveries').values(rows).execute();
  }

  /**
   * Takes the hook's lease until `until` unless another holder's is still running: whoever
   * holds it is the only one sending the hook's deliveries. False when another holds it.
   */
  async claim(hookId: string, owner: string, now: number, until: number): Promise<boolean> {
    const result = await this.db
      .updateTable('webhooks')
      .set({ lease_owner: owner, lease_until: until })
      .where('id', '=', hookId)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now), eb('lease_owner', '=', owner)]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async release(hookId: string, owner: string): Promise<void> {
    await this.db
      .updateTable('webhooks')
      .set({ lease_owner: null, lease_until: null })
      .where('id', '=', hookId)
      .where('lease_owner', '=', owner)
      .execute();
  }

  /** The hook's oldest delivery not yet sent: deliveries go out in the order of their changes. */
  nextPending(hookId: string) {
    return this.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('hook_id', '=', hookId)
      .where('status', '=', 'pending')
      .orderBy('seq')
      .orderBy('created_at')
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
  }

  /** The hook's test deliveries made since `since`. */
  async countTestsSince(hookId: string, since: number): Promise<number> {
    const row = await this.db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('hook_id', '=', hookId)
      .where('event_type', '=', TEST_EVENT)
      .where('created_at', '>', since)
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  async countPending(hookId: string): Promise<number> {
    const row = await this.db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('hook_id', '=', hookId)
      .where('status', '=', 'pending')
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  async updateDelivery(id: string, changes: Updateable<DeliveryRow>): Promise<void> {
    await this.db.updateTable('webhook_deliveries').set(changes).where('id', '=', id).execute();
  }

  listDeliveries(hookId: string) {
    return this.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('hook_id', '=', hookId)
      .orderBy('seq', 'desc')
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(LISTED_DELIVERIES)
      .execute();
  }

  /** Enabled hooks with a delivery due by `now` (a retry's time has come, or a sender stopped). */
  async dueHooks(now: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('webhook_deliveries')
      .innerJoin('webhooks', 'webhooks.id', 'webhook_deliveries.hook_id')
      .select('webhooks.id')
      .distinct()
      .where('webhooks.enabled', '=', 1)
      .where('webhook_deliveries.status', '=', 'pending')
      .where('webhook_deliveries.next_attempt_at', '<=', now)
      .execute();
    return rows.map((row) => row.id);
  }

  /** Removes ended deliveries made before `before`. */
  async pruneEnded(before: number): Promise<void> {
    await this.db
      .deleteFrom('webhook_deliveries')
      .where('status', '!=', 'pending')
      .where('created_at', '<', before)
      .execute();
  }
}
