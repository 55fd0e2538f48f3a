// Cancellation (event 110111): allowed only for an authorized note within the legal deadline — 24 h for
// NF-e, 30 min for NFC-e (MOC 7.0 rejection 501) — and queued like every message to the authority.
import { ApiError, invalidState, validationError } from '../api/errors.ts';
import { inTransaction, type Db } from '../db/client.ts';
import { buildEvent, EventError, signEvent } from '../fiscal/events.ts';
import { outboxRepository } from '../outbox/repository.ts';
import { loadCompanyFiscal } from './context.ts';
import type { IssueDeps } from './issue.ts';
import { documentsRepository, type DocumentRow } from './repository.ts';
import { assertAllowed } from './state-machine.ts';

const CANCEL_EVENT = '<tpEvento>110111</tpEvento>';

const DEADLINE_MS: Readonly<Record<number, number>> = { 55: 24 * 3600_000, 65: 30 * 60_000 };

export async function cancelDocument(
  deps: IssueDeps,
  id: string,
  justificativa: string,
): Promise<DocumentRow> {
  const current = await documentsRepository.findById(deps.db, id);
  if (current === undefined) throw new ApiError(404, 'not_found', 'Document not found.');
  assertAllowed(current.status, 'cancel');
  const fiscal = await loadCompanyFiscal(
    deps.db,
    deps.secrets,
    current.company_id,
    deps.clock.now(),
    current.ambiente,
  );
  const now = deps.clock.now();
  const authorizedAt = new Date(current.authorized_at ?? current.dh_emi);
  const deadline = DEADLINE_MS[current.modelo] ?? DEADLINE_MS[55] ?? 0;
  if (now.getTime() - authorizedAt.getTime() > deadline) {
    throw new ApiError(
      422,
      'fiscal_rejection',
      current.modelo === 65
        ? 'An NFC-e can be cancelled only within 30 minutes of its authorization.'
        : 'An NF-e can be cancelled only within 24 hours of its authorization.',
      [{ field: 'status', error: `authorized at ${authorizedAt.toISOString()}` }],
      { cStat: '501', xMotivo: 'Rejeição: Prazo de cancelamento superior ao previsto na Legislação' },
    );
  }
  let built;
  try {
    built = buildEvent({
      tpEvento: '110111',
      tpAmb: fiscal.tpAmb,
      CNPJ: fiscal.emit.CNPJ,
      chNFe: current.chave,
      nSeqEvento: 1,
      dhEvento: now,
      idLote: now.getTime() % 1_000_000_000_000_000,
      nProt: current.n_prot ?? '',
      xJust: justificativa,
    });
  } catch (error) {
    // The justification is counted after its free text is cleaned (emoji and control characters go), so a
    // text of 15 characters may be too short for the event: the caller's field, not a failure of ours.
    if (!(error instanceof EventError)) throw error;
    const justification = error.details.filter((d) => d.field === 'xJust');
    if (justification.length === 0) throw error;
    throw validationError(justification.map((d) => ({ field: 'justificativa', error: d.error })));
  }
  const signed = signEvent(built.xml, fiscal.certificate);
  if (signed.errors.length > 0) {
    throw new ApiError(
      422,
      'fiscal_rejection',
      'The cancellation event does not validate against the schema.',
      signed.errors.map((e) => ({ field: e.field ?? 'xml', error: e.message })),
    );
  }
  return inTransaction(deps.db, async (trx) => {
    const doc = await documentsRepository.findById(trx, id);
    if (doc === undefined) throw new ApiError(404, 'not_found', 'Document not found.');
    assertAllowed(doc.status, 'cancel');
    const open = await outboxRepository.openForDocument(trx, doc.id);
    if (open.some((row) => row.kind === 'evento' && row.message.includes(CANCEL_EVENT))) {
      throw invalidState(doc.status, 'cancel again (a cancellation is already being sent)');
    }
    const stamp = now.toISOString();
    await outboxRepository.enqueueMessage(trx, {
      documentId: doc.id,
      companyId: doc.company_id,
      kind: 'evento',
      message: signed.xml,
      now: stamp,
    });
    return doc;
  });
}

/** Which of these notes have a cancellation still waiting for the authority's answer (they read `processando`). */
export async function pendingCancellations(db: Db, documentIds: readonly string[]): Promise<Set<string>> {
  if (documentIds.length === 0) return new Set();
  const rows = await outboxRepository.openEventsFor(db, documentIds);
  return new Set(
    rows
      .filter((r) => r.message.includes(CANCEL_EVENT) && r.document_id !== null)
      .map((r) => r.document_id as string),
  );
}
