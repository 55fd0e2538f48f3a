// Persistence of webhooks, their deliveries and delivery attempts.
import { newId } from '../ids.ts';
import type { Db } from '../db/client.ts';
import { pageOf, type RowWindow } from '../db/paginate.ts';
import type { WebhookAttemptsTable, WebhookDeliveriesTable, WebhooksTable } from '../db/schema.ts';
import type { DeliveryStatus } from '../../src-shared/contracts/webhooks.ts';

export type WebhookRow = WebhooksTable;
export type DeliveryRow = WebhookDeliveriesTable;
export type AttemptRow = Omit<WebhookAttemptsTable, 'id'> & { id: number };

/** Ids of webhooks, deliveries and events: UUIDs like every other row's (src-main/ids.ts). */
export function webhookId(): string {
  return newId();
}

export const webhooksRepository = {
  insert: (db: Db, row: WebhookRow) => db.insertInto('webhooks').values(row).execute(),

  findById: (db: Db, id: string) =>
    db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst(),

  update: (db: Db, id: string, changes: Partial<Omit<WebhookRow, 'id' | 'company_id'>>) =>
    db.updateTable('webhooks').set(changes).where('id', '=', id).execute(),

  delete: (db: Db, id: string) => db.deleteFrom('webhooks').where('id', '=', id).execute(),

  activeOfCompany: (db: Db, companyId: string) =>
    db
      .selectFrom('webhooks')
      .selectAll()
      .where('company_id', '=', companyId)
      .where('ativo', '=', 1)
      .orderBy('created_at')
      .execute(),

  list: (db: Db, companyId: string, window: RowWindow) =>
    pageOf(
      db.selectFrom('webhooks').where('company_id', '=', companyId),
      (q) => q.selectAll().orderBy('created_at').orderBy('id'),
      window.limit,
      window.offset,
    ),
};

export const deliveriesRepository = {
  /** Inserts and tells whether the row is new; a repeated dedupe key is skipped. */
  insert: async (db: Db, row: DeliveryRow): Promise<boolean> => {
    const result = await db
      .insertInto('webhook_deliveries')
      .values(row)
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
  },

  findById: (db: Db, id: string) =>
    db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst(),

  update: (db: Db, id: string, changes: Partial<Omit<DeliveryRow, 'id'>>) =>
    db.updateTable('webhook_deliveries').set(changes).where('id', '=', id).execute(),

  list: (
    db: Db,
    webhookId: string,
    filters: { status?: DeliveryStatus | undefined; event?: string | undefined },
    window: RowWindow,
  ) => {
    let query = db.selectFrom('webhook_deliveries').where('webhook_id', '=', webhookId);
    if (filters.status !== undefined) query = query.where('status', '=', filters.status);
    if (filters.event !== undefined) query = query.where('event', '=', filters.event);
    return pageOf(
      query,
      (q) => q.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc'),
      window.limit,
      window.offset,
    );
  },

  /**
   * Due rows, oldest first, of webhooks that are active (a ping is sent even to a paused one) and have
   * nothing in flight: one slow receiver holds at most one of the worker's slots.
   */
  due: (db: Db, now: string, limit: number) =>
    db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
      .select(['d.id', 'd.webhook_id'])
      .where('d.status', '=', 'pending')
      .where('d.next_try_at', '<=', now)
      .where((eb) => eb.or([eb('w.ativo', '=', 1), eb('d.event', '=', 'ping')]))
      .where('d.webhook_id', 'not in', (eb) =>
        eb.selectFrom('webhook_deliveries').select('webhook_id').where('status', '=', 'in_flight'),
      )
      .orderBy('d.next_try_at')
      .orderBy('d.created_at')
      .limit(limit)
      .execute(),

  attempts: (db: Db, deliveryId: string): Promise<AttemptRow[]> =>
    db
      .selectFrom('webhook_attempts')
      .selectAll()
      .where('delivery_id', '=', deliveryId)
      .orderBy('attempt')
      .execute(),
};
