// The CT-e object of the API (§2.7) read back from its row and its signed XML (the document of record), with
// its events; links point at the /v1/cte routes.
import { XMLParser } from 'fast-xml-parser';
import { eventDetails } from '../../events-service.ts';
import type { DocumentRow } from '../../repository.ts';
import type { CteEventView, CteView } from '../../../../src-shared/contracts/cte-view.ts';

const parser = new XMLParser({ ignoreAttributes: true, parseTagValue: false });

type Node = Record<string, unknown>;
const obj = (v: unknown): Node => (typeof v === 'object' && v !== null ? (v as Node) : {});
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** A row of document_events as the CT-e routes read it. */
export interface CteEventRow {
  id: string;
  document_id: string;
  tp_evento: string;
  n_seq: number;
  status: 'processando' | 'registrada' | 'rejeitada';
  payload: string;
  c_stat: string | null;
  x_motivo: string | null;
  n_prot: string | null;
  registered_at: string | null;
  created_at: string;
}

const EVENT_NAMES: Readonly<Record<string, string>> = {
  '110111': 'Cancelamento',
  '110110': 'Carta de Correcao',
};

export function cteEventView(row: CteEventRow): CteEventView {
  return {
    id: row.id,
    cte_id: row.document_id,
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

function party(node: unknown): { nome: string; cpfCnpj: string } {
  const p = obj(node);
  return { nome: text(p['xNome']), cpfCnpj: text(p['CNPJ']) || text(p['CPF']) };
}

export interface CteViewOptions {
  events?: CteEventRow[];
  /** An event waits for the authority: the CT-e reads `processando` meanwhile (like the NF-e, §3). */
  eventPending?: boolean;
  message?: string;
}

export function cteView(doc: DocumentRow, options: CteViewOptions = {}): CteView {
  const inf = obj(obj(obj(parser.parse(doc.xml))['CTe'])['infCte']);
  const ide = obj(inf['ide']);
  const status = options.eventPending === true && doc.status === 'autorizada' ? 'processando' : doc.status;
  return {
    id: doc.id,
    company_id: doc.company_id,
    numero: doc.n_nf,
    serie: doc.serie,
    status: status as CteView['status'],
    chave_acesso: doc.chave,
    protocolo: doc.n_prot,
    valor_total: doc.v_nf,
    origem: { uf: text(ide['UFIni']), municipio: text(ide['xMunIni']) },
    destino: { uf: text(ide['UFFim']), municipio: text(ide['xMunFim']) },
    ambiente: doc.ambiente,
    created_at: doc.created_at,
    modal: text(ide['modal']),
    cfop: text(ide['CFOP']),
    toma: text(obj(ide['toma3'])['toma']) || text(obj(ide['toma4'])['toma']),
    remetente: party(inf['rem']),
    destinatario: party(inf['dest']),
    tipo_emissao: doc.tp_emis,
    cStat: doc.c_stat,
    xMotivo: doc.x_motivo,
    authorized_at: doc.authorized_at,
    dacte_url: `/v1/cte/${doc.id}/dacte`,
    xml_url: `/v1/cte/${doc.id}/xml`,
    eventos: (options.events ?? []).map(cteEventView),
    updated_at: doc.updated_at,
    ...(options.message === undefined ? {} : { message: options.message }),
  };
}
