// A sale paid by dynamic PIX: a payment naming `pix_txid` must point at a charge of the company that the PSP
// settled (CONCLUIDA) for at least the payment's amount and that no other note uses; the note then carries
// tPag 17 with the card group (tpIntegra 1, the PSP's CNPJ, cAut = endToEndId) — NT 2023.004.
import type { Db } from '../db/client.ts';
import { DomainError, conflict } from '../errors.ts';
import { cents } from '../../src-shared/money.ts';
import { resolveTPag } from '../../src-shared/tables/payment-methods.ts';
import type { ErrorDetail } from '../../src-shared/contracts/errors.ts';
import { pixRepository } from './repository.ts';

/** What the note's card group needs from a paid charge. */
export interface PixPaymentFacts {
  cnpj: string | null;
  endToEndId: string;
}

interface PixPaymentRef {
  /** The field path in the caller's own spelling (`pagamentos[0].pix_txid`, `pagamento.pixTxid`). */
  field: string;
  formaField: string;
  txid: string;
  forma: unknown;
  valor: unknown;
}

const record = (v: unknown): Record<string, unknown> | null =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;

/** Payments that name a charge, in either spelling (`pagamentos` list or spelling B's one `pagamento`). */
function pixPaymentRefs(payload: unknown): PixPaymentRef[] {
  const body = record(payload);
  if (body === null) return [];
  const refs: PixPaymentRef[] = [];
  const visit = (p: unknown, prefix: string) => {
    const payment = record(p);
    if (payment === null) return;
    const key = 'pix_txid' in payment ? 'pix_txid' : 'pixTxid' in payment ? 'pixTxid' : null;
    if (key === null || typeof payment[key] !== 'string') return;
    const formaKey =
      ['forma', 'metodo', 'forma_pagamento', 'meio_pagamento'].find((k) => k in payment) ?? 'forma';
    refs.push({
      field: `${prefix}.${key}`,
      formaField: `${prefix}.${formaKey}`,
      txid: payment[key],
      forma: payment[formaKey],
      valor: payment['valor'],
    });
  };
  const list = body['pagamentos'];
  if (Array.isArray(list)) list.forEach((p, i) => visit(p, `pagamentos[${i}]`));
  visit(body['pagamento'], 'pagamento');
  return refs;
}

function amountCents(valor: unknown): bigint | null {
  const text = typeof valor === 'number' ? String(valor) : typeof valor === 'string' ? valor.trim() : null;
  if (text === null || !/^\d{1,13}(\.\d{1,2})?$/.test(text)) return null;
  return cents(text);
}

const brl = (c: bigint) => `${c / 100n},${String(c % 100n).padStart(2, '0')}`;

/**
 * Checks every PIX payment of a sale at once and returns the facts its card groups need, by txid. 422
 * `pix_nao_pago` names each payment whose charge is unknown, not CONCLUIDA, paid for less, or not PIX.
 * Whether another note already used it is settled by claimPixCharges inside the note's transaction.
 * Malformed amounts are left to the payload's checks.
 */
export async function pixChargesForSale(
  db: Db,
  companyId: string,
  payload: unknown,
): Promise<ReadonlyMap<string, PixPaymentFacts>> {
  const refs = pixPaymentRefs(payload);
  const facts = new Map<string, PixPaymentFacts>();
  if (refs.length === 0) return facts;
  const rows = new Map(
    (
      await pixRepository.charges(
        db,
        refs.map((r) => r.txid),
      )
    ).map((r) => [r.txid, r]),
  );
  const problems: ErrorDetail[] = [];
  const seen = new Set<string>();
  for (const ref of refs) {
    const row = rows.get(ref.txid);
    if (ref.forma !== undefined && (typeof ref.forma !== 'string' || resolveTPag(ref.forma) !== '17')) {
      problems.push({
        field: ref.formaField,
        error: 'a payment with pix_txid is dynamic PIX: forma 17 (or metodo pix)',
      });
    }
    if (seen.has(ref.txid)) {
      problems.push({ field: ref.field, error: 'the same PIX charge pays only one payment' });
      continue;
    }
    seen.add(ref.txid);
    if (row === undefined || row.company_id !== companyId) {
      problems.push({ field: ref.field, error: 'no PIX charge with this txid in the company' });
      continue;
    }
    if (row.status !== 'CONCLUIDA' || row.end_to_end_id === null) {
      problems.push({ field: ref.field, error: `the PIX charge is ${row.status}, not paid (CONCLUIDA)` });
      continue;
    }
    const paid = cents(row.valor_pago ?? row.valor);
    const asked = amountCents(ref.valor);
    if (asked !== null && asked > paid) {
      problems.push({
        field: ref.field,
        error: `the PIX charge paid R$ ${brl(paid)}, less than the payment's R$ ${brl(asked)}`,
      });
      continue;
    }
    facts.set(ref.txid, { cnpj: row.cnpj_psp, endToEndId: row.end_to_end_id });
  }
  if (problems.length > 0) {
    throw new DomainError(
      'pix_nao_pago',
      'A PIX payment of the sale is not settled by its charge.',
      problems,
    );
  }
  return facts;
}

/**
 * In the note's transaction: ties each PIX charge to the note. A charge another standing note took meanwhile
 * (two sales racing for one charge) fails the transaction, so no number is spent and the sale is refused.
 * `documentId` is the note being written; a draft replaced in place keeps the charges it still names and
 * releases the others.
 */
export async function claimPixCharges(
  trx: Db,
  documentId: string,
  payload: unknown,
  now: string,
): Promise<void> {
  const refs = pixPaymentRefs(payload);
  await pixRepository.releaseUnnamed(
    trx,
    documentId,
    refs.map((r) => r.txid),
    now,
  );
  for (const ref of refs) {
    if (!(await pixRepository.claim(trx, ref.txid, documentId, now))) {
      throw conflict('A PIX charge of the sale was already used by another note.', [
        { field: ref.field, error: 'the PIX charge already paid another note' },
      ]);
    }
  }
}
