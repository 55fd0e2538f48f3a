// Webhook subscriptions, their queued deliveries (the exact JSON sent) and one row per delivery attempt.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('url', 'text', (c) => c.notNull())
    /** JSON array of event names and wildcards (`nfe.*`, `*`). */
    .addColumn('events_json', 'text', (c) => c.notNull())
    .addColumn('ativo', 'integer', (c) => c.notNull().check(sql`ativo in (0, 1)`))
    .addColumn('descricao', 'text')
    .addColumn('permitir_rede_local', 'integer', (c) =>
      c
        .notNull()
        .defaultTo(0)
        .check(sql`permitir_rede_local in (0, 1)`),
    )
    /** The signing secret, sealed with the data dir's master key; shown to the caller only once. */
    .addColumn('secret_enc', 'text', (c) => c.notNull())
    .addColumn('secret_rotated_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhooks_company')
    .on('webhooks')
    .columns(['company_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // Deleting a webhook drops its history and stops whatever was still queued for it.
    .addColumn('webhook_id', 'text', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    /** The request body exactly as signed and sent, never re-serialized. */
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('pending', 'in_flight', 'delivered', 'failed')`),
    )
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_try_at', 'text')
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('last_status_code', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('last_duration_ms', 'integer')
    .addColumn('redelivery_of', 'text')
    /** Set by publishers that may repeat themselves (document id + state), so an event is queued once. */
    .addColumn('dedupe_key', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('delivered_at', 'text')
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .columns(['status', 'next_try_at'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_history')
    .on('webhook_deliveries')
    .columns(['webhook_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_dedupe')
    .on('webhook_deliveries')
    .columns(['webhook_id', 'dedupe_key'])
    .unique()
    .where(sql.ref('dedupe_key'), 'is not', null)
    .execute();

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('delivery_id', 'text', (c) =>
      c.notNull().references('webhook_deliveries.id').onDelete('cascade'),
    )
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    /** Null while the request is out; a restart finds such rows and records them as interrupted. */
    .addColumn('finished_at', 'text')
    .addColumn('status_code', 'integer')
    .addColumn('error', 'text')
    .addColumn('duration_ms', 'integer')
    .addColumn('response_excerpt', 'text')
    .execute();
  await db.schema
    .createIndex('webhook_attempts_delivery')
    .on('webhook_attempts')
    .columns(['delivery_id', 'attempt'])
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('down migrations are not supported');
}
