// Events of a note kept as rows (document_events): the carta de correção (110110, MOC 7.0 §6 "Carta de
// Correção Eletrônica") with its automatic nSeqEvento 1..20, and the cancellations the queue sends, adopted
// from the outbox. The queue delivers every event; its outcome is read back from the outbox row each event
// names (refreshEvents), since the worker itself only settles the note's status for cancellations.
import type { Selectable } from 'kysely';
import { DomainError } from '../errors.ts';
import type { Db } from '../db/client.ts';
import { DESC_EVENTO, isTpEvento } from '../fiscal/events.ts';
import { procEventoNFe } from '../fiscal/proc.ts';
import type { OutboxRow } from '../outbox/repository.ts';
import type { IssueDeps } from './issue.ts';
import { documentsRepository } from './repository.ts';
import { queueEvent } from './events.ts';
import { findKindById } from './registry.ts';
import type { CorrectionLetterView, EventStatus, EventView } from '../../src-shared/contracts/documents.ts';
import { newId } from '../ids.ts';
import { firstElementText, unescapeText } from '../fiscal/xml.ts';

export type { CorrectionLetterView, EventStatus, EventView };

/** The document_events table (migration 2026_11_22_0005); typed here with Kysely's withTables. */
export interface DocumentEventsTable {
  id: string;
  document_id: string;
  company_id: string;
  tp_evento: string;
  n_seq: number;
  status: EventStatus;
  payload: string;
  xml: string;
  outbox_id: number | null;
  c_stat: string | null;
  x_motivo: string | null;
  n_prot: string | null;
  proc_xml: string | null;
  registered_at: string | null;
  created_at: string;
  updated_at: string;
}

export type DocumentEventRow = Selectable<DocumentEventsTable>;

export const eventTables = (db: Db) => db.withTables<{ document_events: DocumentEventsTable }>();

export const TP_CCE = '110110';
/** MOC 7.0: a note takes at most 20 cartas de correção (nSeqEvento 1..20; rejection 594 beyond). */
export const MAX_CCE = 20;

/**
 * Texts of the answers the queue keeps only as a cStat (the worker stores xMotivo only for failures);
 * MOC 7.0 annex "Tabela de códigos de erros e descrições de mensagens de erros".
 */
export const CSTAT_TEXT: Readonly<Record<string, string>> = {
  '102': 'Inutilização de número homologado',
  '135': 'Evento registrado e vinculado a NF-e',
  '136': 'Evento registrado, mas não vinculado a NF-e',
  '155': 'Cancelamento homologado fora de prazo',
  '256': 'Rejeição: Uma NF-e da faixa já está inutilizada na Base de dados da SEFAZ',
  '563': 'Rejeição: Já existe pedido de Inutilização com a mesma faixa de inutilização',
  '573': 'Rejeição: Duplicidade de Evento',
  '594': 'Rejeição: O número de sequencia do evento informado é maior que o permitido',
  '784': 'Rejeição: NFC-e não permite o evento de Carta de Correção',
};

const newEventId = newId;

/** The event's outcome as the outbox row tells it; `null` while the row is still on its way. */
export function outcomeOf(row: OutboxRow): {
  status: EventStatus;
  c_stat: string | null;
  x_motivo: string | null;
  n_prot: string | null;
  proc_xml: string | null;
  registered_at: string | null;
} | null {
  if (row.state === 'done') {
    const cStat = row.last_c_stat;
    const protocol = findKindById(row.doc_kind)?.protocol;
    let procXml: string | null = null;
    try {
      // The signed event and the authority's answer, byte for byte: the kind's procEvento (procEventoNFe,
      // MOC 7.0 §5, when the kind has none of its own).
      const answer = row.answer_xml;
      procXml =
        answer === null
          ? null
          : protocol?.eventProc !== undefined
            ? protocol.eventProc(row.message, answer)
            : procEventoNFe(row.message, answer, { validate: false }).xml;
    } catch {
      procXml = null;
    }
    return {
      proc_xml: procXml,
      status: 'registrada',
      c_stat: cStat,
      x_motivo: cStat === null ? null : (protocol?.answerText?.(cStat) ?? CSTAT_TEXT[cStat] ?? null),
      // The event's protocol (retEvento/nProt), kept by the queue with the answer.
      n_prot: row.answer_n_prot,
      registered_at: row.updated_at,
    };
  }
  if (row.state === 'failed') {
    return {
      status: 'rejeitada',
      c_stat: row.last_c_stat,
      x_motivo: row.last_error,
      n_prot: null,
      proc_xml: null,
      registered_at: null,
    };
  }
  return null;
}

