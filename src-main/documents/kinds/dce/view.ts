// The DC-e object of /v1/dce read back from its row and its signed DCe (the document of record), with its
// cancellation; the §4.6 list with its status, period and search filters; the events' XML of GET …/xml.
import { sql } from 'kysely';
import type { Db } from '../../../db/client.ts';
import { isPostgres } from '../../../db/dialect.ts';
import type { RowWindow } from '../../../db/paginate.ts';
import { readDce } from '../../../fiscal/dce/parse.ts';
import {
  eventDetails,
  eventsByDocument,
  refreshOpenEvents,
  withPendingEvents,
  type DocumentEventRow,
} from '../../events-service.ts';
import { pageOfKind } from '../../list.ts';
import type { DocumentRow } from '../../repository.ts';
import {
  DCE_MODALIDADES_TRANSPORTE,
  DCE_MODELO,
  DCE_TIPOS_EMITENTE,
  type DceEventView,
  type DceStatus,
  type DceView,
} from '../../../../src-shared/contracts/dce-view.ts';
import { DCE_TP_CANCEL } from './events.ts';
import { oneView } from '../../one-view.ts';

const EVENT_NAMES: Readonly<Record<string, string>> = { [DCE_TP_CANCEL]: 'Cancelamento' };

export function dceEventView(row: DocumentEventRow): DceEventView {
  return {
    id: row.id,
    dce_id: row.document_id,
    tpEvento: row.tp_evento,
    descricao: EVENT_NAMES[row.tp_evento] ?? row.tp_evento,
    sequencia: row.n_seq,
    status: row.status,
    protocolo: row.n_prot,
    cStat: row.c_stat,
    xMotivo: row.x_motivo,
    detalhes: eventDetails(row),
    created_at: row.created_at,
    registered_at: row.registered_at,
  };
}

export interface DceViewOptions {
  /** Scheme, host and port the links start with; '' gives paths. */
  base?: string;
  /** The DC-e's events, oldest first. */
  events?: readonly DocumentEventRow[];
  /** A cancellation waits for the authority: the DC-e reads `processando` meanwhile (as the CT-e). */
  eventPending?: boolean;
  message?: string;
}

const docOf = (party: { CNPJ?: string | null; CPF?: string | null; idOutros?: string | null }) =>
  party.CNPJ ?? party.CPF ?? party.idOutros ?? '';

/** The view of one DC-e row; pure (the caller looks up its events). */
export function dceView(doc: DocumentRow, options: DceViewOptions = {}): DceView {
  const dce = readDce(doc.xml);
  const status =
    options.eventPending === true && doc.status === 'autorizada' ? 'processando' : (doc.status as DceStatus);
  const cancel = (options.events ?? []).find(
    (e) => e.tp_evento === DCE_TP_CANCEL && e.status === 'registrada',
  );
  const base = `${options.base ?? ''}/v1/dce/${doc.id}`;
  return {
    id: doc.id,
    status,
    modelo: DCE_MODELO,
    serie: doc.serie,
    numero: doc.n_nf,
    chave_acesso: doc.chave,
    ambiente: doc.ambiente,
    tipo_emitente: DCE_TIPOS_EMITENTE[dce.ide.tpEmit - 1] ?? 'marketplace',
    emitente: { doc: docOf(dce.emit), nome: dce.emit.xNome },
    destinatario: {
      doc: docOf(dce.dest),
      nome: dce.dest.xNome,
      municipio: dce.dest.ender.xMun,
      uf: dce.dest.ender.UF,
    },
    itens_count: dce.det.length,
    valor_total: doc.v_nf,
    modalidade_transporte: DCE_MODALIDADES_TRANSPORTE[dce.transp.modTrans] ?? 'correios',
    data_emissao: doc.dh_emi,
    protocolo: doc.n_prot,
    cStat: doc.c_stat,
    xMotivo: doc.x_motivo,
    qr_code: doc.qr_code,
    url_chave: doc.url_chave,
    authorized_at: doc.authorized_at,
    cancelled_at: cancel?.registered_at ?? null,
    created_at: doc.created_at,
    updated_at: doc.updated_at,
    dace_url: `${base}/dace`,
    dace_etiqueta_url: `${base}/dace?formato=etiqueta`,
    xml_url: `${base}/xml`,
    ...(options.message === undefined ? {} : { message: options.message }),
  };
}

