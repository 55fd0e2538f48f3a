// Ties the note a register sale creates to its session inside the transaction that creates it, so a crash
// between issuing the note and answering the cashier cannot leave a paid sale out of the shift (the sale path
// waits seconds for the authority before it answers). Same pattern as the Idempotency-Key link.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Db } from '../db/client.ts';

export interface SaleRegister {
  companyId: string;
  sessionId: string;
}

const current = new AsyncLocalStorage<SaleRegister>();

/** Runs a sale with its register session in context (no session: runs it as is). */
export function withSaleRegister<T>(register: SaleRegister | null, sale: () => Promise<T>): Promise<T> {
  return register === null ? sale() : current.run(register, sale);
}

/**
 * Called inside the transaction that inserts a note: tags it with the session of the sale being made, if any.
 * A note of another company (never expected) is left alone.
 */
export async function linkSaleRegister(trx: Db, documentId: string, companyId: string): Promise<void> {
  const register = current.getStore();
  if (register === undefined || register.companyId !== companyId) return;
  await trx
    .updateTable('documents')
    .set({ register_session_id: register.sessionId })
    .where('id', '=', documentId)
    .where('register_session_id', 'is', null)
    .execute();
}