/**
 * Brings the document's events up to date: events queued elsewhere (cancellation 110111, substitution
 * 110112) are adopted from the outbox, and every event still on its way takes the outcome of its row.
 */
export async function refreshEvents(db: Db, documentId: string): Promise<void> {
  const edb = eventTables(db);
  const orphans = await edb
    .selectFrom('outbox')
    .leftJoin('document_events', 'document_events.outbox_id', 'outbox.id')
    .selectAll('outbox')
    .where('outbox.document_id', '=', documentId)
    .where('outbox.kind', '=', 'evento')
    .where('document_events.id', 'is', null)
    .orderBy('outbox.id')
    .execute();
  for (const row of orphans) {
    const tpEvento = row.event_type ?? firstElementText(row.message, 'tpEvento');
    const nSeq = Number(firstElementText(row.message, 'nSeqEvento') ?? '1');
    if (tpEvento === undefined || !Number.isInteger(nSeq) || nSeq < 1 || nSeq > 20) continue;
    const xJust = firstElementText(row.message, 'xJust');
    const xCorrecao = firstElementText(row.message, 'xCorrecao');
    const payload =
      xCorrecao !== undefined
        ? { correcao: unescapeText(xCorrecao) }
        : xJust !== undefined
          ? { justificativa: unescapeText(xJust) }
          : {};
    // Adopted with its outcome at once: a refused attempt and its retry may share a sequence number.
    const outcome = outcomeOf(row);
    await edb
      .insertInto('document_events')
      .values({
        id: newEventId(),
        document_id: documentId,
        company_id: row.company_id,
        tp_evento: tpEvento,
        n_seq: nSeq,
        status: 'processando',
        payload: JSON.stringify(payload),
        xml: row.message,
        outbox_id: row.id,
        c_stat: null,
        x_motivo: null,
        n_prot: null,
        proc_xml: null,
        registered_at: null,
        created_at: row.created_at,
        updated_at: outcome === null ? row.created_at : row.updated_at,
        ...outcome,
      })
      // A repeat of a registered sequence (the partial unique index) is not adopted twice.
      .onConflict((oc) => oc.doNothing())
      .execute();
  }

  const open = await edb
    .selectFrom('document_events')
    .innerJoin('outbox', 'outbox.id', 'document_events.outbox_id')
    .select(['document_events.id as eventId'])
    .selectAll('outbox')
    .where('document_events.document_id', '=', documentId)
    .where('document_events.status', '=', 'processando')
    .where('outbox.state', 'in', ['done', 'failed'])
    .execute();
  for (const row of open) {
    const outcome = outcomeOf(row);
    if (outcome === null) continue;
    await edb
      .updateTable('document_events')
      .set({ ...outcome, updated_at: row.updated_at })
      .where('id', '=', row.eventId)
      .where('status', '=', 'processando')
      .execute();
  }
}

/** The events of each of `ids`, oldest first: what a kind's list and read views show beside each document. */
export async function eventsByDocument(
  db: Db,
  ids: readonly string[],
): Promise<Map<string, DocumentEventRow[]>> {
  const byDoc = new Map<string, DocumentEventRow[]>();
  if (ids.length === 0) return byDoc;
  const rows = await eventTables(db)
    .selectFrom('document_events')
    .selectAll()
    .where('document_id', 'in', ids)
    .orderBy('created_at')
    .orderBy('n_seq')
    .execute();
  for (const row of rows) byDoc.set(row.document_id, [...(byDoc.get(row.document_id) ?? []), row]);
  return byDoc;
}

/** Those of `ids` with an event on its way to the authority (pending, in flight or of unknown outcome). */
export async function withPendingEvents(db: Db, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom('outbox')
    .select('document_id')
    .where('document_id', 'in', ids)
    .where('kind', '=', 'evento')
    .where('state', 'in', ['pending', 'in_flight', 'unknown'])
    .execute();
  return new Set(rows.map((r) => r.document_id).filter((id): id is string => id !== null));
}

