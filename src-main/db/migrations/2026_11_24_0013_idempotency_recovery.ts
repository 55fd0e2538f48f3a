// Idempotency keys that survive a crash (issue 12 item 1): which run of the service owns a key still being
// processed, and the document or batch the request created or sent, linked in the transaction that did it.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  /** The run (boot id) that is processing a `pending` key; another run's pending key died with that run. */
  await db.schema.alterTable('idempotency_keys').addColumn('owner_run', 'text').execute();
  /** `document:<id>` or `batch:<id>`: what the request created or queued, to answer from after a crash. */
  await db.schema.alterTable('idempotency_keys').addColumn('resource', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('idempotency_keys').dropColumn('resource').execute();
  await db.schema.alterTable('idempotency_keys').dropColumn('owner_run').execute();
}
