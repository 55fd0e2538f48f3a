// Links an in-flight Idempotency-Key to the document or batch its request creates or queues, inside the very
// transaction that does it: after a crash the key then names what exists, or nothing was made (issue 12 item 1).
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Db } from '../db/client.ts';

export type LinkKind = 'document' | 'batch';

export interface KeyInFlight {
  company_id: string;
  key: string;
  route: string;
  /** The run that owns the key; a stale context (a timer started during the request) cannot relink it. */
  run: string;
  /** What this route links: a batch route links its batch, not the notes issued inside it. */
  kind: LinkKind;
}

/** The key of the request being handled; set by the idempotency middleware around the route's handler. */
export const keyInFlight = new AsyncLocalStorage<KeyInFlight>();

interface LinkColumns {
  company_id: string;
  key: string;
  route: string;
  state: 'pending' | 'done';
  owner_run: string | null;
  resource: string | null;
}

/**
 * Called inside the transaction that creates or queues `id`: the first one of the request's kind wins (a
 * contingency re-issue later in the same request keeps the original link; the answer follows the chain).
 */
export async function linkIdempotencyKey(trx: Db, kind: LinkKind, id: string): Promise<void> {
  const key = keyInFlight.getStore();
  if (key === undefined || key.kind !== kind) return;
  await trx
    .withTables<{ idempotency_keys: LinkColumns }>()
    .updateTable('idempotency_keys')
    .set({ resource: `${kind}:${id}` })
    .where('company_id', '=', key.company_id)
    .where('key', '=', key.key)
    .where('route', '=', key.route)
    .where('state', '=', 'pending')
    .where('owner_run', '=', key.run)
    .where('resource', 'is', null)
    .execute();
}
