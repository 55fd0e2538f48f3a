// Persistence of webhooks, their deliveries and delivery attempts.
import { sql } from 'kysely';
import { isPostgres } from '../db/dialect.ts';
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
      .orderBy('id')
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
   * For each active webhook with nothing in flight, its one due delivery that is next in line (a ping is
   * not: pings have their own lane, see duePings), with the webhook's URL so the worker can group
   * webhooks by receiver. Bounded by `limit` webhooks, those waiting longest first.
   */
  dueHeads: (db: Db, now: string, limit: number) => {
    const due = db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
      .where('d.status', '=', 'pending')
      .where('d.next_try_at', '<=', now)
      .where('d.event', '!=', 'ping')
      .where('w.ativo', '=', 1)
      .where('d.webhook_id', 'not in', (eb) =>
        eb
          .selectFrom('webhook_deliveries')
          .select('webhook_id')
          .where('status', '=', 'in_flight')
          .where('event', '!=', 'ping'),
      );
    if (isPostgres(db)) {
      // PostgreSQL (server mode) has no bare columns beside min(): each webhook's first row by DISTINCT ON.
      const heads = due
        .distinctOn('d.webhook_id')
        .select(['d.id', 'd.webhook_id', 'w.url', sql<string>`d.next_try_at || d.created_at`.as('rank')])
        .orderBy('d.webhook_id')
        .orderBy('d.next_try_at')
        .orderBy('d.created_at');
      return db.selectFrom(heads.as('heads')).selectAll().orderBy('rank').limit(limit).execute();
    }
    return (
      due
        // SQLite takes bare columns from the row holding the min() (documented for a single min/max).
        // next_try_at and created_at are fixed-width ISO texts, so their concatenation orders like the pair.
        .select(['d.id', 'd.webhook_id', 'w.url', sql<string>`min(d.next_try_at || d.created_at)`.as('rank')])
        .groupBy('d.webhook_id')
        .orderBy('rank')
        .limit(limit)
        .execute()
    );
  },

  /** Due pings, oldest first, paused webhooks included: a ping answers "can you reach it?" right now. */
  duePings: (db: Db, now: string, limit: number) =>
    db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
      .select(['d.id', 'd.webhook_id', 'w.url'])
      .where('d.status', '=', 'pending')
      .where('d.next_try_at', '<=', now)
      .where('d.event', '=', 'ping')
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
