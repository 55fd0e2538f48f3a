// Ties the note a register sale creates to its session and its operator inside the transaction that creates it,
// so a crash between issuing the note and answering the cashier cannot leave a paid sale out of the shift or
// without its operator (the sale path waits seconds for the authority before it answers). Same pattern as the
// Idempotency-Key link.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Db } from '../db/client.ts';
import type { DocumentRow } from '../documents/repository.ts';
import { DomainError } from '../errors.ts';

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
  new DomainError('caixa_fechado', `O caixa ${caixa} está fechado: abra o caixa antes de vender.`, [
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
  row: Pick<DocumentRow, 'id' | 'operator_id' | 'register_session_id'>,
  companyId: string,
  firstAttempt: boolean,
): Promise<void> {
  const register = current.getStore();
  if (register === undefined || register.companyId !== companyId) return;
  // The row given is the one the sale answers with: it says the same as the database.
  if (register.operatorId !== null && (row.operator_id ?? null) === null) {
    await trx
      .updateTable('documents')
      .set({ operator_id: register.operatorId })
      .where('id', '=', row.id)
      .execute();
    row.operator_id = register.operatorId;
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
  if ((row.register_session_id ?? null) !== null) return;
  await trx
    .updateTable('documents')
    .set({ register_session_id: register.sessionId })
    .where('id', '=', row.id)
    .execute();
  row.register_session_id = register.sessionId;
}

/** Who sends a draft (POST /v1/nfce/:id/send with X-Operator-Token): the operator and its register. */
export interface SendRegister {
  companyId: string;
  caixa: string;
}

const sender = new AsyncLocalStorage<SendRegister>();

/** Runs a draft's send with the operator sending it in context (null: other software's send, as is). */
export function withSendRegister<T>(register: SendRegister | null, send: () => Promise<T>): Promise<T> {
  return register === null ? send() : sender.run(register, send);
}

/**
 * Called inside the transaction that queues a draft (or a rejected note) for the authority, before anything
 * is sent. A note tied to a register session that has been closed since would land after its shift report
 * was fixed: it is re-tied to the currently open session of the same caixa when an operator of that caixa
 * sends it (the sale happens now, in that shift), and refused with 409 caixa_fechado otherwise, nothing sent.
 * Notes without a session (other software's) and notes of an open session pass as before. Returns the
 * session the note belongs to now.
 */
export async function checkSendRegister(
  trx: Db,
  doc: { id: string; company_id: string; register_session_id?: string | null },
): Promise<string | null> {
  const sessionId = doc.register_session_id ?? null;
  if (sessionId === null) return null;
  const session = await trx
    .selectFrom('register_sessions')
    .select(['status', 'caixa'])
    .where('id', '=', sessionId)
    .executeTakeFirst();
  if (session === undefined || session.status === 'aberta') return sessionId;
  const who = sender.getStore();
  if (who !== undefined && who.companyId === doc.company_id && who.caixa === session.caixa) {
    const open = await trx
      .selectFrom('register_sessions')
      .select('id')
      .where('company_id', '=', doc.company_id)
      .where('caixa', '=', session.caixa)
      .where('status', '=', 'aberta')
      .executeTakeFirst();
    if (open !== undefined) {
      await trx
        .updateTable('documents')
        .set({ register_session_id: open.id })
        .where('id', '=', doc.id)
        .execute();
      return open.id;
    }
  }
  throw new DomainError(
    'caixa_fechado',
    `Esta venda é do caixa ${session.caixa}, que já foi fechado: abra o caixa ${session.caixa} e envie-a por um operador dele.`,
    [
      {
        field: 'caixa',
        error:
          `the draft belongs to register ${session.caixa}'s session ${sessionId}, closed since; ` +
          `send it with the X-Operator-Token of an operator signed in to register ${session.caixa} while it is open`,
      },
    ],
  );
}