/** Events of `ids` still on their way take the outcome the queue reached meanwhile (registered or rejected). */
export async function refreshOpenEvents(db: Db, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  const open = await eventTables(db)
    .selectFrom('document_events')
    .select('document_id')
    .distinct()
    .where('document_id', 'in', ids)
    .where('status', '=', 'processando')
    .execute();
  for (const { document_id } of open) await refreshEvents(db, document_id);
}

export async function listEvents(db: Db, documentId: string, tpEvento?: string): Promise<DocumentEventRow[]> {
  await refreshEvents(db, documentId);
  let query = eventTables(db).selectFrom('document_events').selectAll().where('document_id', '=', documentId);
  if (tpEvento !== undefined) query = query.where('tp_evento', '=', tpEvento);
  return query.orderBy('created_at').orderBy('n_seq').execute();
}

function cceRejected(cStat: '594' | '784', message: string, field: string, error: string): DomainError {
  return new DomainError('fiscal_rejection', message, [{ field, error }], {
    extra: { cStat, xMotivo: CSTAT_TEXT[cStat] ?? '' },
  });
}

/**
 * Queues a carta de correção for an authorized NF-e with the next free nSeqEvento (1..20). The number and
 * the outbox row are taken in one transaction, so two concurrent letters never share a number.
 * `field` is the caller's name of the text (correcao or texto_correcao), for error details.
 */
export async function issueCorrectionLetter(
  deps: IssueDeps,
  documentId: string,
  correcao: string,
  field = 'correcao',
): Promise<DocumentEventRow> {
  const current = await documentsRepository.findById(deps.db, documentId);
  if (current === undefined) throw new DomainError('not_found', 'Document not found.');
  // MOC 7.0: the CC-e exists for the NF-e only; the authority answers 784 for an NFC-e.
  if (current.modelo !== 55) {
    throw cceRejected(
      '784',
      'A correction letter (CC-e) applies to an NF-e (model 55) only.',
      'modelo',
      '65',
    );
  }
  const { event } = await queueEvent(deps, documentId, 'correct', { correcao, field }, { field });
  return event;
}

/** How long the correction-letter answer waits for the authority; the queue keeps trying afterwards. */
export const CCE_WAIT_MS = 10_000;

/**
 * Sends a queued event now and waits at most `waitMs` for the authority (as the synchronous send does), so
 * a reachable authority gives the protocol in the answer; the event comes back as it stands then.
 */
export async function awaitEvent(
  deps: IssueDeps,
  event: DocumentEventRow,
  waitMs = CCE_WAIT_MS,
): Promise<DocumentEventRow> {
  if (event.outbox_id === null) return event;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    // A failure to reach the authority leaves the row queued; the event then stays `processando`.
    deps.worker.process(event.outbox_id).catch(() => undefined),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs))),
  ]);
  clearTimeout(timer);
  await refreshEvents(deps.db, event.document_id);
  const now = await eventTables(deps.db)
    .selectFrom('document_events')
    .selectAll()
    .where('id', '=', event.id)
    .executeTakeFirst();
  return now ?? event;
}

/** What document_events.payload keeps of the request, as an object (the `detalhes` of the event views). */
export function eventDetails(row: Pick<DocumentEventRow, 'payload'>): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(row.payload);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    // A payload that is not JSON is shown as nothing rather than failing the whole view.
    return {};
  }
}

export function correctionLetterView(row: DocumentEventRow): CorrectionLetterView {
  const correcao = eventDetails(row)['correcao'];
  return {
    id: row.id,
    sequencia: row.n_seq,
    protocolo_cce: row.n_prot,
    cStat: row.c_stat,
    xMotivo: row.x_motivo,
    registrada_em: row.registered_at,
    nfeId: row.document_id,
    status: row.status,
    correcao: typeof correcao === 'string' ? correcao : '',
    criada_em: row.created_at,
  };
}

export function eventView(row: DocumentEventRow): EventView {
  return {
    id: row.id,
    nfeId: row.document_id,
    tpEvento: row.tp_evento,
    descricao: isTpEvento(row.tp_evento) ? DESC_EVENTO[row.tp_evento] : row.tp_evento,
    sequencia: row.n_seq,
    status: row.status,
    protocolo: row.n_prot,
    cStat: row.c_stat,
    xMotivo: row.x_motivo,
    detalhes: eventDetails(row),
    criada_em: row.created_at,
    registrada_em: row.registered_at,
  };
}
