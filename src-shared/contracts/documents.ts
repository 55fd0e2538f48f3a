// The answers of the document routes (NF-e/NFC-e, received notes, the company's status), shared by the
// service that builds them and the clients (the renderer's api-client, other TypeScript POS) that read them.

/** GET /v1/nfe/:id and /v1/nfce/:id: identification, state, the authority's answer, totals and items. */
export interface DocumentView {
  id: string;
  modelo: number;
  serie: number;
  numero: number;
  status: string;
  ambiente: string;
  tipo_emissao: number;
  chave_acesso: string;
  protocolo: string | null;
  autorizada_em: string | null;
  dh_emissao: string;
  valor_total: string;
  cStat: string | null;
  xMotivo: string | null;
  mensagens: { cStat: string; xMotivo: string }[];
  qr_code: string | null;
  url_chave: string | null;
  substitui: string | null;
  substituida_por: string | null;
  totais: Record<string, string>;
  itens: {
    nItem: number;
    codigo: string | null;
    descricao: string | null;
    ncm: string | null;
    cfop: string | null;
    quantidade: string | null;
    valor_unitario: string | null;
    valor_total: string | null;
  }[];
  xml_url: string;
  danfe_url: string;
  criada_em: string;
  atualizada_em: string;
}

/** GET /v1/nfe/received and /v1/nfe/received/:id: a note addressed to the company (NFeDistribuicaoDFe). */
export interface ReceivedNoteView {
  id: string;
  chave_acesso: string;
  emitente: { cnpj: string | null; nome: string | null; ie: string | null };
  tipo_operacao: number | null;
  valor_total: string | null;
  dh_emissao: string | null;
  situacao: 'autorizada' | 'denegada' | 'cancelada';
  protocolo: string | null;
  nsu: string;
  schema: string;
  /** true once the whole NF-e (procNFe) arrived; before that only the summary (resNFe) is known. */
  completa: boolean;
  manifestacao: { tipo: string; status: string } | null;
  xml_url: string;
  recebida_em: string;
  atualizada_em: string;
}

export interface ReceivedNoteDetail extends ReceivedNoteView {
  xml: string;
  manifestacoes: {
    tipo: string;
    tpEvento: string;
    status: string;
    cStat: string | null;
    xMotivo: string | null;
    /** The event's protocol (nProt of retEvento) once registered. */
    protocolo: string | null;
    justificativa: string | null;
    criada_em: string;
  }[];
  eventos: { tpEvento: string | null; nSeqEvento: number | null; nsu: string; schema: string }[];
}

/** GET /v1/companies/:id/status: what the cashier's status bar shows. */
export interface CompanyStatus {
  ambiente: 'homologacao' | 'producao';
  autoridade: {
    modo: 'normal' | 'SVC-AN' | 'SVC-RS' | 'offline';
    /** false while new NFC-e are issued offline (tpEmis 9) because the authority did not answer. */
    online: boolean;
    /** When the contingency in force began; null in normal mode. */
    desde: string | null;
    motivo: string | null;
  };
  fila: {
    /** Queue rows not yet delivered and settled (pending, in flight, or waiting for a consultation). */
    pendentes: number;
    /** NFC-e issued offline, still waiting for their authorization. */
    contingencia: number;
  };
  certificado: { validoAte: string; diasParaExpirar: number } | null;
}

/** Document states (seed §3); `contingencia` = NFC-e issued offline (tpEmis 9), waiting to be transmitted. */
export type DocumentStatus =
  | 'rascunho'
  | 'processando'
  | 'contingencia'
  | 'autorizada'
  | 'erro'
  | 'denegada'
  | 'cancelada'
  | 'substituida'
  | 'inutilizada';

/** A note's event (CC-e, cancellation) as the queue settled it. */
export type EventStatus = 'processando' | 'registrada' | 'rejeitada';

/** GET /v1/nfe/:id/events. */
export interface EventView {
  id: string;
  nfeId: string;
  tpEvento: string;
  descricao: string;
  sequencia: number;
  status: EventStatus;
  protocolo: string | null;
  cStat: string | null;
  xMotivo: string | null;
  /** correcao (CC-e) or justificativa (cancellations). */
  detalhes: Record<string, unknown>;
  criada_em: string;
  registrada_em: string | null;
}

/** POST /v1/nfe/:id/correction-letter and GET /v1/nfe/:id/correction-letters. */
export interface CorrectionLetterView {
  id: string;
  nfeId: string;
  sequencia: number;
  status: EventStatus;
  protocolo: string | null;
  cStat: string | null;
  xMotivo: string | null;
  /** The text as sent (normalized to what the layout allows: Latin-1, single spaces). */
  correcao: string;
  criada_em: string;
  registrada_em: string | null;
}

export type VoidStatus = 'processando' | 'homologada' | 'rejeitada';

/** POST /v1/nfe/inutilizar and GET /v1/nfe/inutilizar/:id. */
export interface VoidResult {
  id: string;
  success: boolean;
  status: VoidStatus;
  cStat: string | null;
  xMotivo: string | null;
  /** The authority's protocol (nProt of retInutNFe) once homologated. */
  protocolo: string | null;
  modelo: number;
  serie: number;
  numeroInicial: number;
  numeroFinal: number;
  /** Drafts whose number this request voided. */
  documentos: string[];
  criada_em: string;
}

/** GET /v1/nfe/batch/:batchId. */
export interface BatchProgress {
  batchId: string;
  total: number;
  autorizadas: number;
  rejeitadas: number;
  processando: number;
  status: 'processando' | 'concluido';
  notas: {
    id: string;
    numero: number;
    status: DocumentStatus;
    chave_acesso: string;
    cStat: string | null;
    xMotivo: string | null;
  }[];
}
