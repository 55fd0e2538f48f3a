// What the /v1/cte read routes show: the CT-e with its events, the §4.6 list with its filters, and the §2.7
// debug object (the request as received, the queue's log, the CC-e, the XML at each step, the rows).
import type { Db } from '../../../db/client.ts';
import type { RowWindow } from '../../../db/paginate.ts';
import { pageOfKind } from '../../list.ts';
import { documentsRepository, type DocumentRow } from '../../repository.ts';
import { outboxRepository } from '../../../outbox/repository.ts';
import { eventsByDocument, refreshOpenEvents, withPendingEvents } from '../../events-service.ts';
import type { CteDebug, CteView } from '../../../../src-shared/contracts/cte-view.ts';
import { cteEventView, cteView, type CteViewOptions } from './view.ts';
import { cteProtocol } from './protocol.ts';
import { oneView } from '../../one-view.ts';

export const CTE_MODELO = 57;

export async function cteViews(db: Db, docs: readonly DocumentRow[]): Promise<CteView[]> {
  const ids = docs.map((d) => d.id);
  await refreshOpenEvents(db, ids);
  const [byDoc, pending] = await Promise.all([eventsByDocument(db, ids), withPendingEvents(db, ids)]);
  return docs.map((doc) =>
    cteView(doc, { events: byDoc.get(doc.id) ?? [], eventPending: pending.has(doc.id) }),
  );
}

export async function cteViewOf(
  db: Db,
  doc: DocumentRow,
  options: Pick<CteViewOptions, 'message'> = {},
): Promise<CteView> {
  return oneView(cteViews(db, [doc]), options.message);
}

export interface CteListFilter {
  status?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

export async function listCte(
  db: Db,
  companyId: string,
  filter: CteListFilter,
  window: RowWindow,
): Promise<{ items: CteView[]; total: number }> {
  const status =
    filter.status === 'rejeitada' ? 'erro' : (filter.status as DocumentRow['status'] | undefined);
  const { rows, total } = await pageOfKind(db, companyId, CTE_MODELO, { ...filter, status }, window);
  return { items: await cteViews(db, rows), total };
}

function parsePayload(json: string): unknown {
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return json;
  }
}

export async function cteDebug(db: Db, doc: DocumentRow): Promise<CteDebug> {
  const view = await cteViewOf(db, doc);
  const outbox = await db
    .selectFrom('outbox')
    .selectAll()
    .where('document_id', '=', doc.id)
    .orderBy('id')
    .execute();
  const eventRows = (await eventsByDocument(db, [doc.id])).get(doc.id) ?? [];
  const transmitted = outbox.find((r) => r.kind === 'autorizacao' && r.attempts > 0) ?? null;
  const fresh = await documentsRepository.findById(db, doc.id);
  return {
    cte: { ...view, request_payload: parsePayload(doc.payload_json) },
    logs: outbox.map((r) => ({
      at: r.updated_at,
      operation: r.kind,
      tpEvento: r.event_type ?? null,
      state: r.state,
      attempts: r.attempts,
      cStat: r.last_c_stat,
      // The queue keeps the text of failures only: an answer that settled the CT-e has its text on the
      // document, an event answer in the CT-e code table.
      xMotivo:
        r.last_error ??
        (r.kind === 'autorizacao' && r.last_c_stat !== null && r.last_c_stat === (fresh ?? doc).c_stat
          ? (fresh ?? doc).x_motivo
          : r.last_c_stat === null
            ? null
            : (cteProtocol.answerText?.(r.last_c_stat) ?? null)),
    })),
    cce: eventRows.filter((e) => e.tp_evento === '110110').map(cteEventView),
    xml: {
      signed: doc.xml,
      transmitted: transmitted === null ? null : outboxRepository.messageOf(transmitted, (fresh ?? doc).xml),
      protocol: doc.prot_xml,
      proc: doc.proc_xml,
    },
    snapshot: {
      document: { ...(fresh ?? doc) },
      outbox: outbox.map((r) => ({ ...r })),
      events: eventRows.map((e) => ({ ...e })),
    },
  };
}
