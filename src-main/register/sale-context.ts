// Ties the note a register sale creates to its session and its operator inside the transaction that creates it,
// so a crash between issuing the note and answering the cashier cannot leave a paid sale out of the shift or
// without its operator (the sale path waits seconds for the authority before it answers). Same pattern as the
// Idempotency-Key link.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Db } from '../db/client.ts';
import { ApiError } from '../api/errors.ts';

export interface SaleRegister {
  companyId: string;
  /** The open register session of an operator's NFC-e; null for an NF-e or a sale without a register. */
  sessionId: string | null;
  /** The operator (X-Operator-Token) making the note; null for other software's notes. */
  operatorId: string | null;
}

const current = new AsyncLocalStorage<SaleRegister>();

/** Runs a sale with its register session and operator in context (neither: runs it as is). */
export function withSaleRegister<T>(register: SaleRegister | null, sale: () => Promise<T>): Promise<T> {
  return register === null || (register.sessionId === null && register.operatorId === null)
    ? sale()
    : current.run(register, sale);
}

export const registerClosed = (caixa: string) =>
  new ApiError(409, 'caixa_fechado', `O caixa ${caixa} está fechado: abra o caixa antes de vender.`, [
    { field: 'caixa', error: `register ${caixa} has no open session: POST /v1/register-sessions opens it` },
  ]);

/**
 * Called inside the transaction that inserts a note: tags it with the operator and the session of the sale
 * being made, if any.
 * A sale whose register was closed since the route looked (the closing fixed the report in between) is
 * refused here, before anything is numbered or sent; a re-issue of a sale already under way (`firstAttempt`
 * false: the customer has paid) is tied to its session whatever its state. A note of another company (never
 * expected) is left alone.
 */
export async function linkSaleRegister(
  trx: Db,
  documentId: string,
  companyId: string,
  firstAttempt: boolean,
): Promise<void> {
  const register = current.getStore();
  if (register === undefined || register.companyId !== companyId) return;
  if (register.operatorId !== null) {
    await trx
      .updateTable('documents')
      .set({ operator_id: register.operatorId })
      .where('id', '=', documentId)
      .where('operator_id', 'is', null)
      .execute();
  }
  if (register.sessionId === null) return;
  if (firstAttempt) {
    const session = await trx
      .selectFrom('register_sessions')
      .select(['status', 'caixa'])
      .where('id', '=', register.sessionId)
      .executeTakeFirst();
    if (session?.status !== 'aberta') throw registerClosed(session?.caixa ?? '');
  }
  await trx
    .updateTable('documents')
    .set({ register_session_id: register.sessionId })
    .where('id', '=', documentId)
    .where('register_session_id', 'is', null)
    .execute();
}