export async function dceViews(db: Db, docs: readonly DocumentRow[], base = ''): Promise<DceView[]> {
  const ids = docs.map((d) => d.id);
  await refreshOpenEvents(db, ids);
  const [events, pending] = await Promise.all([eventsByDocument(db, ids), withPendingEvents(db, ids)]);
  return docs.map((doc) =>
    dceView(doc, { base, events: events.get(doc.id) ?? [], eventPending: pending.has(doc.id) }),
  );
}

export async function dceViewOf(
  db: Db,
  doc: DocumentRow,
  options: { base?: string; message?: string } = {},
): Promise<DceView> {
  return oneView(dceViews(db, [doc], options.base), options.message);
}

export interface DceListFilter {
  /** A stored status, or `rejeitada` (= `erro`). */
  status?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  /** Part of the access key, the number, or part of the recipient's name. */
  q?: string | undefined;
}

/**
 * The recipient's name as the stored payload carries it (as the caller wrote it: `nome`, or spelling B's
 * `razao_social`). LIKE is case-insensitive for ASCII only in SQLite: "joão" finds "João" but not "JOÃO".
 */
const RECIPIENT_NAME = sql<string>`coalesce(json_extract(payload_json, '$.destinatario.nome'), json_extract(payload_json, '$.destinatario.razao_social'))`;
/** The same on PostgreSQL (server mode), which has no json_extract: payload_json is text holding JSON. */
const RECIPIENT_NAME_PG = sql<string>`coalesce(payload_json::json -> 'destinatario' ->> 'nome', payload_json::json -> 'destinatario' ->> 'razao_social')`;

export async function listDce(
  db: Db,
  companyId: string,
  filter: DceListFilter,
  window: RowWindow,
  base = '',
): Promise<{ items: DceView[]; total: number }> {
  const status =
    filter.status === 'rejeitada' ? 'erro' : (filter.status as DocumentRow['status'] | undefined);
  const q = filter.q?.trim();
  const { rows, total } = await pageOfKind(
    db,
    companyId,
    DCE_MODELO,
    { status, from: filter.from, to: filter.to },
    window,
    q === undefined || q === ''
      ? undefined
      : (query) => {
          const like = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
          const digits = q.replace(/\D/g, '');
          return query.where((eb) =>
            eb.or([
              // PostgreSQL's LIKE heeds case where SQLite's ignores ASCII case: ILIKE there.
              isPostgres(db)
                ? eb(RECIPIENT_NAME_PG, 'ilike', sql<string>`${like} escape '\\'`)
                : eb(RECIPIENT_NAME, 'like', sql<string>`${like} escape '\\'`),
              ...(digits === '' ? [] : [eb('chave', 'like', `%${digits}%`)]),
              ...(/^\d{1,9}$/.test(q) ? [eb('n_nf', '=', Number(q))] : []),
            ]),
          );
        },
  );
  return { items: await dceViews(db, rows, base), total };
}

/** The events' XML of GET /v1/dce/:id/xml: the procEventoDCe once registered, else the eventoDCe sent. */
export async function dceEventXml(
  db: Db,
  documentId: string,
): Promise<{ tpEvento: string; nSeqEvento: number; xml: string }[]> {
  await refreshOpenEvents(db, [documentId]);
  const rows = (await eventsByDocument(db, [documentId])).get(documentId) ?? [];
  return rows.map((e) => ({ tpEvento: e.tp_evento, nSeqEvento: e.n_seq, xml: e.proc_xml ?? e.xml }));
}
