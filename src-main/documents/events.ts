// Events of any kind's documents on one path: the kind's EventRule for the action (cancel, correct) says
// from which states, by when, how many and how the message is built; this module checks the state and the
// deadline, takes the next sequence number and queues the signed event with its document_events row in one
// transaction, so two concurrent requests never share a number nor both pass.
import { inTransaction } from '../db/client.ts';
import { DomainError, invalidState, notFound } from '../errors.ts';
import { newId } from '../ids.ts';
import { outboxRepository } from '../outbox/repository.ts';
import { loadCompanyFiscal } from './context.ts';
import { eventRuleOf, type DocumentKind, type EventRule } from './kind.ts';
import type { LifecycleDeps } from './lifecycle.ts';
import { kindOfModelo } from './registry.ts';
import { documentsRepository, type DocumentRow } from './repository.ts';
import { eventTables, refreshEvents, type DocumentEventRow } from './events-service.ts';

const ACTION_WORDS: Readonly<Record<EventRule['action'], string>> = {
  cancel: 'cancel',
  correct: 'issue a correction letter for',
  substitution: 'cancel by substitution',
};

const AGAIN: Readonly<Record<EventRule['action'], string>> = {
  cancel: 'a cancellation is already being sent',
  correct: 'a correction letter is already being sent',
  substitution: 'a substitution is already being sent',
};

function assertFrom(rule: EventRule, status: DocumentRow['status']): void {
  if (!rule.allowedFrom.includes(status)) throw invalidState(status, ACTION_WORDS[rule.action]);
}

export interface QueuedEvent {
  document: DocumentRow;
  event: DocumentEventRow;
}

/**
 * Queues the kind's event for `action` on document `id` with the caller's `details` (justificativa,
 * correcao, correcoes, ...). `field` names the caller's text in a "too many" refusal. With `expected`, a
 * document of another kind is not found.
 */
export async function queueEvent(
  deps: LifecycleDeps,
  id: string,
  action: EventRule['action'],
  details: Readonly<Record<string, unknown>>,
  options: { expected?: DocumentKind; field?: string } = {},
): Promise<QueuedEvent> {
  const current = await documentsRepository.findById(deps.db, id);
  if (current === undefined || (options.expected !== undefined && current.modelo !== options.expected.modelo))
    throw notFound('Document');
  const kind = kindOfModelo(current.modelo);
  const rule = eventRuleOf(kind, { action });
  if (rule === undefined) {
    throw new DomainError('invalid_state', `A ${kind.label} takes no such event (${action}).`, [
      { field: 'modelo', error: String(kind.modelo) },
    ]);
  }
  assertFrom(rule, current.status);
  const now = deps.clock.now();
  const late = rule.deadline?.(current, now) ?? null;
  if (late !== null) throw late;
  const fiscal = await loadCompanyFiscal(deps.db, deps.secrets, current.company_id, now, current.ambiente);

  return inTransaction(deps.db, async (trx) => {
    const doc = await documentsRepository.findById(trx, id);
    if (doc === undefined) throw notFound('Document');
    assertFrom(rule, doc.status);
    // Outcomes the queue reached meanwhile first: a rejected event frees its sequence number.
    await refreshEvents(trx, doc.id);
    const open = await outboxRepository.openForDocument(trx, doc.id);
    if (rule.maxSeq === 1 && open.some((row) => row.kind === 'evento' && row.event_type === rule.tpEvento)) {
      throw invalidState(doc.status, `${ACTION_WORDS[rule.action]} again (${AGAIN[rule.action]})`);
    }
    const edb = eventTables(trx);
    const taken = await edb
      .selectFrom('document_events')
      .select((eb) => eb.fn.max('n_seq').as('last'))
      .where('document_id', '=', doc.id)
      .where('tp_evento', '=', rule.tpEvento)
      .where('status', '<>', 'rejeitada')
      .executeTakeFirst();
    // A single-sequence event (cancellation) retried after a rejection reuses its number.
    const nSeq = rule.maxSeq === 1 ? 1 : Number(taken?.last ?? 0) + 1;
    if (nSeq > rule.maxSeq) {
      const field = options.field ?? 'sequencia';
      throw (
        rule.beyondMax?.(nSeq, field) ??
        new DomainError('fiscal_rejection', `A ${kind.label} takes at most ${rule.maxSeq} such events.`, [
          { field, error: `event ${nSeq} exceeds the limit of ${rule.maxSeq}` },
        ])
      );
    }
    const built = await rule.build({ fiscal, doc, nSeq, now, details });
    const stamp = now.toISOString();
    const outboxId = await outboxRepository.enqueueMessage(trx, {
      documentId: doc.id,
      companyId: doc.company_id,
      kind: 'evento',
      docKind: kind.id,
      eventType: rule.tpEvento,
      message: built.xml,
      now: stamp,
    });
    const row: DocumentEventRow = {
      id: newId(),
      document_id: doc.id,
      company_id: doc.company_id,
      tp_evento: rule.tpEvento,
      n_seq: nSeq,
      status: 'processando',
      payload: JSON.stringify(built.payload),
      xml: built.xml,
      outbox_id: outboxId,
      c_stat: null,
      x_motivo: null,
      n_prot: null,
      proc_xml: null,
      registered_at: null,
      created_at: stamp,
      updated_at: stamp,
    };
    await edb.insertInto('document_events').values(row).execute();
    return { document: doc, event: row };
  });
}
